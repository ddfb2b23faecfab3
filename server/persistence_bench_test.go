package server

import (
	"strconv"
	"testing"
	"time"

	"github.com/floodgate/floodgate/store"
)

// BenchmarkBgsaveHold measures how long a background save of 1,000,000
// small keys holds the execution lock, all steps together and the longest
// one, with no client competing: the time clients can be made to wait
// behind the saver. The latency clients see, beside Redis's, is
// persistence.BenchmarkRDB1M's.
//
//	go test ./server -run '^$' -bench BgsaveHold -benchtime=1x
func BenchmarkBgsaveHold(b *testing.B) {
	srv := startServer(b, Config{Dir: b.TempDir()})
	srv.Do(func() {
		for i := range 1_000_000 {
			var at int64
			if i%2 == 1 {
				at = srv.store.Now() + 3_600_000
			}
			srv.store.DB(0).Set([]byte("counter:"+strconv.Itoa(i)), store.NewInt(int64(i)), at)
		}
	})
	b.ResetTimer()
	var held, longest time.Duration
	var steps int
	for range b.N {
		srv.Do(func() { srv.startBgsave() })
		bgsaveDone(b, srv)
		srv.Do(func() {
			held += srv.persist.lastHeld
			longest = max(longest, srv.persist.lastMaxHold)
			steps += srv.persist.lastSteps
		})
	}
	b.ReportMetric(float64(held.Microseconds())/float64(b.N), "held-us/save")
	b.ReportMetric(float64(longest.Microseconds()), "longest-step-us")
	b.ReportMetric(float64(steps)/float64(b.N), "steps/save")
}
