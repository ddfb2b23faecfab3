package store

import (
	"runtime"
	"strconv"
	"testing"
)

// fewestOf is the least of a few measurements of a whole-process counter
// (MemStats's Mallocs or TotalAlloc): a runtime or race-detector goroutine
// allocating at the same moment adds to one try (CI saw 1 and 3 extra
// mallocs), so the least of a few is the measured code's own.
func fewestOf(measure func() uint64) uint64 {
	fewest := measure()
	for range 4 {
		fewest = min(fewest, measure())
	}
	return fewest
}

// fewestMallocs is the fewest heap allocations the function that
// prepare returns made, over a few tries (fewestOf).
func fewestMallocs(prepare func() func()) int {
	return int(fewestOf(func() uint64 {
		f := prepare()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs
	}))
}

// The bulk adds of SADD and HSET grow a hashtable once for all the
// members still to come, and give back what duplicates left unused.
func TestBulkAddSizesOnce(t *testing.T) {
	const n = 20000
	words := func(prefix string, from, to int) [][]byte {
		var b [][]byte
		for i := from; i < to; i++ {
			b = append(b, []byte(prefix+strconv.Itoa(i)))
		}
		return b
	}
	pairs := func(names [][]byte) [][]byte {
		var b [][]byte
		for _, m := range names {
			b = append(b, m, []byte("v"))
		}
		return b
	}
	tests := []struct {
		name    string
		before  [][]byte // added one at a time first
		add     [][]byte // then in one call
		added   int
		members int
	}{
		{"all new", nil, words("m", 0, n), n, n},
		{"past a hashtable's capacity", words("m", 0, 600), words("m", 600, n), n - 600, n},
		{"mostly there already", words("m", 0, 1100), words("m", 0, n/10), n/10 - 1100, n / 10},
		{"every one there already", words("m", 0, 1100), words("m", 0, 1100), 0, 1100},
		{"repeated within the call", nil, append(words("m", 0, 1000), words("m", 0, 1000)...), 1000, 1000},
	}
	type table struct {
		len, cap, index int
	}
	// check compares the table after the call with what it was before.
	check := func(t *testing.T, kind string, got int, before, after table, allocs, wantAdded, members, written, extra int) {
		t.Helper()
		if got != wantAdded || after.len != members {
			t.Errorf("%s: added %d, %d members; want %d, %d", kind, got, after.len, wantAdded, members)
		}
		// No more room than append's own growth leaves, or than was there.
		if after.cap > max(after.len+after.len/4+8, before.cap) || after.index > max(indexSize(after.cap), before.index) {
			t.Errorf("%s: %d members in %d entries and %d index slots (before: %d, %d)", kind, after.len, after.cap, after.index, before.cap, before.index)
		}
		// One allocation per member written, plus a few for the table:
		// growing a quarter at a time would take about 30 more for 20,000.
		if limit := written + extra + 8; allocs > limit {
			t.Errorf("%s: %d allocations, want at most %d", kind, allocs, limit)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s *Set
			var before table
			var added int
			allocs := fewestMallocs(func() func() {
				s = NewSet()
				for _, m := range tt.before {
					s.Add(m, &DefaultEncodings)
				}
				before = table{}
				if st := s.table(); st != nil {
					before = table{len(st.entries), cap(st.entries), len(st.index)}
				}
				return func() { added = s.AddAll(tt.add, &DefaultEncodings) }
			})
			st := s.table()
			check(t, "set", added, before, table{len(st.entries), cap(st.entries), len(st.index)}, allocs, tt.added, tt.members, tt.added, 0)
			for _, m := range tt.add {
				if !s.Has(m) {
					t.Fatalf("set: %s missing", m)
				}
			}

			var h *Hash
			fieldValues := pairs(tt.add)
			allocs = fewestMallocs(func() func() {
				h = NewHash()
				for _, m := range tt.before {
					h.Set(m, []byte("v"), &DefaultEncodings)
				}
				before = table{}
				if ht := h.table(); ht != nil {
					before = table{len(ht.entries), cap(ht.entries), len(ht.index)}
				}
				return func() { added = h.SetAll(fieldValues, &DefaultEncodings) }
			})
			ht := h.table()
			// An update writes its field anew too; a listpack may move at
			// each field it takes before it converts (about once a field).
			var listpack int
			if before.cap == 0 {
				listpack = 2 * int(DefaultEncodings.HashMaxListpackEntries)
			}
			check(t, "hash", added, before, table{len(ht.entries), cap(ht.entries), len(ht.index)}, allocs, tt.added, tt.members, len(tt.add), listpack)
			for _, m := range tt.add {
				if v, ok := h.Get(m); !ok || v != "v" {
					t.Fatalf("hash: %s = %q, %v", m, v, ok)
				}
			}
		})
	}
}

// ExpectKeys makes the key table grow once for the keys to come, and
// expires with ExpectKeys(0).
func TestExpectKeysGrowsOnce(t *testing.T) {
	const n = 5000
	db := New(1, RealClock{}).DB(0)
	for i := range minBuckets { // a full table: the next key grows it
		db.Set([]byte("before"+strconv.Itoa(i)), NewString([]byte("v")), 0)
	}
	db.ExpectKeys(n)
	sizes := map[int]bool{}
	for i := range n {
		db.Set([]byte("k"+strconv.Itoa(i)), NewString([]byte("v")), 0)
		sizes[max(len(db.keys.ht[0]), len(db.keys.ht[1]))] = true
	}
	db.ExpectKeys(0)
	if len(sizes) != 1 || !sizes[bucketsFor(n+minBuckets+1)] {
		t.Errorf("bucket arrays while adding %d keys: %v, want only %d", n, sizes, bucketsFor(n+minBuckets+1))
	}
	if db.keys.expected != 0 {
		t.Errorf("expected %d after ExpectKeys(0)", db.keys.expected)
	}
}
