package metrics

import (
	"io"
	"net/http/httptest"
	"testing"
)

// BenchmarkScrape is one /metrics request over a snapshot of a server that
// has run the redis-benchmark commands and CL.THROTTLE over 1,024 key
// prefixes (testdata/info_all.txt is its INFO all): what a scrape costs the
// server's process besides the snapshot.
//
//	go test -run '^$' -bench Scrape -benchmem ./metrics/
func BenchmarkScrape(b *testing.B) {
	h := Handler(&fakeSource{snap: benchSnapshot(b), ok: true})
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
