package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
)

// TestListModel runs random operations on a List and on a plain slice and
// compares them after every step. Element sizes span the 1-byte/2-byte
// length prefixes and elements bigger than a chunk.
func TestListModel(t *testing.T) {
	t.Parallel() // its own values and generator only
	redistest.SkipUnderRace(t)
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		// Node fills and compress depths vary, so that nodes split, merge
		// and compress (quicklist.go's paths); conformance compares the
		// layouts with Redis's.
		fills := []int64{-2, 2, 5, -1}
		l := (&Encodings{ListMaxListpackSize: fills[seed%4], ListCompressDepth: int64(seed % 5 / 4)}).NewList() // depth 1: seeds 4, 9, ...
		var model [][]byte
		elem := func() []byte {
			n := rng.IntN(40)
			switch rng.IntN(20) {
			case 0:
				n = 100 + rng.IntN(200)
			case 1:
				n = listNodeSafetyLimit + rng.IntN(500)
			}
			if rng.IntN(3) == 0 {
				return []byte(fmt.Sprint(rng.IntN(5))) // repeats, for LREM/LPOS/LINSERT
			}
			return bytes.Repeat([]byte{byte('a' + rng.IntN(26))}, n)
		}
		for step := range 3000 {
			var op string
			switch r := rng.IntN(14); r {
			case 0, 1, 2:
				op = "pushback"
				vals := make([][]byte, 1+rng.IntN(5))
				for i := range vals {
					vals[i] = elem()
				}
				l.PushBack(vals...)
				model = append(model, vals...)
			case 3, 4, 5:
				op = "pushfront"
				vals := make([][]byte, 1+rng.IntN(5))
				for i := range vals {
					vals[i] = elem()
				}
				l.PushFront(vals...)
				for _, v := range vals {
					model = slices.Insert(model, 0, v)
				}
			case 6:
				op = "popfront"
				got := l.PopFront()
				if len(model) == 0 {
					if got != nil {
						t.Fatalf("seed %d step %d: pop of empty: %q", seed, step, got)
					}
				} else {
					if !bytes.Equal(got, model[0]) {
						t.Fatalf("seed %d step %d: popfront %q want %q", seed, step, got, model[0])
					}
					model = model[1:]
				}
			case 7:
				op = "popback"
				got := l.PopBack()
				if len(model) > 0 {
					if !bytes.Equal(got, model[len(model)-1]) {
						t.Fatalf("seed %d step %d: popback %q", seed, step, got)
					}
					model = model[:len(model)-1]
				}
			case 8:
				op = "set"
				if len(model) > 0 {
					i := rng.IntN(len(model))
					v := elem()
					l.Set(i, v)
					model[i] = v
				}
			case 9:
				op = "trim"
				if rng.IntN(4) == 0 && len(model) > 0 {
					a, b := rng.IntN(len(model)), rng.IntN(len(model))
					l.Trim(a, b)
					if a > b {
						model = nil
					} else {
						model = model[a : b+1]
					}
				}
			case 10:
				op = "remove"
				v := []byte(fmt.Sprint(rng.IntN(5)))
				count := rng.IntN(5) - 2
				got := l.Remove(v, count)
				want := removeModel(&model, v, count)
				if got != want {
					t.Fatalf("seed %d step %d: remove %d want %d", seed, step, got, want)
				}
			case 11:
				op = "insert"
				pivot := []byte(fmt.Sprint(rng.IntN(5)))
				v, after := elem(), rng.IntN(2) == 0
				got := l.Insert(pivot, v, after)
				i := slices.IndexFunc(model, func(e []byte) bool { return bytes.Equal(e, pivot) })
				want := -1
				if i >= 0 {
					if after {
						i++
					}
					model = slices.Insert(model, i, v)
					want = len(model)
				}
				if got != want {
					t.Fatalf("seed %d step %d: insert %d want %d", seed, step, got, want)
				}
			case 12:
				op = "pos"
				v := []byte(fmt.Sprint(rng.IntN(5)))
				rank := rng.IntN(5) - 2
				if rank == 0 {
					rank = 1
				}
				count, maxLen := rng.IntN(3), rng.IntN(3)*5
				got := l.Pos(v, rank, count, maxLen)
				want := posModel(model, v, rank, count, maxLen)
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d step %d: pos %v want %v", seed, step, got, want)
				}
			case 13:
				op = "clone"
				l = l.Clone().(*List)
			}
			checkList(t, l, model, fmt.Sprintf("seed %d step %d (%s)", seed, step, op))
			if len(model) > 3000 {
				l.Trim(0, 99)
				model = model[:100]
			}
		}
	}
}

