package store

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// zmodel is the obviously correct sorted set the tests compare ZSet with.
type zmodel map[string]float64

func (m zmodel) sorted() []zitem {
	items := make([]zitem, 0, len(m))
	for k, s := range m {
		items = append(items, zitem{member: k, score: s})
	}
	slices.SortFunc(items, func(a, b zitem) int {
		if a.less(&b) {
			return -1
		}
		if b.less(&a) {
			return 1
		}
		return 0
	})
	return items
}

func checkZSet(t *testing.T, z *ZSet, m zmodel) {
	t.Helper()
	want := m.sorted()
	if z.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", z.Len(), len(want))
	}
	var got []zitem
	z.Ascend(0, func(member []byte, s float64) bool {
		got = append(got, zitem{member: string(member), score: s})
		return true
	})
	if !slices.Equal(got, want) {
		t.Fatalf("order:\n got %v\nwant %v", got, want)
	}
	var rev []zitem
	z.Descend(z.Len()-1, func(member []byte, s float64) bool {
		rev = append(rev, zitem{member: string(member), score: s})
		return true
	})
	slices.Reverse(rev)
	if !slices.Equal(rev, want) {
		t.Fatalf("descend:\n got %v\nwant %v", rev, want)
	}
	for i, it := range want {
		if r, ok := z.Rank([]byte(it.member)); !ok || r != i {
			t.Fatalf("Rank(%q) = %d %v, want %d", it.member, r, ok, i)
		}
		if s, ok := z.Score([]byte(it.member)); !ok || s != it.score {
			t.Fatalf("Score(%q) = %v %v, want %v", it.member, s, ok, it.score)
		}
		if mem, s := z.At(i); string(mem) != it.member || s != it.score {
			t.Fatalf("At(%d) = %q %v, want %v", i, mem, s, it)
		}
	}
	if t := z.big; t != nil && t.tree.len() != len(t.scores) {
		panic(fmt.Sprintf("tree has %d items, map %d", t.tree.len(), len(t.scores)))
	}
}

