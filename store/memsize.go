package store

// Used-memory accounting. Redis compares maxmemory with zmalloc's counter of
// the bytes it has allocated; floodgate keeps the same kind of counter for
// its keyspace, updated as keys are added, changed and removed, rather than
// reading the Go heap (runtime.MemStats lags a GC cycle behind and counts
// garbage not yet collected, so a server filling up would overshoot, and
// one that just evicted would go on evicting). Each entry is charged what
// the Go allocator gives it: its Entry, its share of the key table's
// buckets and its slot in the expiry heap, the key's bytes and the value's.

// entryCost is an entry's share of the key table's buckets (8-byte
// pointers, the table between half and wholly full); its allocation, key
// included, is Entry.allocated.
const (
	entryCost  = 10
	expiryCost = 12 // a slot of the expiry heap, growth included
)

// Used returns the accounted memory of every database's keys, in bytes.
func (s *Store) Used() int64 { return s.used }

// MemSizer is implemented by values that know their memory cost; a value
// that does not is charged defaultValueCost.
type MemSizer interface {
	MemSize() int
}

const defaultValueCost = 64

// entrySize is what the accounting charges for e.
func entrySize(e *Entry) uint32 {
	n := entryCost + e.allocated()
	if e.expireAt != 0 {
		n += expiryCost
	}
	if s, ok := e.str(); ok { // most keys: no interface lookup
		n += s.MemSize()
	} else if m, ok := e.Value().(MemSizer); ok {
		n += m.MemSize()
	} else {
		n += defaultValueCost
	}
	return uint32(min(n, 1<<32-1))
}

// account recomputes e's charge and moves the store's counter by the change.
func (db *DB) account(e *Entry) {
	n := entrySize(e)
	db.store.used += int64(n) - int64(e.size)
	e.size = n
}

// allocSize rounds n up to the Go allocator's size class (small objects)
// or to whole pages (large ones).
func allocSize(n int) int {
	switch {
	case n <= 0:
		return 0
	case n <= 8:
		return 8
	case n <= 16:
		return 16
	case n <= 32:
		return (n + 7) &^ 7 // 24, 32
	case n <= 128:
		return (n + 15) &^ 15
	case n <= 1024:
		return (n + 63) &^ 63
	case n <= 32768:
		return (n + 511) &^ 511
	}
	return (n + 8191) &^ 8191
}

// sampleLen is the mean length of up to five of a collection's elements,
// as Redis's MEMORY USAGE samples five by default: recomputing a large
// collection's cost after every change must not cost O(n).
func sampleLen(n int, at func(i int) int) int {
	if n == 0 {
		return 0
	}
	k := min(n, 5)
	total := 0
	for i := range k {
		total += at(i * (n / k))
	}
	return total / k
}

// MemSize implements MemSizer.
func (s *String) MemSize() int {
	if s.isShared() {
		return 0
	}
	return 32 + allocSize(cap(s.b))
}

// MemSize implements MemSizer.
func (s *Set) MemSize() int {
	t := s.table()
	if t == nil {
		if is := s.ints(); len(is) > 0 {
			return 8 + sizeClass(len(is))
		}
		return 8
	}
	n := len(t.entries)
	avg := sampleLen(n, func(i int) int { return len(t.entries[i]) })
	return 8 + 64 + allocSize(cap(t.entries)*16) + allocSize(cap(t.index)*4) + n*allocSize(avg)
}

// MemSize implements MemSizer.
func (z *ZSet) MemSize() int {
	if z.big == nil {
		return 32 + allocSize(cap(z.packed))
	}
	n := len(z.big.scores)
	var avg int
	for m := range z.big.scores { // map order is random: a fair sample
		avg += len(m)
		break
	}
	// A map slot (string and float64, 7/8 full, doubling) and a tree item
	// (24 bytes in leaves about 3/4 full).
	return 32 + 64 + n*(40+32+allocSize(avg))
}

// MemSize implements MemSizer.
func (h *Hash) MemSize() int { return h.Size() }

// MemSize implements MemSizer: the ring of chunk headers and the chunks'
// buffers, sampled (a long list has many chunks, and this runs on every
// change).
func (l *List) MemSize() int {
	chunks := l.hi - l.lo
	avg := sampleLen(chunks, func(i int) int { return allocSize(cap(l.ring[l.lo+i].buf)) })
	return 48 + allocSize(cap(l.ring)*32) + chunks*avg
}
