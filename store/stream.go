package store

import (
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/floodgate/floodgate/internal/jemalloc"
	"github.com/floodgate/floodgate/internal/listpack"
)

// A stream is kept as Redis 7.0 keeps it: a sequence of nodes ordered by
// their master ID, each a listpack holding a master entry (live count,
// deleted count, the master fields, a 0 terminator) and then entries
// (flags, ms and seq deltas from the master ID, [num-fields, fields,]
// values, lp-count), deleted entries staying in place flagged until their
// node empties. Redis indexes the nodes in a radix tree; here they are a
// slice ordered by master ID, searched by bisection (XADD only appends at
// the tail, trimming takes whole nodes from the head, and a node is at
// most stream-node-max-entries entries or stream-node-max-bytes bytes, so
// the slice is short next to the entries). Keeping Redis's listpack bytes
// makes the node splits, and so approximate trimming, the RDB's stream
// nodes and the memory per entry, what Redis's are.

// StreamID is a stream entry ID, ms-seq.
type StreamID struct{ Ms, Seq uint64 }

// MaxStreamID is the largest ID, "+" in a range.
var MaxStreamID = StreamID{1<<64 - 1, 1<<64 - 1}

// Compare returns -1, 0 or 1 as id is before, equal to or after o.
func (id StreamID) Compare(o StreamID) int {
	switch {
	case id.Ms > o.Ms:
		return 1
	case id.Ms < o.Ms:
		return -1
	case id.Seq > o.Seq:
		return 1
	case id.Seq < o.Seq:
		return -1
	}
	return 0
}

// Less reports whether id is before o.
func (id StreamID) Less(o StreamID) bool { return id.Compare(o) < 0 }

// IsZero reports whether id is 0-0.
func (id StreamID) IsZero() bool { return id.Ms == 0 && id.Seq == 0 }

// String returns "ms-seq".
func (id StreamID) String() string { return string(id.Append(nil)) }

// Append appends "ms-seq" to b.
func (id StreamID) Append(b []byte) []byte {
	b = strconv.AppendUint(b, id.Ms, 10)
	b = append(b, '-')
	return strconv.AppendUint(b, id.Seq, 10)
}

// Incr returns the ID after id, and false (with 0-0) if id is the largest,
// as streamIncrID.
func (id StreamID) Incr() (StreamID, bool) {
	switch {
	case id.Seq < 1<<64-1:
		return StreamID{id.Ms, id.Seq + 1}, true
	case id.Ms < 1<<64-1:
		return StreamID{id.Ms + 1, 0}, true
	}
	return StreamID{}, false
}

// Decr returns the ID before id, and false (with the largest ID) if id is
// 0-0, as streamDecrID.
func (id StreamID) Decr() (StreamID, bool) {
	switch {
	case id.Seq > 0:
		return StreamID{id.Ms, id.Seq - 1}, true
	case id.Ms > 0:
		return StreamID{id.Ms - 1, 1<<64 - 1}, true
	}
	return MaxStreamID, false
}

// The flags of a stream entry.
const (
	streamFlagDeleted    = 1
	streamFlagSameFields = 2
)

// StreamListpackMaxSize is the most a node (and an entry's fields and
// values together) may hold, STREAM_LISTPACK_MAX_SIZE.
const StreamListpackMaxSize = 1 << 30

// streamPrealloc is STREAM_LISTPACK_MAX_PRE_ALLOCATE.
const streamPrealloc = 4096

type streamNode struct {
	master StreamID
	lp     []byte
	// redisAlloc is what Redis's allocation for this listpack would be
	// (zmalloc_size, a jemalloc class), which MEMORY USAGE answers: it
	// follows the node's history, not its bytes (see resized).
	redisAlloc int
}

// resized follows Redis's allocation of the node's listpack through one
// lpInsert that took it from old bytes to len(n.lp): lpInsert reallocs to
// the exact size when it grows past the allocation or when it shrinks.
func (n *streamNode) resized(old int) {
	if l := len(n.lp); (l > old && l > n.redisAlloc) || l < old {
		n.redisAlloc = jemalloc.Size(l)
	}
}