func TestZSetAgainstModel(t *testing.T) {
	t.Parallel()
	// Raised thresholds keep large sets packed: counts past the count
	// byte's 255, members past the header's 64 bytes.
	raised := DefaultEncodings
	raised.ZSetMaxListpackEntries, raised.ZSetMaxListpackValue = 1200, 300
	for _, c := range []struct {
		size int
		enc  *Encodings
	}{{5, &DefaultEncodings}, {100, &DefaultEncodings}, {128, &DefaultEncodings}, {129, &DefaultEncodings},
		{300, &DefaultEncodings}, {5000, &DefaultEncodings}, {300, &raised}, {1500, &raised}} {
		size := c.size
		t.Run(fmt.Sprint(size, c.enc.ZSetMaxListpackEntries), func(t *testing.T) {
			t.Parallel() // each size has its own set, model and generator
			rng := rand.New(rand.NewPCG(uint64(size), 1))
			z, m := NewZSet(), zmodel{}
			lengths := []int{0, 1, 7, 59} // up to 64 bytes: no length after the header
			if c.enc == &raised {
				lengths = []int{0, 1, 7, 59, 60, 61, 200, 290}
			}
			member := func() string {
				return fmt.Sprintf("m%d", rng.IntN(size)) + strings.Repeat("x", lengths[rng.IntN(len(lengths))])
			}
			// items is m in order, kept up to date step by step: sorting m
			// for every range and bound step was 80% of the test's time
			// (100 s of a loaded machine under the race detector).
			var items []zitem
			at := func(it zitem) (int, bool) {
				return slices.BinarySearchFunc(items, it, func(a, b zitem) int {
					switch {
					case a.less(&b):
						return -1
					case b.less(&a):
						return 1
					}
					return 0
				})
			}
			set := func(k string, s float64) {
				if old, ok := m[k]; ok {
					i, _ := at(zitem{member: k, score: old})
					items = slices.Delete(items, i, i+1)
				}
				i, _ := at(zitem{member: k, score: s})
				items = slices.Insert(items, i, zitem{member: k, score: s})
				m[k] = s
			}
			remove := func(k string) {
				if old, ok := m[k]; ok {
					i, _ := at(zitem{member: k, score: old})
					items = slices.Delete(items, i, i+1)
					delete(m, k)
				}
			}
			for step := 0; step < 4*size+200; step++ {
				switch op := rng.IntN(10); {
				case op < 6:
					k, s := member(), score(rng, size)
					_, existed := m[k]
					if added := z.Add([]byte(k), s, c.enc); added == existed {
						t.Fatalf("Add(%q) = %v, existed %v", k, added, existed)
					}
					set(k, s)
				case op < 8:
					k := member()
					_, existed := m[k]
					if z.Remove([]byte(k)) != existed {
						t.Fatalf("Remove(%q) disagrees", k)
					}
					remove(k)
				case op < 9 && len(m) > 0:
					lo := rng.IntN(len(m))
					hi := lo + rng.IntN(5)
					if n := z.RemoveRange(lo, hi); n != min(hi, len(items))-lo {
						t.Fatalf("RemoveRange(%d,%d) = %d", lo, hi, n)
					}
					for _, it := range slices.Clone(items[lo:min(hi, len(items))]) {
						remove(it.member)
					}
				default:
					s := score(rng, size)
					for _, incl := range []bool{false, true} {
						want := 0
						for want < len(items) && (items[want].score < s || incl && items[want].score == s) {
							want++
						}
						if got := z.ScoreBound(s, incl); got != want {
							t.Fatalf("ScoreBound(%v,%v) = %d, want %d", s, incl, got, want)
						}
					}
				}
			}
			if !slices.Equal(items, m.sorted()) {
				t.Fatal("the model's order drifted from its map")
			}
			checkZSet(t, z, m)
			wantEnc := "listpack"
			if z.big != nil {
				wantEnc = "skiplist"
			}
			if z.Encoding() != wantEnc {
				t.Fatal("encoding")
			}
			if len(m) > 255 && z.big == nil && z.packed[0] != packedCountMax {
				t.Fatalf("%d members, count byte %d", len(m), z.packed[0])
			}
			clone := z.Clone().(*ZSet)
			z.RemoveRange(0, z.Len())
			checkZSet(t, clone, m)
			checkZSet(t, z, zmodel{})
			// Packed again, the same members in the same order.
			clone.Unpack()
			clone.PackIfFits(&Loose)
			if clone.Encoding() != "listpack" {
				t.Fatal("PackIfFits did not pack")
			}
			checkZSet(t, clone, m)
		})
	}
}

func TestZSetPackIfFits(t *testing.T) {
	enc := DefaultEncodings
	enc.ZSetMaxListpackEntries, enc.ZSetMaxListpackValue = 2, 3
	z := NewZSet()
	z.Unpack()
	z.Add([]byte("abc"), negZero(), &enc)
	z.Add([]byte("d"), 2, &enc)
	z.Add([]byte("e"), 3, &enc)
	z.PackIfFits(&enc) // 3 members: too many
	if z.Encoding() != "skiplist" {
		t.Fatal("packed 3 members")
	}
	z.Remove([]byte("e"))
	z.PackIfFits(&enc)
	if z.Encoding() != "listpack" {
		t.Fatal("did not pack 2 members")
	}
	if s, _ := z.Score([]byte("abc")); math.Signbit(s) {
		t.Error("-0 kept in the packed form")
	}
	z.Unpack()
	z.Add([]byte("abcd"), 1, &Loose)
	z.Remove([]byte("d"))
	z.PackIfFits(&enc) // a 4-byte member: too long
	if z.Encoding() != "skiplist" {
		t.Fatal("packed a member past the value threshold")
	}
}

// score draws from integral scores (the packed form's varint encoding),
// fractions, huge and infinite values, so ties and both encodings occur.
func score(rng *rand.Rand, size int) float64 {
	switch rng.IntN(6) {
	case 0:
		return float64(rng.IntN(size/2+1)) + 0.5
	case 1:
		return []float64{math.Inf(1), math.Inf(-1), 1 << 53, -(1 << 53), 1e300, 1700000000000, -1}[rng.IntN(7)]
	}
	return float64(rng.IntN(size/2+1) - size/4)
}

