package store

import (
	"hash/maphash"
	"math/bits"
	"math/rand/v2"
	"unsafe"
)

// keyTable is a database's index of its keys, a chained hash table as
// Redis's dict: a power-of-two array of buckets, each a list linked
// through Entry.next. A key costs its bucket's share of one pointer and
// the next pointer, where a Go map plus a dense slice for SCAN cost about
// 60 bytes. It grows when full and shrinks when under a tenth full, and
// moves its entries to the new array a few buckets per insertion or
// deletion (and in ActiveExpire), so a million-key table never stalls a
// command on a full rehash. SCAN walks it with Redis's reverse-binary
// cursor, which returns every key present throughout a scan across any
// number of resizes.
type keyTable struct {
	ht   [2][]*Entry
	used [2]int
	// rehash is the next bucket of ht[0] to move to ht[1]; -1 when no
	// resize is under way (ht[1] is then nil).
	rehash int
	// expected is how many more keys the command running may insert
	// (expect), so that a table that must grow grows once for them all.
	expected int
}

const minBuckets = 4

// keySeed hashes every key table of the process, as Redis has one hash
// seed: a table's layout then depends only on the keys and the operations,
// so RANDOMKEY repeats on a seeded server (Store.Seed), also after FLUSHALL.
var keySeed = maphash.MakeSeed()

func newKeyTable() keyTable { return keyTable{rehash: -1} }

func (t *keyTable) len() int { return t.used[0] + t.used[1] }

func (t *keyTable) hash(key string) uint64 { return maphash.String(keySeed, key) }

// bucketsFor is the power-of-two size that holds n keys at most full.
func bucketsFor(n int) int {
	if n <= minBuckets {
		return minBuckets
	}
	return 1 << bits.Len(uint(n-1))
}

// find returns the entry of key, or nil. It never rehashes, so lookups
// are safe while Each or a snapshot walks the table.
func (t *keyTable) find(key string) *Entry {
	if t.len() == 0 {
		return nil
	}
	h := t.hash(key)
	for i := range 2 {
		tb := t.ht[i]
		for e := tb[h&uint64(len(tb)-1)]; e != nil; e = e.next {
			if e.Key() == key {
				return e
			}
		}
		if t.rehash < 0 {
			break
		}
	}
	return nil
}

// findBytes is find for a key in bytes, without copying them.
func (t *keyTable) findBytes(key []byte) *Entry {
	return t.find(unsafe.String(unsafe.SliceData(key), len(key)))
}

// insert adds e, whose key the table does not hold.
func (t *keyTable) insert(e *Entry) {
	t.rehashStep(1)
	if t.rehash < 0 {
		switch {
		case t.ht[0] == nil:
			t.ht[0] = make([]*Entry, minBuckets)
		case t.used[0] >= len(t.ht[0]):
			t.resize(bucketsFor(t.used[0] + 1 + t.expected))
		}
	}
	t.expected = max(t.expected-1, 0)
	i := 0
	if t.rehash >= 0 {
		i = 1 // entries of a table being resized go to the new array
	}
	tb := t.ht[i]
	b := t.hash(e.Key()) & uint64(len(tb)-1)
	e.next = tb[b]
	tb[b] = e
	t.used[i]++
}

// remove unlinks e, which the table holds.
func (t *keyTable) remove(e *Entry) {
	h := t.hash(e.Key())
	for i := range 2 {
		tb := t.ht[i]
		for p := &tb[h&uint64(len(tb)-1)]; *p != nil; p = &(*p).next {
			if *p == e {
				*p = e.next
				e.next = nil
				t.used[i]--
				t.rehashStep(1)
				t.shrinkIfSparse()
				return
			}
		}
		if t.rehash < 0 {
			break
		}
	}
	panic("store: removing a key the table does not hold")
}

// resize starts moving the entries to an array of n buckets.
func (t *keyTable) resize(n int) {
	if t.rehash >= 0 || n == len(t.ht[0]) {
		return
	}
	t.ht[1] = make([]*Entry, n)
	t.rehash = 0
}

// shrinkIfSparse starts a shrink once the table is under a tenth full
// (Redis's htNeedsResize), so deleted keys give their buckets back.
func (t *keyTable) shrinkIfSparse() {
	if t.rehash < 0 && len(t.ht[0]) > minBuckets && t.used[0]*10 < len(t.ht[0]) {
		t.resize(bucketsFor(t.used[0]))
	}
}

// rehashStep moves up to n buckets of a resize under way, visiting at most
// 10n empty ones (Redis's dictRehash).
func (t *keyTable) rehashStep(n int) {
	if t.rehash < 0 {
		return
	}
	empty := n * 10
	old, tb := t.ht[0], t.ht[1]
	mask := uint64(len(tb) - 1)
	for ; n > 0 && t.used[0] > 0; n-- {
		for old[t.rehash] == nil {
			t.rehash++
			if empty--; empty == 0 {
				return
			}
		}
		for e := old[t.rehash]; e != nil; {
			next := e.next
			b := t.hash(e.Key()) & mask
			e.next = tb[b]
			tb[b] = e
			t.used[0]--
			t.used[1]++
			e = next
		}
		old[t.rehash] = nil
		t.rehash++
	}
	if t.used[0] == 0 {
		t.ht[0], t.ht[1] = tb, nil
		t.used[0], t.used[1] = t.used[1], 0
		t.rehash = -1
	}
}

