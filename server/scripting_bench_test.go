package server

import (
	"strconv"
	"testing"
	"time"

	"github.com/floodgate/floodgate/store"
)

// slidingWindowScript is the sliding-window log of scripts/bench.sh: trim,
// count, add a unique member, refresh the TTL.
const slidingWindowScript = `local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000) local window = tonumber(ARGV[2]) redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, now - window) local n = redis.call('ZCARD', KEYS[1]) if n < tonumber(ARGV[1]) then redis.call('ZADD', KEYS[1], now, t[1] .. '-' .. t[2]) redis.call('PEXPIRE', KEYS[1], window) return 1 end return 0`

// evalSHASliding runs EVALSHA of the sliding-window script the way a
// connection does (execute under the lock), without the network. The clock
// moves 1 ms per call and the calls cycle over 1000 keys, so every key holds
// about 60 members of its 60 s window and every call takes the allowing
// branch: trim one member, count, add one, refresh the TTL.
func evalSHASliding(tb testing.TB) (run func(), w *discardWriter) {
	clock := store.NewManualClock(time.Unix(1_700_000_000, 0))
	srv := New(Config{Addr: "127.0.0.1:0", Clock: clock})
	tb.Cleanup(func() { srv.Close() })
	script, err := srv.scripting.engine().Load([]byte(slidingWindowScript))
	if err != nil {
		tb.Fatal(err)
	}
	w = &discardWriter{}
	c := &Client{srv: srv, db: srv.store.DB(0), authed: true, w: w}
	const nKeys = 1000
	calls := make([][][]byte, nKeys)
	for i := range calls {
		calls[i] = [][]byte{[]byte("EVALSHA"), []byte(script.SHA), []byte("1"), []byte("rate:ip:" + strconv.Itoa(i)), []byte("100"), []byte("60000")}
	}
	n := 0
	return func() {
		clock.Add(time.Millisecond)
		srv.lock <- struct{}{}
		srv.execute(c, calls[n%nKeys])
		<-srv.lock
		n++
	}, w
}

// BenchmarkScriptServerPath is EVALSHA of the seed-001 and sliding-window
// scripts without the network. cpu-ns/op (the process's CPU time) moves
// less than ns/op when other work shares the cores.
func BenchmarkScriptServerPath(b *testing.B) {
	b.Run("seed001", func(b *testing.B) {
		run, w := evalSHADirect(b)
		for range 1000 {
			run()
		}
		benchServerPath(b, run, w)
	})
	b.Run("sliding", func(b *testing.B) {
		run, w := evalSHASliding(b)
		for range 70_000 { // fill every key's window
			run()
		}
		benchServerPath(b, run, w)
	})
}

func benchServerPath(b *testing.B, run func(), w *discardWriter) {
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	for b.Loop() {
		run()
	}
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	if w.errors != 0 {
		b.Fatalf("EVALSHA answered %d errors", w.errors)
	}
}

// processCPU is the CPU time the process has used (as cpuTime in the
// external test package).
func processCPU() time.Duration {
	sys, user := cpuTimes()
	return sys + user
}