// reserveEntry grows lp, when an entry of fields and values fv (totLen
// bytes of them) outgrows it, by what the entry's elements take (the
// fields too when withFields: a master entry's, or an entry's own), once:
// appended one element at a time, a 500,000-field entry's listpack was
// outgrown ~30 times, 47 MB allocated for a 12 MB node, the garbage of it
// at the request's peak (Redis's realloc grows in place). slices.Grow
// grows by a quarter at least, so small entries stay amortized.
func reserveEntry(lp []byte, fv [][]byte, totLen int, withFields bool) []byte {
	if totLen <= cap(lp)-len(lp) {
		return lp
	}
	n := 8 * 11 // the integers around the entry, 11 bytes each at most
	for i, e := range fv {
		if i%2 == 1 || withFields {
			n += listpack.EntrySize(e)
		}
	}
	return slices.Grow(lp, n)
}

// seal is lpShrinkToFit for a node the next one follows: a copy of the
// exact size when its buffer's size class is larger than its bytes need
// (Clip would only hide the slack from the accounting). It returns the
// buffer the node left, for the next node to start in (nil if it kept
// it): nothing else holds a node's bytes (replies copy them, a snapshot
// copies a stream before it changes), and freed, the 4 KB buffers were
// 40 of XADD's 97 bytes a request into long streams, garbage that grew the
// heap past its live size during a fill.
func (n *streamNode) seal() (spare []byte) {
	if allocSize(cap(n.lp)) > allocSize(len(n.lp)) {
		spare = n.lp[:0]
		n.lp = slices.Clone(n.lp)
	}
	n.redisAlloc = min(n.redisAlloc, jemalloc.Size(len(n.lp)))
	return spare
}

// nodeCapacity is the capacity a new tail node starts with: for a stream's
// first node small (a first allocation of Redis's preallocation would cost
// a small stream 4 KB), growing as append grows it; for later ones Redis's
// preallocation, prealloc, in which a node of default limits fills in
// place. Built by append alone, a node of about 3 KB went through eight
// buffers, and those of its size class, freed when the next was cloned to
// its exact size, shared spans with the clones: after a collection, 8% of
// the heap's spans were free slots among live nodes (1M entries in 10
// streams). The preallocated buffers are of a class of their own, whose
// spans empty as their nodes seal.
func (s *Stream) nodeCapacity(first, prealloc int) int {
	if len(s.nodes) == 0 {
		return first
	}
	return prealloc
}

// loadedNode is a node whose listpack Redis allocates at its exact size:
// loaded from an RDB or RESTORE payload, or copied by COPY (streamDup).
func loadedNode(master StreamID, lp []byte) streamNode {
	return streamNode{master, lp, jemalloc.Size(len(lp))}
}

// Stream is a stream value: its entries (in nodes) and its consumer
// groups.
type Stream struct {
	nodes        []streamNode
	length       uint64
	lastID       StreamID
	firstID      StreamID
	maxDeletedID StreamID
	entriesAdded uint64
	groups       []*StreamGroup // ordered by name, as Redis's rax
	// nodeBytes caches the nodes' share of MemSize, which every write
	// recomputes for the store's used memory: walking a long stream's
	// nodes on each XREADGROUP or XACK, which never change them, cost
	// more than the command. Append and Trim's removal of whole nodes
	// keep it up to date, every other change of the nodes clears it
	// (nodesChanged); 0 is unknown.
	nodeBytes int
}

// nodesChanged forgets the cached size of the nodes.
func (s *Stream) nodesChanged() { s.nodeBytes = 0 }

// nodeBytesFrom is the nodes' share of MemSize from the i-th node on,
// the node index's array included.
func (s *Stream) nodeBytesFrom(i int) int {
	n := allocSizeScan(cap(s.nodes) * int(unsafeSizeofNode))
	for _, nd := range s.nodes[i:] {
		n += allocSize(cap(nd.lp))
	}
	return n
}

// NewStream returns an empty stream.
func NewStream() *Stream { return &Stream{} }

// Kind returns KindStream.
func (*Stream) Kind() Kind { return KindStream }

// Encoding returns "stream".
func (*Stream) Encoding() string { return "stream" }

// Len is the number of (live) entries, XLEN.
func (s *Stream) Len() uint64 { return s.length }

