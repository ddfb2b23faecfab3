package store

import (
	"hash/maphash"
	"slices"
)

// denseTable is the hashtable encoding of sets and hashes: entries in a
// dense slice, found through index, an open-addressing table (linear
// probing, power-of-two size, at most 3/4 full) of positions+1 into
// entries (0: an empty slot). That is about half of Redis's dictEntry, sds
// header and bucket pointer per element, and the dense slice gives SPOP and
// the random picks a uniform pick in O(1) and the SCAN cursors a position
// that survives removals (removal moves the last entry into the hole).
// Deletion shifts later entries of a probe run back, so the index never
// holds tombstones. K says which part of an entry is its key.
type denseTable[K entryKey] struct {
	entries []string
	index   []uint32
}

// entryKey is a denseTable's key of an entry.
type entryKey interface{ key(entry string) string }

// wholeKey keys a set's members: the entry is the member.
type wholeKey struct{}

func (wholeKey) key(e string) string { return e }

var setSeed = maphash.MakeSeed()

func hashMember(m []byte) uint64 { return maphash.Bytes(setSeed, m) }

func (t *denseTable[K]) keyHash(e string) uint64 {
	var k K
	return maphash.String(setSeed, k.key(e))
}

// find returns the position of the entry whose key is key.
func (t *denseTable[K]) find(key []byte) (int, bool) {
	return t.findHashed(key, hashMember(key))
}

// findHashed is find for a key hashed already (h), so that an insertion
// after a miss hashes once.
func (t *denseTable[K]) findHashed(key []byte, h uint64) (int, bool) {
	_, pos, ok := t.lookup(key, h)
	return pos, ok
}

// lookup is findHashed that also returns the index slot of the entry.
func (t *denseTable[K]) lookup(key []byte, h uint64) (slot uint64, pos int, ok bool) {
	if len(t.index) == 0 {
		return 0, 0, false
	}
	var k K
	mask := uint64(len(t.index) - 1)
	for slot = h & mask; ; slot = (slot + 1) & mask {
		p := t.index[slot]
		if p == 0 {
			return 0, 0, false
		}
		if k.key(t.entries[p-1]) == string(key) {
			return slot, int(p - 1), true
		}
	}
}

// slotOf returns the index slot holding position pos.
func (t *denseTable[K]) slotOf(pos int) uint64 {
	mask := uint64(len(t.index) - 1)
	slot := t.keyHash(t.entries[pos]) & mask
	for t.index[slot] != uint32(pos+1) {
		slot = (slot + 1) & mask
	}
	return slot
}

// append adds entry e, whose key (hashed: h) is not in the table.
func (t *denseTable[K]) append(h uint64, e string) {
	if 4*(len(t.entries)+1) > 3*len(t.index) {
		t.grow(len(t.entries) + 1)
	}
	t.entries = append(t.entries, e)
	t.place(h, len(t.entries))
}

// place stores position+1 p in the first free slot from hash h.
func (t *denseTable[K]) place(h uint64, p int) {
	mask := uint64(len(t.index) - 1)
	slot := h & mask
	for t.index[slot] != 0 {
		slot = (slot + 1) & mask
	}
	t.index[slot] = uint32(p)
}

// reserve makes room for n more entries at once, as Redis's dictExpand
// does for a known count: append grows a large slice by a quarter at a
// time, which copied the entries of a 1M-member SADD about 30 times (a
// quarter of its CPU in memmove) and left each old copy as garbage for the
// collector to find. Call fit after the entries are in, since some of the
// n may turn out to be there already.
func (t *denseTable[K]) reserve(n int) {
	t.entries = slices.Grow(t.entries, n)
	if 4*(len(t.entries)+n) > 3*len(t.index) {
		t.grow(len(t.entries) + n)
	}
}

// fit gives back what reserve set aside beyond append's own slack, for
// entries that were there already.
func (t *denseTable[K]) fit() {
	n := len(t.entries)
	if cap(t.entries)-n <= n/4+8 {
		return
	}
	t.entries = slices.Clip(slices.Clone(t.entries))
	if indexSize(n) < len(t.index) {
		t.grow(n)
	}
}

// indexSize is the index's size for n entries.
func indexSize(n int) int {
	size := 8
	for 4*n > 3*size {
		size *= 2
	}
	return size
}

// grow sizes the index for n entries (and rebuilds it).
func (t *denseTable[K]) grow(n int) {
	t.index = make([]uint32, indexSize(n))
	for i, e := range t.entries {
		t.place(t.keyHash(e), i+1)
	}
}

// remove deletes the entry whose key is key and reports whether it was there.
func (t *denseTable[K]) remove(key []byte) bool {
	slot, pos, ok := t.lookup(key, hashMember(key))
	if ok {
		t.removeFrom(slot, pos) // the slot found: not hashed again (slotOf)
	}
	return ok
}

// removeAt deletes the entry at pos: the last entry moves into its place.
func (t *denseTable[K]) removeAt(pos int) { t.removeFrom(t.slotOf(pos), pos) }

// removeFrom is removeAt of the entry at pos, in index slot slot.
func (t *denseTable[K]) removeFrom(slot uint64, pos int) {
	t.unlink(slot)
	last := len(t.entries) - 1
	if pos != last {
		t.index[t.slotOf(last)] = uint32(pos + 1)
		t.entries[pos] = t.entries[last]
	}
	t.entries[last] = ""
	t.entries = t.entries[:last]
	// Give memory back once most entries are gone: a set drained by SPOP
	// must not keep its peak size.
	if cap(t.entries) > 64 && len(t.entries) < cap(t.entries)/4 {
		t.entries = slices.Clip(slices.Clone(t.entries))
		t.grow(len(t.entries))
	}
}

// unlink empties slot and shifts back the entries after it whose probe
// run passes through it (backward-shift deletion).
func (t *denseTable[K]) unlink(slot uint64) {
	mask := uint64(len(t.index) - 1)
	hole := slot
	for next := (hole + 1) & mask; t.index[next] != 0; next = (next + 1) & mask {
		home := t.keyHash(t.entries[t.index[next]-1]) & mask
		// The entry at next may move to hole if hole lies on its probe
		// path, i.e. cyclically within [home, next).
		if (next-home)&mask >= (next-hole)&mask {
			t.index[hole] = t.index[next]
			hole = next
		}
	}
	t.index[hole] = 0
}

func (t *denseTable[K]) clone() *denseTable[K] {
	return &denseTable[K]{entries: slices.Clone(t.entries), index: slices.Clone(t.index)}
}

// scanDense visits entries for SSCAN and HSCAN, count at a time from the
// end, and returns the cursor to continue from (0: done). A removal moves
// the last entry, already visited, into the hole, so an entry that lives
// through the whole scan is always visited.
func scanDense(entries []string, cursor uint64, count int, visit func(e string)) uint64 {
	count = max(count, 1)
	i := len(entries) - 1
	if cursor > 0 && cursor-1 < uint64(len(entries)) {
		i = int(cursor - 1)
	}
	for ; i >= 0 && count > 0; i, count = i-1, count-1 {
		visit(entries[i])
	}
	if i < 0 {
		return 0
	}
	return uint64(i) + 1
}
