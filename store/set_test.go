package store

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

func TestSetIntsetOrderAndConversion(t *testing.T) {
	tests := []struct {
		add      []string
		encoding string
		members  string // sorted for a hashtable
	}{
		{[]string{"3", "1", "2", "-5", "1"}, "intset", "-5 1 2 3"},
		{[]string{"9223372036854775807", "-9223372036854775808", "0"}, "intset", "-9223372036854775808 0 9223372036854775807"},
		{[]string{"1", "01"}, "hashtable", "01 1"},
		{[]string{"1", "-0"}, "hashtable", "-0 1"},
		{[]string{"1", "1.0"}, "hashtable", "1 1.0"},
		{[]string{"a", "1"}, "hashtable", "1 a"},
	}
	for _, tt := range tests {
		s := NewSet()
		for _, m := range tt.add {
			s.Add([]byte(m), &DefaultEncodings)
		}
		got := s.Members()
		if s.Encoding() == "hashtable" {
			slices.Sort(got)
		}
		if s.Encoding() != tt.encoding || strings.Join(got, " ") != tt.members {
			t.Errorf("SADD %v: %s %v, want %s %s", tt.add, s.Encoding(), got, tt.encoding, tt.members)
		}
	}
}

func TestSetIntsetLimit(t *testing.T) {
	s := NewSet()
	for i := range int(DefaultEncodings.SetMaxIntsetEntries) {
		s.Add(fmt.Appendf(nil, "%d", i), &DefaultEncodings)
	}
	if s.Encoding() != "intset" {
		t.Fatalf("%d integers: %s", int(DefaultEncodings.SetMaxIntsetEntries), s.Encoding())
	}
	s.Add([]byte("100000"), &DefaultEncodings)
	if s.Encoding() != "hashtable" || s.Len() != int(DefaultEncodings.SetMaxIntsetEntries)+1 || !s.Has([]byte("7")) {
		t.Fatalf("past the limit: %s, %d members", s.Encoding(), s.Len())
	}
}

func TestSetAddRemoveHas(t *testing.T) {
	for _, members := range [][]string{{"1", "2", "3"}, {"a", "b", "c"}} {
		s := NewSet()
		for _, m := range members {
			if !s.Add([]byte(m), &DefaultEncodings) {
				t.Fatalf("%s not new", m)
			}
		}
		if s.Add([]byte(members[0]), &DefaultEncodings) {
			t.Fatal("re-adding reported new")
		}
		if !s.Has([]byte(members[1])) || s.Has([]byte("zz")) || s.Has([]byte("01")) {
			t.Fatal("Has wrong")
		}
		if !s.Remove([]byte(members[1])) || s.Remove([]byte(members[1])) || s.Remove([]byte("01")) {
			t.Fatal("Remove wrong")
		}
		if s.Len() != 2 || s.Has([]byte(members[1])) {
			t.Fatalf("after remove: %v", s.Members())
		}
		c := s.Clone().(*Set)
		c.Add([]byte("new"), &DefaultEncodings)
		if s.Has([]byte("new")) {
			t.Fatal("clone shares storage")
		}
	}
}

// TestSetModel checks both encodings against a map under random adds,
// removes and pops, and the intset's widening from 2 to 4 to 8 bytes.
func TestSetModel(t *testing.T) {
	for _, universe := range []int{100, 600, 5000} {
		rng := rand.New(rand.NewPCG(uint64(universe), 1))
		s, model := NewSet(), map[string]bool{}
		member := func() []byte {
			n := rng.IntN(universe)
			switch rng.IntN(4) {
			case 0:
				return fmt.Appendf(nil, "%d", n*100000) // 4-byte ints
			case 1:
				return fmt.Appendf(nil, "%d", int64(n)<<40) // 8-byte ints
			case 2:
				if universe > 100 {
					return fmt.Appendf(nil, "m%d", n)
				}
			}
			return fmt.Appendf(nil, "%d", n-50)
		}
		for step := range 20000 {
			m := member()
			switch rng.IntN(5) {
			case 0, 1, 2:
				if s.Add(m, &DefaultEncodings) == model[string(m)] {
					t.Fatalf("step %d: Add(%s) disagrees", step, m)
				}
				model[string(m)] = true
			case 3:
				if s.Remove(m) != model[string(m)] {
					t.Fatalf("step %d: Remove(%s) disagrees", step, m)
				}
				delete(model, string(m))
			default:
				if s.Len() > 0 {
					p := s.Pop(testRand)
					if !model[p] {
						t.Fatalf("step %d: Pop gave %s, not a member", step, p)
					}
					delete(model, p)
				}
			}
			if s.Len() != len(model) {
				t.Fatalf("step %d: Len %d, want %d", step, s.Len(), len(model))
			}
		}
		got := s.Members()
		if s.Encoding() == "intset" && !slices.IsSortedFunc(got, func(a, b string) int {
			x, _ := strconv.ParseInt(a, 10, 64)
			y, _ := strconv.ParseInt(b, 10, 64)
			return cmp.Compare(x, y)
		}) {
			t.Fatalf("intset not in numeric order: %v", got)
		}
		for _, m := range got {
			if !model[m] || !s.Has([]byte(m)) {
				t.Fatalf("member %s: model %v", m, model[m])
			}
		}
	}
}