// LastID is the ID of the last entry ever added (or set by XSETID).
func (s *Stream) LastID() StreamID { return s.lastID }

// FirstID is the ID of the first live entry, 0-0 if there is none.
func (s *Stream) FirstID() StreamID { return s.firstID }

// MaxDeletedID is the largest ID ever deleted (XDEL, XTRIM) or set by
// XSETID MAXDELETEDID.
func (s *Stream) MaxDeletedID() StreamID { return s.maxDeletedID }

// EntriesAdded is the number of entries ever added.
func (s *Stream) EntriesAdded() uint64 { return s.entriesAdded }

// SetLastID sets last_id (XSETID).
func (s *Stream) SetLastID(id StreamID) { s.lastID = id }

// SetEntriesAdded sets entries_added (XSETID ENTRIESADDED, loading).
func (s *Stream) SetEntriesAdded(n uint64) { s.entriesAdded = n }

// SetMaxDeletedID sets max_deleted_entry_id (XSETID MAXDELETEDID, loading).
func (s *Stream) SetMaxDeletedID(id StreamID) { s.maxDeletedID = id }

// SetFirstID sets first_id (loading, which reads it from the RDB).
func (s *Stream) SetFirstID(id StreamID) { s.firstID = id }

// SetLen sets the length (loading, which reads it from the RDB).
func (s *Stream) SetLen(n uint64) { s.length = n }

// NodeCount is the number of listpack nodes (XINFO STREAM's
// radix-tree-nodes counts Redis's rax nodes, a different figure).
func (s *Stream) NodeCount() int { return len(s.nodes) }

// Node returns the i-th node's master ID and listpack, for the RDB. The
// caller must not change the bytes.
func (s *Stream) Node(i int) (StreamID, []byte) { return s.nodes[i].master, s.nodes[i].lp }

// AppendNode adds a node after the last one, for loading: the caller has
// validated lp and sets the length and IDs itself.
func (s *Stream) AppendNode(master StreamID, lp []byte) {
	s.nodesChanged()
	s.nodes = append(s.nodes, loadedNode(master, lp))
}

// NextID is the ID XADD * gives at unix millisecond now: now-0, or the
// last ID's successor when the clock has not passed it (ok false if there
// is none).
func (s *Stream) NextID(now uint64) (StreamID, bool) {
	if now > s.lastID.Ms {
		return StreamID{now, 0}, true
	}
	return s.lastID.Incr()
}

// StreamLimits are stream-node-max-bytes and stream-node-max-entries.
type StreamLimits struct {
	NodeMaxBytes   int64
	NodeMaxEntries int64
}

// StreamLimits returns the store's node limits.
func (e *Encodings) StreamLimits() StreamLimits {
	return StreamLimits{e.StreamNodeMaxBytes, e.StreamNodeMaxEntries}
}

