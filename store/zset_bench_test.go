package store

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"testing"
)

// The sliding-window log keeps one member per request: "<ms>-<seq>" scored
// <ms>. Each round trims everything older than the window, counts, and adds
// the new request (ZREMRANGEBYSCORE, ZCARD, ZADD). BENCHMARKS.md reports
// these numbers next to Redis's; scripts/zset-memory.sh measures Redis on
// the same data.

const windowEpoch = 1700000000000 // ms

func windowMember(buf []byte, ms int64, seq int) []byte {
	buf = strconv.AppendInt(buf[:0], ms, 10)
	buf = append(buf, '-')
	return strconv.AppendInt(buf, int64(seq), 10)
}

// fillWindow adds size members one millisecond apart, as requests would.
func fillWindow(z *ZSet, size int) {
	var buf []byte
	for i := range size {
		ms := int64(windowEpoch + i)
		buf = windowMember(buf, ms, i)
		z.Add(buf, float64(ms), &DefaultEncodings)
	}
}

// BenchmarkZSetSlidingWindow measures one limiter round on a key holding
// size requests: the window is size ms wide and one request arrives per ms,
// so every round trims one member and adds one.
func BenchmarkZSetSlidingWindow(b *testing.B) {
	for _, size := range []int{10, 100, 10000} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			s := New(1, nil)
			db := s.DB(0)
			key := []byte("rl:client")
			z := NewZSet()
			fillWindow(z, size)
			db.Set(key, z, 0)
			var buf []byte
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				now := int64(windowEpoch + size + i)
				z := db.Get(key).Value().(*ZSet)
				z.RemoveRange(0, z.ScoreBound(float64(now-int64(size)), true))
				if z.Len() != size-1 {
					b.Fatalf("window holds %d", z.Len())
				}
				buf = windowMember(buf, now, size+i)
				z.Add(buf, float64(now), &DefaultEncodings)
			}
		})
	}
}

// BenchmarkZSetRaisedThreshold is the sliding window of 1000 requests with
// zset-max-listpack-entries at its default (a skiplist) and raised to 1024
// (one packed buffer past the count byte's 255: every ZCARD counts the
// entries, every step is a linear pass), as Redis's listpack would be.
func BenchmarkZSetRaisedThreshold(b *testing.B) {
	raised := DefaultEncodings
	raised.ZSetMaxListpackEntries = 1024
	for _, c := range []struct {
		name string
		enc  *Encodings
	}{{"entries=128", &DefaultEncodings}, {"entries=1024", &raised}} {
		b.Run(c.name, func(b *testing.B) {
			const size = 1000
			z := NewZSet()
			var buf []byte
			for i := range size {
				buf = windowMember(buf, int64(windowEpoch+i), i)
				z.Add(buf, float64(windowEpoch+i), c.enc)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				now := int64(windowEpoch + size + i)
				z.RemoveRange(0, z.ScoreBound(float64(now-size), true))
				if z.Len() != size-1 {
					b.Fatalf("window holds %d", z.Len())
				}
				buf = windowMember(buf, now, size+i)
				z.Add(buf, float64(now), c.enc)
			}
			b.ReportMetric(float64(len(z.packed)), "packed-bytes")
		})
	}
}

// BenchmarkZSetMemory reports the heap per member of about 100,000 members
// spread over keys of size members each, keys and keyspace included, as
// Redis's used_memory delta counts them. Run it with -benchtime=1x.
func BenchmarkZSetMemory(b *testing.B) {
	for _, size := range []int{10, 100, 10000} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			keys := max(100000/size, 10)
			for range b.N {
				s := New(1, nil)
				before := heapInUse()
				for k := range keys {
					z := NewZSet()
					fillWindow(z, size)
					s.DB(0).Set([]byte("k"+strconv.Itoa(k)), z, 0)
				}
				after := settledHeap(s)
				b.ReportMetric(float64(after-before)/float64(keys*size), "B/member")
				runtime.KeepAlive(s)
			}
		})
	}
}

// settledHeap is heapInUse once s is at rest: a resize of a key table
// still under way is finished, as the server's cron (ActiveExpire) and
// Redis's do within 100 ms, so the old bucket array is not counted (the
// scripts read Redis's used_memory at rest too, lib.sh's settled).
func settledHeap(s *Store) uint64 {
	for _, db := range s.dbs {
		for db.keys.rehash >= 0 {
			db.keys.rehashSome(cronRehash)
		}
	}
	return heapInUse()
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkZSetScoreAdd is ZSCORE then ZADD of a new score for one member
// of a packed 100-member set: the find, decode and insert paths every
// packed entry takes (BENCHMARKS.md compares it across changes to the
// entry layout).
func BenchmarkZSetScoreAdd(b *testing.B) {
	z := NewZSet()
	fillWindow(z, 100)
	var members [][]byte
	z.Ascend(0, func(m []byte, _ float64) bool { members = append(members, slices.Clone(m)); return true })
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		m := members[i%len(members)]
		s, ok := z.Score(m)
		if !ok {
			b.Fatal("member gone")
		}
		z.Add(m, s+float64(i%3-1), &DefaultEncodings)
	}
}
