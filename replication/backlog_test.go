package replication

import (
	"bytes"
	"testing"
)

// TestBacklogWindow feeds a small backlog chunks of every size around its
// capacity and checks, after each, that what it covers is exactly the
// stream's last bytes and From returns them.
func TestBacklogWindow(t *testing.T) {
	const size = 16
	b := NewBacklog(size, 100)
	var stream []byte
	for i := 0; i < 200; i++ {
		n := i % (2*size + 3)
		chunk := make([]byte, n)
		for j := range chunk {
			chunk[j] = byte(len(stream) + j)
		}
		stream = append(stream, chunk...)
		b.Append(chunk)
		last := int64(100 + len(stream)) // offset of the last byte fed
		held := min(len(stream), size)
		if b.HistLen() != held || b.FirstOffset() != last-int64(held)+1 {
			t.Fatalf("after %d bytes: histlen %d first %d, want %d and %d", len(stream), b.HistLen(), b.FirstOffset(), held, last-int64(held)+1)
		}
		if b.Covers(b.FirstOffset()-1) || !b.Covers(last+1) || b.Covers(last+2) {
			t.Fatalf("after %d bytes: Covers wrong at the edges", len(stream))
		}
		for off := b.FirstOffset(); off <= last+1; off++ {
			want := stream[off-101:]
			if got := b.From(off); !bytes.Equal(got, want) {
				t.Fatalf("From(%d) = %v, want %v", off, got, want)
			}
		}
	}
}

func TestBacklogResize(t *testing.T) {
	b := NewBacklog(8, 0)
	b.Append([]byte("abcdefghij"))
	b.Resize(4)
	if got := string(b.From(b.FirstOffset())); got != "ghij" || b.FirstOffset() != 7 {
		t.Fatalf("shrunk: %q from %d", got, b.FirstOffset())
	}
	b.Resize(10)
	b.Append([]byte("kl"))
	if got := string(b.From(7)); got != "ghijkl" {
		t.Fatalf("grown: %q", got)
	}
}