// Append adds an entry with ID id (which the caller has checked is after
// LastID) and the field-value pairs fv (field, value, field, value...),
// as streamAppendItem: into the tail node unless it is full.
func (s *Stream) Append(id StreamID, fv [][]byte, lim StreamLimits) {
	// Append changes the tail and may add a node after it: the cached size
	// moves by what those weigh, where walking every node of a long
	// stream again was half of a capped XADD's CPU (MAXLEN ~ 100000).
	from, before := max(len(s.nodes)-1, 0), 0
	if s.nodeBytes != 0 {
		before = s.nodeBytesFrom(from)
	}
	numFields := int64(len(fv) / 2)
	totLen := 0
	for _, e := range fv {
		totLen += len(e)
	}
	var tail *streamNode
	var spare []byte // the sealed tail's buffer
	if n := len(s.nodes); n > 0 {
		tail = &s.nodes[n-1]
		maxBytes := lim.NodeMaxBytes
		if maxBytes == 0 || maxBytes > StreamListpackMaxSize {
			maxBytes = StreamListpackMaxSize
		}
		full := int64(len(tail.lp)+totLen) >= maxBytes
		if !full && lim.NodeMaxEntries > 0 {
			live := listpack.GetInteger(tail.lp, listpack.First)
			dead := listpack.GetInteger(tail.lp, listpack.Next(tail.lp, listpack.First))
			full = live+dead >= lim.NodeMaxEntries
		}
		if full {
			spare = tail.seal()
			tail = nil
		}
	}
	flags := int64(0)
	if tail == nil {
		prealloc := int64(streamPrealloc)
		if lim.NodeMaxBytes > 0 && lim.NodeMaxBytes < prealloc {
			prealloc = lim.NodeMaxBytes
		}
		capacity := s.nodeCapacity(min(int(prealloc), 64+totLen*2), int(prealloc))
		var lp []byte
		if spare != nil && allocSize(cap(spare)) == allocSize(capacity) {
			lp = listpack.EmptyIn(spare) // the allocation a new one would be
		} else {
			lp = listpack.Empty(capacity)
		}
		lp = reserveEntry(lp, fv, totLen, true)
		lp = listpack.AppendInteger(lp, 1)
		lp = listpack.AppendInteger(lp, 0)
		lp = listpack.AppendInteger(lp, numFields)
		for i := int64(0); i < numFields; i++ {
			lp = listpack.Append(lp, fv[2*i])
		}
		lp = listpack.AppendInteger(lp, 0)
		// lpNew's allocation; the appends grow it only past it (resized).
		s.nodes = append(s.nodes, streamNode{master: id, lp: lp, redisAlloc: jemalloc.Size(max(int(prealloc), 7))})
		tail = &s.nodes[len(s.nodes)-1]
		flags = streamFlagSameFields
	} else {
		lp := tail.lp
		p := listpack.First
		lp = listpack.ReplaceInteger(lp, p, listpack.GetInteger(lp, p)+1)
		p = listpack.Next(lp, p)
		p = listpack.Next(lp, p)
		if listpack.GetInteger(lp, p) == numFields {
			p = listpack.Next(lp, p)
			same := true
			for i := int64(0); i < numFields; i++ {
				if !listpack.Equal(lp, p, fv[2*i]) {
					same = false
					break
				}
				p = listpack.Next(lp, p)
			}
			if same {
				flags = streamFlagSameFields
			}
		}
		tail.lp = lp
	}
	lp := tail.lp
	same := flags&streamFlagSameFields != 0
	lp = reserveEntry(lp, fv, totLen, !same)
	lp = listpack.AppendInteger(lp, flags)
	lp = listpack.AppendInteger(lp, int64(id.Ms-tail.master.Ms))
	lp = listpack.AppendInteger(lp, int64(id.Seq-tail.master.Seq))
	if !same {
		lp = listpack.AppendInteger(lp, numFields)
	}
	for i := int64(0); i < numFields; i++ {
		if !same {
			lp = listpack.Append(lp, fv[2*i])
		}
		lp = listpack.Append(lp, fv[2*i+1])
	}
	lpCount := numFields + 3
	if !same {
		lpCount += numFields + 1
	}
	old := len(tail.lp)
	tail.lp = listpack.AppendInteger(lp, lpCount)
	// Every lpInsert since the node's last size grew it, so one check at
	// the end gives the allocation the sequence of them would.
	tail.resized(old)
	if before != 0 {
		s.nodeBytes += s.nodeBytesFrom(from) - before
	}
	s.length++
	s.entriesAdded++
	s.lastID = id
	if s.length == 1 {
		s.firstID = id
	}
}

// seekNode is the index of the last node whose master ID is at most id,
// -1 if there is none.
func (s *Stream) seekNode(id StreamID) int {
	i, found := slices.BinarySearchFunc(s.nodes, id, func(n streamNode, id StreamID) int { return n.master.Compare(id) })
	if found {
		return i
	}
	return i - 1
}

// StreamIterator walks a stream's entries in a range, forwards or
// backwards, as streamIterator does. Changing the stream other than
// through Remove ends its use.
type StreamIterator struct {
	s          *Stream
	start, end StreamID
	rev        bool
	// SkipTombstones is true unless the caller wants deleted entries too.
	SkipTombstones bool

	node        int // the current node, or -1 before the first
	lp          []byte
	master      StreamID
	mfCount     int64
	mfStart     int
	ele         int // the cursor in lp; -1 when the node is done
	flagsOff    int
	entryFlags  int64
	numFields   int64
	fieldsStart int
	done        bool
	// EachField's scratch for integer-encoded fields and values: on the
	// stack they would escape to fn, two allocations an entry.
	fieldBuf, valueBuf [20]byte
}