// TestSetScanGuarantee: a member present for a whole SSCAN is returned,
// whatever is removed and added between the calls.
func TestSetScanGuarantee(t *testing.T) {
	s := NewSet()
	for i := range 2000 {
		s.Add(fmt.Appendf(nil, "m%d", i), &DefaultEncodings)
	}
	seen := map[string]bool{}
	cursor := uint64(0)
	i := 0
	for {
		cursor = s.Scan(cursor, 7, func(m string) { seen[m] = true })
		s.Remove(fmt.Appendf(nil, "m%d", 1000+i%1000)) // only members >= 1000 churn
		s.Add(fmt.Appendf(nil, "n%d", i), &DefaultEncodings)
		i++
		if cursor == 0 {
			break
		}
	}
	for i := range 1000 {
		if !seen[fmt.Sprintf("m%d", i)] {
			t.Fatalf("m%d missed", i)
		}
	}
}

func TestSetRandom(t *testing.T) {
	s := NewSet()
	for i := range 1000 {
		s.Add(fmt.Appendf(nil, "m%d", i), &DefaultEncodings)
	}
	got := s.Random(testRand, 10, true)
	if len(got) != 10 || len(slices.Compact(slices.Sorted(slices.Values(got)))) != 10 {
		t.Fatalf("distinct Random: %v", got)
	}
	if got := s.Random(testRand, 5000, true); len(got) != 1000 {
		t.Fatalf("Random past Len: %d", len(got))
	}
	if got := s.Random(testRand, 5000, false); len(got) != 5000 {
		t.Fatalf("Random with repeats: %d", len(got))
	}
}

// TestIntsetWidths: members stay in numeric order across each widening,
// at the boundaries of the 2- and 4-byte widths.
func TestIntsetWidths(t *testing.T) {
	add := []int64{5, -32768, 32767, 32768, -32769, 2147483647, -2147483648, 2147483648, -2147483649,
		9223372036854775807, -9223372036854775808, 0}
	s := NewSet()
	for i, n := range add {
		s.Add(strconv.AppendInt(nil, n, 10), &DefaultEncodings)
		want := slices.Clone(add[:i+1])
		slices.Sort(want)
		var got []int64
		for _, m := range s.Members() {
			v, _ := strconv.ParseInt(m, 10, 64)
			got = append(got, v)
		}
		if !slices.Equal(got, want) || s.Encoding() != "intset" {
			t.Fatalf("after %d: %v (%s), want %v", n, got, s.Encoding(), want)
		}
	}
	for _, n := range add {
		if !s.Remove(strconv.AppendInt(nil, n, 10)) {
			t.Fatalf("Remove(%d) = false", n)
		}
	}
	if s.Len() != 0 {
		t.Fatalf("Len after removing all = %d", s.Len())
	}
}

func TestSetRebuild(t *testing.T) {
	enc := DefaultEncodings
	enc.SetMaxIntsetEntries = 3
	s := NewSet()
	for _, m := range []string{"5", "1", "3", "4"} {
		s.Add([]byte(m), &enc)
	}
	if s.Encoding() != "hashtable" {
		t.Fatal("4 integers kept an intset")
	}
	s.Rebuild(&enc) // 4 members: still too many
	if s.Encoding() != "hashtable" {
		t.Fatal("rebuilt past the threshold")
	}
	s.Remove([]byte("4"))
	s.Rebuild(&enc)
	if s.Encoding() != "intset" || strings.Join(s.Members(), " ") != "1 3 5" {
		t.Fatalf("rebuilt: %s %v", s.Encoding(), s.Members())
	}
	s.Add([]byte("100000"), &Loose)
	s.Remove([]byte("100000"))
	if s.IntsetWidth() != 4 {
		t.Fatalf("width %d", s.IntsetWidth())
	}
	s.Rebuild(&enc) // the narrowest width again
	if s.IntsetWidth() != 2 {
		t.Fatalf("rebuilt width %d", s.IntsetWidth())
	}
	s.Add([]byte("x"), &enc)
	s.Remove([]byte("x"))
	s.Rebuild(&DefaultEncodings)
	if s.Encoding() != "intset" {
		t.Fatal("integers only: not an intset")
	}
	s.Add([]byte("x"), &enc)
	s.Rebuild(&DefaultEncodings)
	if s.Encoding() != "hashtable" {
		t.Fatal("a string member in an intset")
	}
}