func TestZSetEncodingThresholds(t *testing.T) {
	z := NewZSet()
	for i := range int(DefaultEncodings.ZSetMaxListpackEntries) {
		z.Add([]byte(fmt.Sprint(i)), float64(i), &DefaultEncodings)
	}
	if z.Encoding() != "listpack" {
		t.Fatalf("%d members: %s", z.Len(), z.Encoding())
	}
	z.Add([]byte("0"), 5, &DefaultEncodings) // an update never converts
	if z.Encoding() != "listpack" {
		t.Fatal("update converted")
	}
	z.Add([]byte("new"), 1, &DefaultEncodings)
	if z.Encoding() != "skiplist" {
		t.Fatalf("%d members: %s", z.Len(), z.Encoding())
	}
	z.RemoveRange(0, z.Len()-1)
	if z.Encoding() != "skiplist" { // Redis never converts back on removal
		t.Fatal("converted back")
	}

	z = NewZSet()
	z.Add([]byte(strings.Repeat("x", int(DefaultEncodings.ZSetMaxListpackValue))), 1, &DefaultEncodings)
	if z.Encoding() != "listpack" {
		t.Fatal("64-byte member converted")
	}
	z.Add([]byte(strings.Repeat("x", int(DefaultEncodings.ZSetMaxListpackValue)+1)), 1, &DefaultEncodings)
	if z.Encoding() != "skiplist" {
		t.Fatal("65-byte member did not convert")
	}
}

func TestZSetNegativeZero(t *testing.T) {
	z := NewZSet()
	z.Add([]byte("a"), negZero(), &DefaultEncodings)
	if s, _ := z.Score([]byte("a")); s != 0 || 1/s < 0 {
		t.Fatalf("score %v is negative zero", s)
	}
}

func negZero() float64 { z := 0.0; return -z }

// TestZTreeSlidingWindow drives the large form the way a limiter does:
// append at the top, trim from the bottom, and checks that leaves stay full.
func TestZTreeSlidingWindow(t *testing.T) {
	t.Parallel() // its own values and generator only
	z, m := NewZSet(), zmodel{}
	for now := 0; now < 30000; now++ {
		k := fmt.Sprintf("%d-%d", now, now%7)
		z.Add([]byte(k), float64(now), &DefaultEncodings)
		m[k] = float64(now)
		if now >= 10000 {
			n := z.RemoveRange(0, z.ScoreBound(float64(now-10000), true))
			if n != 1 {
				t.Fatalf("trimmed %d", n)
			}
			delete(m, fmt.Sprintf("%d-%d", now-10000, (now-10000)%7))
		}
	}
	checkZSet(t, z, m)
	leaves, items := 0, 0
	var walk func(n *znode)
	walk = func(n *znode) {
		if n.leaf() {
			leaves++
			items += len(n.items)
			return
		}
		sum := 0
		for _, c := range n.children {
			sum += c.size
			walk(c)
		}
		if sum != n.size {
			t.Fatalf("size %d, children sum %d", n.size, sum)
		}
	}
	walk(z.big.tree.root)
	if fill := float64(items) / float64(leaves*zleafMax); fill < 0.9 {
		t.Fatalf("leaves %.0f%% full", fill*100)
	}
}

func TestZSetLexBound(t *testing.T) {
	for _, n := range []int{10, 500} {
		z := NewZSet()
		for i := range n {
			z.Add([]byte(fmt.Sprintf("%04d", i)), 0, &DefaultEncodings)
		}
		if got := z.LexBound([]byte("0005"), false); got != 5 {
			t.Fatalf("n=%d: LexBound(0005, excl) = %d", n, got)
		}
		if got := z.LexBound([]byte("0005"), true); got != 6 {
			t.Fatalf("n=%d: LexBound(0005, incl) = %d", n, got)
		}
		if got := z.LexBound([]byte("0005a"), true); got != 6 {
			t.Fatalf("n=%d: LexBound(0005a) = %d", n, got)
		}
	}
}