// Iter returns an iterator over the entries from start to end inclusive.
func (s *Stream) Iter(start, end StreamID, rev bool) *StreamIterator {
	it := &StreamIterator{s: s, start: start, end: end, rev: rev, SkipTombstones: true}
	it.seek()
	return it
}

func (it *StreamIterator) seek() {
	s := it.s
	it.lp, it.ele = nil, -1
	if !it.rev {
		it.node = -1
		if !it.start.IsZero() {
			it.node = max(s.seekNode(it.start), 0) - 1
		}
	} else {
		it.node = len(s.nodes)
		if it.end != (StreamID{}) {
			i := s.seekNode(it.end)
			if i < 0 {
				it.done = true // every node is past end
				return
			}
			it.node = i + 1
		}
	}
}

// Next moves to the next entry in range and returns its ID, or false when
// there is none.
func (it *StreamIterator) Next() (StreamID, bool) {
	if it.done {
		return StreamID{}, false
	}
	for {
		if it.lp == nil || it.ele < 0 {
			if !it.rev {
				it.node++
				if it.node >= len(it.s.nodes) {
					it.done = true
					return StreamID{}, false
				}
			} else {
				it.node--
				if it.node < 0 {
					it.done = true
					return StreamID{}, false
				}
			}
			n := &it.s.nodes[it.node]
			it.master, it.lp = n.master, n.lp
			p := listpack.Next(it.lp, listpack.First)
			p = listpack.Next(it.lp, p)
			it.mfCount = listpack.GetInteger(it.lp, p)
			p = listpack.Next(it.lp, p)
			it.mfStart = p
			if !it.rev {
				for range it.mfCount {
					p = listpack.Next(it.lp, p)
				}
				it.ele = p // the master's 0 terminator
			} else {
				it.ele = listpack.Prev(it.lp, len(it.lp)-1) // the last lp-count
			}
		} else if it.rev {
			// Back over the entry just returned to the lp-count before it.
			p := it.flagsOff
			it.ele = listpack.Prev(it.lp, p)
		}
		lp := it.lp
		for {
			var p int
			if !it.rev {
				p = listpack.Next(lp, it.ele) // past the lp-count (or terminator)
				if listpack.IsEnd(lp, p) {
					it.ele = -1
					break
				}
			} else {
				cnt := listpack.GetInteger(lp, it.ele)
				if cnt == 0 { // the master entry's terminator
					it.ele = -1
					break
				}
				p = it.ele
				for range cnt {
					p = listpack.Prev(lp, p)
				}
			}
			flagsOff := p
			flags := listpack.GetInteger(lp, p)
			p = listpack.Next(lp, p)
			id := it.master
			id.Ms += uint64(listpack.GetInteger(lp, p))
			p = listpack.Next(lp, p)
			id.Seq += uint64(listpack.GetInteger(lp, p))
			p = listpack.Next(lp, p)
			numFields := it.mfCount
			if flags&streamFlagSameFields == 0 {
				numFields = listpack.GetInteger(lp, p)
				p = listpack.Next(lp, p)
			}
			emit := !it.SkipTombstones || flags&streamFlagDeleted == 0
			if !it.rev {
				if emit && id.Compare(it.start) >= 0 {
					if id.Compare(it.end) > 0 {
						it.done = true
						return StreamID{}, false
					}
					it.flagsOff, it.entryFlags, it.numFields, it.fieldsStart = flagsOff, flags, numFields, p
					it.ele = it.skipEntry(p, flags, numFields)
					return id, true
				}
				it.ele = it.skipEntry(p, flags, numFields)
			} else {
				if emit && id.Compare(it.end) <= 0 {
					if id.Compare(it.start) < 0 {
						it.done = true
						return StreamID{}, false
					}
					it.flagsOff, it.entryFlags, it.numFields, it.fieldsStart = flagsOff, flags, numFields, p
					return id, true
				}
				it.ele = listpack.Prev(lp, flagsOff)
			}
		}
	}
}

