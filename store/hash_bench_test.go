package store

import (
	"fmt"
	"testing"
)

// BenchmarkHashOps times HSET (update), HGET and HINCRBY on a hash of size
// fields, in each encoding: a rate limiter's counters per client.
func BenchmarkHashOps(b *testing.B) {
	for _, size := range []int{10, 100, 10000} {
		h := NewHash()
		names := make([][]byte, size)
		for i := range names {
			names[i] = fmt.Appendf(nil, "10.0.%d.%d", i/256, i%256)
			h.Set(names[i], []byte("1700000000000"), &DefaultEncodings)
		}
		b.Run(fmt.Sprintf("HSET/size=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			for i := range b.N {
				h.Set(names[i%size], []byte("1700000000001"), &DefaultEncodings)
			}
		})
		b.Run(fmt.Sprintf("HGET/size=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			for i := range b.N {
				h.Get(names[i%size])
			}
		})
		b.Run(fmt.Sprintf("HGETview/size=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			var scratch [20]byte
			for i := range b.N {
				h.View(names[i%size], &scratch) // what the HGET command uses
			}
		})
		b.Run(fmt.Sprintf("HINCRBY/size=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			for i := range b.N {
				h.IncrBy(names[i%size], 1, &DefaultEncodings)
			}
		})
	}
}