// rehashSome goes on with a resize, for up to n buckets' worth of work,
// and starts the next shrink if the table is still sparse: the share of
// Redis's cron (incrementallyRehash), so a table nobody writes to still
// finishes shrinking and frees its old array. It counts work rather than
// time, as a result that depends on the machine's speed would make the
// table's size, and the tests reading it, too.
func (t *keyTable) rehashSome(n int) {
	for ; n > 0; n -= 100 {
		t.shrinkIfSparse()
		if t.rehash < 0 {
			return
		}
		t.rehashStep(100)
	}
}

// expect says that up to n more keys may be inserted before expect(0):
// a growth on the way sizes the table for all of them at once, as Redis's
// dictExpand for a known count, instead of doubling (and rehashing) up to
// 17 times through a 1M-argument MSET. Keys that turn out to exist already
// cost at most one doubling too many, which a later growth would make
// anyway.
func (t *keyTable) expect(n int) { t.expected = n }

// reserve sizes an empty table for n keys.
func (t *keyTable) reserve(n int) {
	if t.len() == 0 && t.rehash < 0 {
		t.ht[0] = make([]*Entry, bucketsFor(n))
	}
}

// scan visits the entries of the bucket (or, during a resize, buckets)
// at cursor v and returns the next cursor, 0 when the walk is done. The
// cursor counts with its bits reversed (Redis's dictScan), so the buckets
// already visited stay behind it when the table doubles or halves: a key
// present throughout the walk is visited at least once. visit must not
// change the table.
func (t *keyTable) scan(v uint64, visit func(*Entry)) uint64 {
	if t.len() == 0 {
		return 0
	}
	next := func(v, mask uint64) uint64 {
		v |= ^mask
		return bits.Reverse64(bits.Reverse64(v) + 1)
	}
	if t.rehash < 0 {
		m := uint64(len(t.ht[0]) - 1)
		visitChain(t.ht[0][v&m], visit)
		return next(v, m)
	}
	small, large := t.ht[0], t.ht[1]
	if len(small) > len(large) {
		small, large = large, small
	}
	m0, m1 := uint64(len(small)-1), uint64(len(large)-1)
	visitChain(small[v&m0], visit)
	// Then every bucket of the larger array that the small one's bucket
	// expands to.
	for {
		visitChain(large[v&m1], visit)
		v = next(v, m1)
		if v&(m0^m1) == 0 {
			return v
		}
	}
}

func visitChain(e *Entry, visit func(*Entry)) {
	for e != nil {
		next := e.next
		visit(e)
		e = next
	}
}

// each visits every entry; visit must not change the table.
func (t *keyTable) each(visit func(*Entry)) {
	for _, tb := range t.ht {
		for _, e := range tb {
			visitChain(e, visit)
		}
	}
}

// random returns a random entry, or nil: a random non-empty bucket, then a
// random entry of its chain (Redis's dictGetRandomKey).
func (t *keyTable) random(rng *rand.Rand) *Entry {
	if t.len() == 0 {
		return nil
	}
	var b *Entry
	if t.rehash < 0 {
		for b == nil {
			b = t.ht[0][rng.IntN(len(t.ht[0]))]
		}
	} else {
		n0, n1 := len(t.ht[0]), len(t.ht[1])
		for b == nil { // ht[0] is empty below rehash
			if i := t.rehash + rng.IntN(n0+n1-t.rehash); i < n0 {
				b = t.ht[0][i]
			} else {
				b = t.ht[1][i-n0]
			}
		}
	}
	n := 0
	for e := b; e != nil; e = e.next {
		n++
	}
	for k := rng.IntN(n); k > 0; k-- {
		b = b.next
	}
	return b
}

// sample appends up to n entries read from consecutive buckets at a
// random place to out, as Redis's dictGetSomeKeys: cheaper than n random
// picks, and random enough for eviction's sampling.
func (t *keyTable) sample(rng *rand.Rand, n int, out []*Entry) []*Entry {
	n = min(n, t.len())
	if n <= 0 {
		return out
	}
	tables := 1
	if t.rehash >= 0 {
		tables = 2
	}
	mask := uint64(max(len(t.ht[0]), len(t.ht[1])) - 1)
	i := rng.Uint64() & mask
	empty, got := 0, 0
	for steps := n * 10; got < n && steps > 0; steps-- {
		for j := range tables {
			if tables == 2 && j == 0 && i < uint64(t.rehash) {
				// ht[0] is empty below rehash; if ht[1] is smaller too, jump.
				if i >= uint64(len(t.ht[1])) {
					i = uint64(t.rehash)
				} else {
					continue
				}
			}
			if i >= uint64(len(t.ht[j])) {
				continue
			}
			e := t.ht[j][i]
			if e == nil {
				if empty++; empty >= 5 && empty > n {
					i = rng.Uint64() & mask
					empty = 0
				}
				continue
			}
			empty = 0
			for ; e != nil && got < n; e = e.next {
				out = append(out, e)
				got++
			}
		}
		i = (i + 1) & mask
	}
	return out
}