// skipEntry returns the offset of the entry's lp-count, p being its first
// field or value.
func (it *StreamIterator) skipEntry(p int, flags, numFields int64) int {
	n := numFields
	if flags&streamFlagSameFields == 0 {
		n *= 2
	}
	for range n {
		p = listpack.Next(it.lp, p)
	}
	return p
}

// Deleted reports whether the current entry is a tombstone (only seen
// with SkipTombstones false).
func (it *StreamIterator) Deleted() bool { return it.entryFlags&streamFlagDeleted != 0 }

// NumFields is the current entry's number of field-value pairs.
func (it *StreamIterator) NumFields() int { return int(it.numFields) }

// Fields appends the current entry's field-value pairs to dst (field,
// value, ...), copies of the stream's bytes.
func (it *StreamIterator) Fields(dst [][]byte) [][]byte {
	lp := it.lp
	same := it.entryFlags&streamFlagSameFields != 0
	mf, p := it.mfStart, it.fieldsStart
	for range it.numFields {
		if same {
			dst = append(dst, listpack.AppendValue(nil, lp, mf))
			mf = listpack.Next(lp, mf)
		} else {
			dst = append(dst, listpack.AppendValue(nil, lp, p))
			p = listpack.Next(lp, p)
		}
		dst = append(dst, listpack.AppendValue(nil, lp, p))
		p = listpack.Next(lp, p)
	}
	return dst
}

// EachField calls fn with each field and value of the current entry; the
// slices are valid only during the call.
func (it *StreamIterator) EachField(fn func(field, value []byte)) {
	lp := it.lp
	same := it.entryFlags&streamFlagSameFields != 0
	mf, p := it.mfStart, it.fieldsStart
	for range it.numFields {
		var f []byte
		if same {
			f = listpack.AppendValue(it.fieldBuf[:0], lp, mf)
			mf = listpack.Next(lp, mf)
		} else {
			f = listpack.AppendValue(it.fieldBuf[:0], lp, p)
			p = listpack.Next(lp, p)
		}
		fn(f, listpack.AppendValue(it.valueBuf[:0], lp, p))
		p = listpack.Next(lp, p)
	}
}

// Remove deletes the current entry (flags it, or drops its node when it
// was the node's last live one) and re-seeks, as
// streamIteratorRemoveEntry. It does not change max_deleted_entry_id or
// first_id (the caller does, as XDEL does).
func (it *StreamIterator) Remove(current StreamID) {
	s := it.s
	s.nodesChanged()
	n := &s.nodes[it.node]
	lp := n.lp
	flags := listpack.GetInteger(lp, it.flagsOff) | streamFlagDeleted
	lp = listpack.ReplaceInteger(lp, it.flagsOff, flags)
	live := listpack.GetInteger(lp, listpack.First)
	if live == 1 {
		s.nodes = slices.Delete(s.nodes, it.node, it.node+1)
	} else {
		n.lp = listpack.ReplaceInteger(lp, listpack.First, live-1)
		n.resized(len(lp))
		lp = n.lp
		p := listpack.Next(lp, listpack.First)
		n.lp = listpack.ReplaceInteger(lp, p, listpack.GetInteger(lp, p)+1)
		n.resized(len(lp))
	}
	s.length--
	if it.rev {
		it.end = current
	} else {
		it.start = current
	}
	it.done = false
	it.seek()
}

// Exists reports whether a live entry has ID id.
func (s *Stream) Exists(id StreamID) bool {
	_, ok := s.Iter(id, id, false).Next()
	return ok
}

// Get returns the field-value pairs of the live entry id.
func (s *Stream) Get(id StreamID) ([][]byte, bool) {
	it := s.Iter(id, id, false)
	if _, ok := it.Next(); !ok {
		return nil, false
	}
	return it.Fields(nil), true
}

// Delete removes the live entry id, as streamDeleteItem (XDEL also moves
// max_deleted_entry_id and first_id: see DeleteIDs).
func (s *Stream) Delete(id StreamID) bool {
	it := s.Iter(id, id, false)
	if cur, ok := it.Next(); ok {
		it.Remove(cur)
		return true
	}
	return false
}

