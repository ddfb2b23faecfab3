package jemalloc

import "testing"

func TestSize(t *testing.T) {
	for _, c := range []struct{ n, want int }{
		{0, 8}, {1, 8}, {8, 8}, {9, 16}, {17, 32}, {33, 48}, {128, 128}, {129, 160},
		{161, 192}, {256, 256}, {257, 320}, {4095, 4096}, {4096, 4096}, {4097, 5120},
		{14336, 14336}, {14337, 16384}, {16385, 20480}, {1 << 20, 1 << 20}, {1<<20 + 1, 1<<20 + 1<<18},
	} {
		if got := Size(c.n); got != c.want {
			t.Errorf("Size(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}