// TestSetLayout pins what a small set costs: an 8-byte Set and an intset
// block of exactly its size class (10 four-byte members and the 5-byte
// header: 45 bytes, so 48), grown and shrunk through each class in place
// or by a move, and an empty set holding nothing.
func TestSetLayout(t *testing.T) {
	if size := unsafe.Sizeof(Set{}); size != 8 {
		t.Fatalf("Set is %d bytes, want 8", size)
	}
	s := NewSet()
	for i := range 10 {
		s.Add(strconv.AppendInt(nil, int64(1000000+7*i), 10), &DefaultEncodings)
		if is := s.ints(); len(is) != intsetHeader+4*(i+1) || is.len() != i+1 || is.width() != 4 {
			t.Fatalf("after %d adds: %d bytes, %d members of width %d", i+1, len(is), is.len(), is.width())
		}
	}
	if got := s.MemSize(); got != 8+48 {
		t.Fatalf("MemSize = %d, want 56", got)
	}
	for s.Len() > 0 {
		s.Pop(testRand)
	}
	if s.p != nil || s.MemSize() != 8 || s.Encoding() != "intset" {
		t.Fatalf("drained: %p, MemSize %d, %s", s.p, s.MemSize(), s.Encoding())
	}
	if c := s.Clone().(*Set); c.p != nil || c.Len() != 0 {
		t.Fatal("a clone of an empty set holds a block")
	}
}

// TestIntsetGrowAndShrink takes an intset through every size class and
// past 32 KB (6,000 eight-byte members, as a raised set-max-intset-entries
// allows), in place or moved at each class boundary, then back down to
// empty, checking its members against a sorted model throughout.
func TestIntsetGrowAndShrink(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	s := NewSet()
	var model []int64
	check := func(step string) {
		t.Helper()
		is := s.ints()
		if s.Encoding() != "intset" || is.len() != len(model) || len(is) != intsetHeader*min(len(model), 1)+len(model)*is.width() {
			t.Fatalf("%s: %s of %d members in %d bytes, want %d members", step, s.Encoding(), is.len(), len(is), len(model))
		}
		for i, n := range model {
			if is.at(i) != n {
				t.Fatalf("%s: member %d is %d, want %d", step, i, is.at(i), n)
			}
		}
	}
	for len(model) < 6000 {
		n := rng.Int64N(1<<20) - 1<<19
		if len(model) > 3000 {
			n <<= 40 // widen to 8 bytes halfway
		}
		i, found := slices.BinarySearch(model, n)
		if s.Add(strconv.AppendInt(nil, n, 10), &Loose) == found {
			t.Fatalf("Add(%d) disagrees", n)
		}
		if !found {
			model = slices.Insert(model, i, n)
		}
		if len(model)%500 == 0 {
			check(fmt.Sprint("growing, ", len(model)))
		}
	}
	for len(model) > 0 {
		i := rng.IntN(len(model))
		if !s.Remove(strconv.AppendInt(nil, model[i], 10)) {
			t.Fatalf("Remove(%d) = false", model[i])
		}
		model = slices.Delete(model, i, i+1)
		if len(model)%500 == 0 {
			check(fmt.Sprint("shrinking, ", len(model)))
		}
	}
	if s.p != nil {
		t.Fatal("an emptied intset keeps its block")
	}
}

// TestSetAddSet checks AddSet against adding src's members one by one: the
// same members and encoding, for every pairing of an empty, intset and
// hashtable destination with each kind of source, and a result that stays
// its own set when the source was copied whole.
func TestSetAddSet(t *testing.T) {
	enc := &DefaultEncodings
	build := func(members ...string) *Set {
		s := NewSet()
		for _, m := range members {
			s.Add([]byte(m), enc)
		}
		return s
	}
	ints := func(from, to int) []string {
		var ms []string
		for i := from; i < to; i++ {
			ms = append(ms, strconv.Itoa(i))
		}
		return ms
	}
	bigInts := build(ints(0, 600)...)
	smallTable := build(ints(0, 600)...)
	for i := 0; i < 300; i++ {
		smallTable.Remove([]byte(strconv.Itoa(i)))
	}
	sets := map[string]func() *Set{
		"empty":       func() *Set { return NewSet() },
		"intset":      func() *Set { return build("5", "-3", "700") },
		"strings":     func() *Set { return build("a", "b", "5") },
		"big ints":    func() *Set { return bigInts.Clone().(*Set) },
		"small table": func() *Set { return smallTable.Clone().(*Set) },
		"big strings": func() *Set { return build(append(ints(100, 700), "x")...) },
	}
	for dstName, dst := range sets {
		for srcName, src := range sets {
			got, want, s := dst(), dst(), src()
			got.AddSet(s, enc)
			for _, m := range s.Members() {
				want.Add([]byte(m), enc)
			}
			gotMembers, wantMembers := got.Members(), want.Members()
			slices.Sort(gotMembers)
			slices.Sort(wantMembers)
			if !slices.Equal(gotMembers, wantMembers) || got.Encoding() != want.Encoding() {
				t.Errorf("%s.AddSet(%s): %d members, %s; one by one: %d, %s", dstName, srcName,
					len(gotMembers), got.Encoding(), len(wantMembers), want.Encoding())
			}
			got.Add([]byte("new"), enc)
			if s.Has([]byte("new")) {
				t.Errorf("%s.AddSet(%s): adding to the result added to the source", dstName, srcName)
			}
		}
	}
}