// DeleteIDs is XDEL: it removes the given entries and returns how many
// existed, updating max_deleted_entry_id and first_id as xdelCommand does.
func (s *Stream) DeleteIDs(ids []StreamID) int {
	deleted := 0
	firstDeleted := false
	for _, id := range ids {
		if s.Delete(id) {
			deleted++
			if s.maxDeletedID.Less(id) {
				s.maxDeletedID = id
			}
			if id == s.firstID {
				firstDeleted = true
			}
		}
	}
	if firstDeleted {
		s.firstID = s.EdgeID(true, true)
	}
	if s.length == 0 {
		s.firstID = StreamID{}
	}
	return deleted
}

// EdgeID is the first (or last) entry's ID, tombstones included unless
// skipTombstones; without one, the largest ID for the first and 0-0 for
// the last, as streamGetEdgeID.
func (s *Stream) EdgeID(first, skipTombstones bool) StreamID {
	it := s.Iter(StreamID{}, MaxStreamID, !first)
	it.SkipTombstones = skipTombstones
	if id, ok := it.Next(); ok {
		return id
	}
	if first {
		return MaxStreamID
	}
	return StreamID{}
}

// LastValidID is the last live entry's ID (0-0 without one).
func (s *Stream) LastValidID() StreamID {
	if id, ok := s.Iter(StreamID{}, MaxStreamID, true).Next(); ok {
		return id
	}
	return StreamID{}
}

// TrimStrategy is how XTRIM and XADD's trimming option chose entries.
type TrimStrategy uint8

// The trimming strategies.
const (
	TrimNone TrimStrategy = iota
	TrimMaxLen
	TrimMinID
)

// TrimArgs are a trim's parameters, as streamAddTrimArgs.
type TrimArgs struct {
	Strategy TrimStrategy
	Approx   bool
	Limit    int64 // at most this many entries (whole nodes) removed; 0 for no limit
	MaxLen   int64
	MinID    StreamID
}

// Trim removes entries from the head, as streamTrim: whole nodes while
// they are all to go, then (unless Approx) entries of the next node, and
// returns how many it removed. max_deleted_entry_id is not changed, as
// in Redis.
func (s *Stream) Trim(a TrimArgs) int64 {
	if a.Strategy == TrimNone {
		return 0
	}
	var deleted int64
	for len(s.nodes) > 0 {
		if a.Strategy == TrimMaxLen && s.length <= uint64(a.MaxLen) {
			break
		}
		n := &s.nodes[0]
		lp := n.lp
		entries := listpack.GetInteger(lp, listpack.First)
		if a.Limit != 0 && deleted+entries > a.Limit {
			break
		}
		var remove bool
		if a.Strategy == TrimMaxLen {
			remove = s.length-uint64(entries) >= uint64(a.MaxLen)
		} else {
			remove = nodeLastID(n).Less(a.MinID)
		}
		if remove {
			if s.nodeBytes != 0 {
				s.nodeBytes -= allocSize(cap(n.lp)) // the index's array stays
			}
			s.nodes = slices.Delete(s.nodes, 0, 1)
			s.length -= uint64(entries)
			deleted += entries
			continue
		}
		if a.Approx {
			break
		}
		s.nodesChanged()
		var fromNode int64
		p := listpack.Next(lp, listpack.First)
		p = listpack.Next(lp, p)
		mf := listpack.GetInteger(lp, p)
		p = listpack.Next(lp, p)
		for range mf {
			p = listpack.Next(lp, p)
		}
		p = listpack.Next(lp, p)
		for !listpack.IsEnd(lp, p) {
			flagsOff := p
			flags := listpack.GetInteger(lp, p)
			p = listpack.Next(lp, p)
			cur := n.master
			cur.Ms += uint64(listpack.GetInteger(lp, p))
			p = listpack.Next(lp, p)
			cur.Seq += uint64(listpack.GetInteger(lp, p))
			p = listpack.Next(lp, p)
			var stop bool
			if a.Strategy == TrimMaxLen {
				stop = s.length <= uint64(a.MaxLen)
			} else {
				stop = cur.Compare(a.MinID) >= 0
			}
			if stop {
				break
			}
			skip := mf
			if flags&streamFlagSameFields == 0 {
				skip = listpack.GetInteger(lp, p) * 2
				p = listpack.Next(lp, p)
			}
			for range skip {
				p = listpack.Next(lp, p)
			}
			p = listpack.Next(lp, p)
			if flags&streamFlagDeleted == 0 {
				// The flags stay one byte (0..3), so p stays right.
				lp = listpack.ReplaceInteger(lp, flagsOff, flags|streamFlagDeleted)
				fromNode++
				s.length--
			}
		}
		deleted += fromNode
		n.lp = listpack.ReplaceInteger(lp, listpack.First, entries-fromNode)
		n.resized(len(lp))
		lp = n.lp
		p = listpack.Next(lp, listpack.First)
		n.lp = listpack.ReplaceInteger(lp, p, listpack.GetInteger(lp, p)+fromNode)
		n.resized(len(lp))
		break
	}
	if s.length == 0 {
		s.firstID = StreamID{}
	} else if deleted > 0 {
		s.firstID = s.EdgeID(true, true)
	}
	return deleted
}

