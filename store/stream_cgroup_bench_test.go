package store

import (
	"strconv"
	"testing"
)

// BenchmarkPEL: XREADGROUP's appends to a PEL of n entries and XACK's
// deletes of its oldest, the usual order (a consumer acknowledges what it
// read first). A sorted slice pays a move of the whole PEL per ack; the
// B-tree O(log n). Each op is one append and one ack, the PEL staying at n.
func BenchmarkPEL(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			var p PEL
			for i := range n {
				p.Set(StreamID{Ms: uint64(i)}, &StreamNACK{})
			}
			b.ResetTimer()
			for i := range b.N {
				p.Set(StreamID{Ms: uint64(n + i)}, &StreamNACK{})
				p.Delete(StreamID{Ms: uint64(i)})
			}
			if p.Len() != n {
				b.Fatalf("PEL of %d", p.Len())
			}
		})
	}
}
