package store

import "unsafe"

// Used-memory accounting. Redis compares maxmemory with zmalloc's counter of
// the bytes it has allocated; floodgate keeps the same kind of counter for
// its keyspace, updated as keys are added, changed and removed, rather than
// reading the Go heap (runtime.MemStats lags a GC cycle behind and counts
// garbage not yet collected, so a server filling up would overshoot, and
// one that just evicted would go on evicting). Each entry is charged what
// the Go allocator gives it: its Entry, its share of the key table's
// buckets and its slot in the expiry heap, the key's bytes and the value's.

// entryCost and expiryCost are a key's share of the key table's buckets
// (8-byte pointers, the table between half and wholly full) and of the
// expiry heap, for MEMORY USAGE; the accounting charges the tables
// themselves (indexBytes).
const (
	entryCost  = 10
	expiryCost = 30 // a 24-byte slot and its share of the array's growth
)

// Used returns the accounted memory of every database's keys and indexes,
// in bytes.
func (s *Store) Used() int64 { return s.used + s.indexBytes() }

// indexBytes is the accounted memory of every database's key table and
// expiry heap.
func (s *Store) indexBytes() int64 {
	var n int64
	for d := range s.usedDBs() {
		main, expires := d.Overhead()
		n += main + expires
	}
	return n
}

// MemSizer is implemented by values that know their memory cost; a value
// that does not is charged defaultValueCost.
type MemSizer interface {
	MemSize() int
}

const defaultValueCost = 64

// entrySize is what the accounting charges for e.
func entrySize(e *Entry) uint32 {
	n := e.allocated()
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

// allocSize is what the Go allocator gives an allocation of n bytes that
// holds no pointers: n rounded up to its size class, or to whole pages
// for a large object.
func allocSize(n int) int {
	switch {
	case n <= 0:
		return 0
	case n <= smallSizeMax:
		return int(sizeClasses[classOf[(n+7)/8]])
	}
	return (n + 8191) &^ 8191
}

// allocSizeScan is allocSize for an allocation that holds pointers: a
// small object past 512 bytes carries the allocator's 8-byte header.
func allocSizeScan(n int) int {
	if n > 512 && n <= smallSizeMax-8 {
		n += 8
	}
	return allocSize(n)
}

// sizeClasses are the Go allocator's small-object size classes
// (internal/runtime/gc/sizeclasses.go; TestAllocSize checks them against
// the running allocator), and classOf the smallest class of each 8 bytes
// of request.
const smallSizeMax = 32768

var sizeClasses = [...]uint16{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792,
	2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240,
	10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

var classOf = func() (t [smallSizeMax/8 + 1]uint8) {
	c := 0
	for i := range t {
		for int(sizeClasses[c]) < i*8 {
			c++
		}
		t[i] = uint8(c)
	}
	return t
}()

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
	if s.embedded() {
		return 32
	}
	return 32 + allocSize(cap(s.b))
}

// MemSize implements MemSizer.
func (s *Set) MemSize() int {
	t := s.table()
	if t == nil {
		if is := s.ints(); len(is) > 0 {
			return 8 + allocSize(len(is))
		}
		return 8
	}
	n := len(t.entries)
	avg := sampleLen(n, func(i int) int { return len(t.entries[i]) })
	return 8 + 64 + allocSizeScan(cap(t.entries)*16) + allocSize(cap(t.index)*4) + n*allocSize(avg)
}

// MemSize implements MemSizer. A large sorted set is its map (as its
// largest size since it was built made it grow), its tree and the member
// strings, which both share.
func (z *ZSet) MemSize() int {
	if z.big == nil {
		return 32 + allocSize(cap(z.packed))
	}
	b := z.big
	n := len(b.scores)
	var avg int
	for m := range b.scores { // map order is random: a fair sample
		avg += len(m)
		break
	}
	return 32 + 32 + mapSize(b.peak, 16+8) + b.tree.memSize() + n*allocSize(avg)
}

// mapSize estimates the heap of a Go map (Swiss tables) that has held up to
// peak entries of slot bytes each: groups of 8 slots and 8 control bytes,
// grown by doubling at 7/8 full, in tables of at most 1024 slots.
func mapSize(peak, slot int) int {
	slots := 8
	for slots*7/8 < peak {
		slots *= 2
	}
	group := 8 + 8*slot
	if slots <= 1024 {
		return 48 + allocSizeScan(slots/8*group)
	}
	tables := slots / 1024
	return tables*(48+allocSizeScan(128*group)) + allocSizeScan(8*tables)
}

// MemSize implements MemSizer.
func (h *Hash) MemSize() int { return h.Size() }

// MemSize implements MemSizer: the ring of chunk headers and the chunks'
// buffers, sampled (a long list has many chunks, and this runs on every
// change).
func (l *List) MemSize() int {
	chunks := l.hi - l.lo
	avg := sampleLen(chunks, func(i int) int { return allocSize(cap(l.ring[l.lo+i].buf)) })
	return 48 + allocSizeScan(cap(l.ring)*int(unsafe.Sizeof(listChunk{}))) + chunks*avg
}