// nodeLastID is the ID of the node's last entry, tombstone or not, as
// lpGetEdgeStreamID.
func nodeLastID(n *streamNode) StreamID {
	lp := n.lp
	p := listpack.Prev(lp, len(lp)-1)
	cnt := listpack.GetInteger(lp, p)
	if cnt == 0 {
		return StreamID{}
	}
	for range cnt {
		p = listpack.Prev(lp, p)
	}
	p = listpack.Next(lp, p)
	id := n.master
	id.Ms += uint64(listpack.GetInteger(lp, p))
	p = listpack.Next(lp, p)
	id.Seq += uint64(listpack.GetInteger(lp, p))
	return id
}

// Clone implements Value (COPY): the nodes' bytes and the groups, with
// their PELs and consumers, copied.
func (s *Stream) Clone() Value {
	c := *s
	c.nodesChanged() // its node index and listpacks are sized anew
	c.nodes = make([]streamNode, len(s.nodes))
	for i, n := range s.nodes {
		c.nodes[i] = loadedNode(n.master, slices.Clone(n.lp))
	}
	c.groups = nil
	for _, g := range s.groups {
		c.groups = append(c.groups, g.clone())
	}
	return &c
}

// MemSize implements MemSizer: the header, the node index and the
// listpacks as allocated, and the groups.
func (s *Stream) MemSize() int {
	if s.nodeBytes == 0 {
		s.nodeBytes = s.nodeBytesFrom(0)
	}
	n := allocSize(int(unsafeSizeofStream)) + s.nodeBytes
	for _, g := range s.groups {
		n += g.memSize()
	}
	return n
}

// RaxNodes is the number of nodes of the radix tree Redis would index the
// nodes' master IDs with (XINFO STREAM's radix-tree-nodes): the rax of a
// set of keys is canonical, a node per branching point, per child of one,
// per chain of single children compressed into one node, and per key.
func (s *Stream) RaxNodes() int {
	keys := make([][16]byte, len(s.nodes))
	for i, n := range s.nodes {
		keys[i] = raxKey(n.master)
	}
	return raxCount(keys, 0)
}

// raxKey is id as Redis's raxes of stream IDs key it (streamEncodeID).
func raxKey(id StreamID) (k [16]byte) {
	binary.BigEndian.PutUint64(k[:8], id.Ms)
	binary.BigEndian.PutUint64(k[8:], id.Seq)
	return k
}

// raxCount counts the nodes under the node at depth d that keys (sorted,
// sharing their first d bytes) hang from.
func raxCount(keys [][16]byte, d int) int {
	if len(keys) == 0 {
		return 1 // an empty rax is its root
	}
	if d == 16 {
		return 1 // the key's leaf
	}
	// The bytes all keys share from d on are one compressed node.
	first, last := keys[0], keys[len(keys)-1]
	l := d
	for l < 16 && first[l] == last[l] {
		l++
	}
	if l > d {
		return 1 + raxCount(keys, l)
	}
	n := 1 // a branching node, then a node per child
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j][d] == keys[i][d] {
			j++
		}
		n += raxCount(keys[i:j], d+1)
		i = j
	}
	return n
}
