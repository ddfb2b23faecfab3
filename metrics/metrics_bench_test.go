package metrics

import (
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"testing"
)

// BenchmarkScrape is one /metrics request over a snapshot of a server that
// has run the redis-benchmark commands and CL.THROTTLE over 1,024 key
// prefixes (testdata/info_all.txt is its INFO all): what a scrape costs the
// server's process besides the snapshot.
//
//	go test -run '^$' -bench Scrape -benchmem ./metrics/
func BenchmarkScrape(b *testing.B) {
	info, err := os.ReadFile("testdata/info_all.txt")
	if err != nil {
		b.Fatal(err)
	}
	snap := Snapshot{Info: string(info), Config: map[string]string{"databases": "16", "maxclients": "10000", "maxmemory": "0", "io-threads": "1"},
		Limiter: Limiter{Prefixes: 1024, PrefixesMax: 1024}, Evicted: map[string]int64{"noeviction": 0}}
	for i := range 1024 {
		snap.Limiter.Decisions = append(snap.Limiter.Decisions, LimiterDecisions{Command: "cl.throttle", Prefix: fmt.Sprintf("tenant%d", i), Allowed: 5, Limited: 1})
	}
	for _, c := range []string{"cl.throttle", "gcra", "increx"} {
		snap.Limiter.Untracked = append(snap.Limiter.Untracked, LimiterDecisions{Command: c})
	}
	h := Handler(&fakeSource{snap: snap, ok: true})
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		io.Copy(io.Discard, rec.Body)
	}
}

// BenchmarkScrapeProcessOnly is a scrape of an empty snapshot: the Go
// runtime's and the process's metrics, and the HTTP round.
func BenchmarkScrapeProcessOnly(b *testing.B) {
	h := Handler(&fakeSource{ok: true})
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	}
}