func checkList(t *testing.T, l *List, model [][]byte, where string) {
	t.Helper()
	if l.Len() != len(model) {
		t.Fatalf("%s: len %d want %d", where, l.Len(), len(model))
	}
	var got [][]byte
	l.Range(0, l.Len()-1, func(v []byte) bool { got = append(got, v); return true })
	if len(got) != len(model) {
		t.Fatalf("%s: range gave %d elements, want %d", where, len(got), len(model))
	}
	for i := range model {
		if !bytes.Equal(got[i], model[i]) {
			t.Fatalf("%s: element %d is %q want %q", where, i, got[i], model[i])
		}
	}
	if len(model) > 0 {
		i := len(model) / 3
		if v, ok := l.Index(i); !ok || !bytes.Equal(v, model[i]) {
			t.Fatalf("%s: index %d", where, i)
		}
		if v, ok := l.Index(-1); !ok || !bytes.Equal(v, model[len(model)-1]) {
			t.Fatalf("%s: index -1", where)
		}
	}
	n := 0
	for i, ch := range l.chunks() {
		if ch.n <= 0 {
			t.Fatalf("%s: empty chunk kept", where)
		}
		if ci := l.lo + i; ci == l.lo || ci == l.hi-1 {
			if got, want := l.size(ci), len(nodeListpack(&ch)); got != want {
				t.Fatalf("%s: node %d's size is %d, its listpack has %d bytes", where, i, got, want)
			}
		}
		n += int(ch.n)
	}
	if n != len(model) {
		t.Fatalf("%s: chunk counts sum to %d", where, n)
	}
}

func removeModel(model *[][]byte, v []byte, count int) int {
	m := *model
	removed := 0
	if count < 0 {
		for i := len(m) - 1; i >= 0 && removed < -count; i-- {
			if bytes.Equal(m[i], v) {
				m = slices.Delete(m, i, i+1)
				removed++
			}
		}
	} else {
		for i := 0; i < len(m) && (count == 0 || removed < count); {
			if bytes.Equal(m[i], v) {
				m = slices.Delete(m, i, i+1)
				removed++
				continue
			}
			i++
		}
	}
	*model = m
	return removed
}

func posModel(model [][]byte, v []byte, rank, count, maxLen int) []int {
	var out []int
	skip := 0
	for k := 0; k < len(model); k++ {
		if maxLen > 0 && k >= maxLen {
			break
		}
		i := k
		if rank < 0 {
			i = len(model) - 1 - k
		}
		if bytes.Equal(model[i], v) {
			if skip++; skip >= abs(rank) {
				out = append(out, i)
				if count > 0 && len(out) >= count {
					break
				}
			}
		}
	}
	return out
}

// The list keyspace operations LPUSH and friends and the test double share:
// creation, deletion of an emptied list, WRONGTYPE, and OnReady for a list
// created at a key (a blocked client may now be served).
func TestListOps(t *testing.T) {
	s := New(1, nil)
	db := s.DB(0)
	var ready []string
	s.OnReady = func(_ *DB, key string) { ready = append(ready, key) }
	b := func(vs ...string) [][]byte {
		out := make([][]byte, len(vs))
		for i, v := range vs {
			out[i] = []byte(v)
		}
		return out
	}
	str := func(vs [][]byte) []string {
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = string(v)
		}
		return out
	}
	if n, err := db.LPushX([]byte("l"), b("x")...); n != 0 || err != nil || db.GetString("l") != nil {
		t.Fatalf("LPushX on no list: %d %v", n, err)
	}
	if n, err := db.RPush([]byte("l"), b("b", "c")...); n != 2 || err != nil {
		t.Fatalf("RPush: %d %v", n, err)
	}
	if n, err := db.LPush([]byte("l"), b("a", "z")...); n != 4 || err != nil {
		t.Fatalf("LPush: %d %v", n, err)
	}
	if n, err := db.RPushX([]byte("l"), b("d")...); n != 5 || err != nil {
		t.Fatalf("RPushX: %d %v", n, err)
	}
	if got, err := db.LPop([]byte("l"), 2); err != nil || !slices.Equal(str(got), []string{"z", "a"}) {
		t.Fatalf("LPop 2: %q %v", got, err)
	}
	if v, err := db.LMove([]byte("l"), []byte("m"), false, true); string(v) != "d" || err != nil {
		t.Fatalf("LMove: %q %v", v, err)
	}
	if got, err := db.RPop([]byte("l"), 10); err != nil || !slices.Equal(str(got), []string{"c", "b"}) {
		t.Fatalf("RPop 10: %q %v", got, err)
	}
	if db.GetString("l") != nil {
		t.Fatal("an emptied list was kept")
	}
	if got, err := db.LPop([]byte("l"), 1); got != nil || err != nil {
		t.Fatalf("LPop of no list: %q %v", got, err)
	}
	if v, err := db.LMove([]byte("l"), []byte("m"), true, true); v != nil || err != nil {
		t.Fatalf("LMove from no list: %q %v", v, err)
	}
	db.Set([]byte("s"), NewString([]byte("x")), 0)
	if _, err := db.RPush([]byte("s"), b("x")...); err != ErrWrongType {
		t.Fatalf("RPush onto a string: %v", err)
	}
	if _, err := db.LMove([]byte("m"), []byte("s"), true, true); err != ErrWrongType {
		t.Fatalf("LMove onto a string: %v", err)
	}
	if l, _ := ValueAt[*List](db, []byte("m")); l == nil || l.Len() != 1 {
		t.Fatal("a refused LMove moved an element")
	}
	if !slices.Equal(ready, []string{"l", "m"}) {
		t.Fatalf("OnReady for %q, want l and m", ready)
	}
}