// A large set trimmed to a fraction of its peak rebuilds its map, so a
// burst does not pin memory, and keeps every remaining member.
func TestZSetMapShrinksAfterTrim(t *testing.T) {
	z, m := NewZSet(), zmodel{}
	for i := range 5000 {
		k := fmt.Sprint("m", i)
		z.Add([]byte(k), float64(i), &DefaultEncodings)
		m[k] = float64(i)
	}
	z.RemoveRange(0, 4900)
	for i := range 4900 {
		delete(m, fmt.Sprint("m", i))
	}
	if z.big.peak > 1000 {
		t.Fatalf("map not rebuilt: peak %d with %d members", z.big.peak, len(z.big.scores))
	}
	checkZSet(t, z, m)
}

// TestZSetScoreText checks that a loaded entry's score text stays exactly
// while the entry does, as the text inside Redis's listpack entry: kept by
// writes to other members and by an update to the same score, dropped by a
// new score, removal and conversion; copied by Clone.
func TestZSetScoreText(t *testing.T) {
	long := strings.Repeat("l", 100) // a long member: the text header's path
	enc := &Encodings{ZSetMaxListpackEntries: 128, ZSetMaxListpackValue: 1000}
	cases := []struct {
		name string
		op   func(z *ZSet) *ZSet
		kept bool
	}{
		{"none", func(z *ZSet) *ZSet { return z }, true},
		{"add other", func(z *ZSet) *ZSet { z.Add([]byte("a"), -1, enc); z.Add([]byte("o"), 9, enc); return z }, true},
		{"same score", func(z *ZSet) *ZSet { z.Add([]byte("m"), 0, enc); z.Add([]byte("m"), negZero(), enc); return z }, true},
		{"new score and back", func(z *ZSet) *ZSet { z.Add([]byte("m"), 1, enc); z.Add([]byte("m"), 0, enc); return z }, false},
		{"remove other", func(z *ZSet) *ZSet { z.Remove([]byte("n")); return z }, true},
		{"remove", func(z *ZSet) *ZSet { z.Remove([]byte("m")); z.Add([]byte("m"), 0, enc); return z }, false},
		{"remove range other", func(z *ZSet) *ZSet { z.RemoveRange(2, 3); return z }, true},
		{"remove range", func(z *ZSet) *ZSet { z.RemoveRange(0, 2); z.Add([]byte("m"), 0, enc); return z }, false},
		{"clone", func(z *ZSet) *ZSet { c := z.Clone().(*ZSet); z.Remove([]byte("m")); return c }, true},
		{"convert", func(z *ZSet) *ZSet { z.Unpack(); z.Remove([]byte("n")); z.PackIfFits(enc); return z }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			z := NewZSet()
			z.AddLoaded([]byte("n"), 2, ScoreText{})
			z.AddLoaded([]byte("m"), 0, ScoreText{Text: []byte("x")})
			z.AddLoaded([]byte(long), negZero(), ScoreText{Text: []byte("-0")})
			if z.AddLoaded([]byte("m"), 5, ScoreText{Text: []byte("5"), Int: true}) {
				t.Fatal("AddLoaded added a member twice")
			}
			z = tc.op(z)
			texts := map[string]string{}
			var members []string
			z.AscendText(func(m []byte, s float64, text ScoreText, ok bool) bool {
				members = append(members, fmt.Sprintf("%.10s=%v", m, s))
				if ok {
					texts[string(m)] = string(text.Text)
				}
				return true
			})
			if got, _ := z.Score([]byte("m")); got != 0 {
				t.Fatalf("m scores %v; members %v", got, members)
			}
			if _, kept := texts["m"]; kept != tc.kept || kept && texts["m"] != "x" {
				t.Fatalf("texts %q, want m's kept %v; members %v", texts, tc.kept, members)
			}
			// Redis reads "-0" back as -0, and writes -0 as the integer 0.
			if s, ok := z.Score([]byte(long)); ok && math.Signbit(s) != (texts[long] == "-0") {
				t.Fatalf("the long member scores %v, texts %q", s, texts)
			}
			if rank, ok := z.Rank([]byte("n")); ok && rank != z.Len()-1 && tc.name != "add other" {
				t.Fatalf("n at rank %d of %d: %v", rank, z.Len(), members)
			}
		})
	}
}
