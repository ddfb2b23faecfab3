package store

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// testRand is the generator the store's unit tests pass to Random and Pop;
// randomly seeded, as a server's, since no test may depend on one pick.
var testRand = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))

// TestStoreSeed checks that Seed makes the store's generator repeat: the
// same picks after reseeding, and alike for two stores seeded alike.
func TestStoreSeed(t *testing.T) {
	draw := func(s *Store) []int {
		out := make([]int, 20)
		for i := range out {
			out[i] = s.Rand().IntN(1 << 30)
		}
		return out
	}
	a, b := New(1, RealClock{}), New(1, RealClock{})
	a.Seed(42)
	b.Seed(42)
	first := draw(a)
	if got := draw(b); !slices.Equal(got, first) {
		t.Fatalf("stores seeded alike drew %v and %v", first, got)
	}
	a.Seed(42)
	if got := draw(a); !slices.Equal(got, first) {
		t.Fatalf("after reseeding drew %v, first time %v", got, first)
	}
	a.Seed(43)
	if got := draw(a); slices.Equal(got, first) {
		t.Fatalf("seeds 42 and 43 drew the same %v", got)
	}
}
