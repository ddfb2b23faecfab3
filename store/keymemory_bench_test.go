package store

import (
	"runtime"
	"strconv"
	"testing"
)

// BenchmarkKeyMemory measures what 1,000,000 rate-limit counters
// ("rate:ip:<n>" = 1 with a TTL, INCR+EXPIRE) cost the Go heap, against
// what the used-memory accounting charges for them (BENCHMARKS.md, "Memory
// per key"). Run with -benchtime 1x.
func BenchmarkKeyMemory(b *testing.B) {
	const n = 1_000_000
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s := New(16, nil)
		db := s.DB(0)
		key := []byte("rate:ip:")
		for i := range n {
			k := strconv.AppendInt(key[:8], int64(i), 10)
			if _, err := db.IncrBy(k, 1); err != nil {
				b.Fatal(err)
			}
			db.SetExpire(db.Get(k), s.Now()+3600_000)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "heap-B/key")
		b.ReportMetric(float64(s.Used())/n, "accounted-B/key")
		runtime.KeepAlive(s)
	}
}
