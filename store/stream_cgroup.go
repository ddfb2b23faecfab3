package store

import (
	"slices"
	"strings"
	"unsafe"

	"github.com/tidwall/btree"
)

// The consumer-group half of the stream model, as Redis 7.0's stream.h has
// it: a stream's groups by name, each with its last delivered ID, its
// entries_read counter, its pending entries list (ID → NACK) and its
// consumers by name, each consumer with its seen time and its own PEL
// whose NACKs are the group PEL's (shared, as in Redis). Redis 7.0 keeps
// only a consumer's seen_time (active-time came in 7.2). The commands
// (XGROUP, XREADGROUP, XACK, ...) build on these methods.

// StreamInvalidEntriesRead is SCG_INVALID_ENTRIES_READ: a group's
// entries_read when it is not known.
const StreamInvalidEntriesRead = -1

// StreamNACK is a pending entry: delivered to a consumer and not yet
// acknowledged. The group's PEL and its consumer's share it.
type StreamNACK struct {
	ID            StreamID // the entry's (set by PEL.Set)
	DeliveryTime  int64    // unix ms of the last delivery
	DeliveryCount uint64
	Consumer      *StreamConsumer // who it was last delivered to
}

// StreamConsumer is a consumer of a group.
type StreamConsumer struct {
	Name     string
	SeenTime int64 // unix ms it last read or claimed
	PEL      PEL   // its pending entries; the NACKs are the group PEL's
}

// StreamGroup is a consumer group.
type StreamGroup struct {
	Name        string
	LastID      StreamID
	EntriesRead int64 // StreamInvalidEntriesRead when not known
	PEL         PEL
	consumers   []*StreamConsumer // ordered by name
}

// PEL is a pending entries list: NACKs ordered by entry ID, in a B-tree
// (Redis's is a rax). A sorted slice made XACK of the oldest entries of a
// large PEL, the usual order of acknowledgements, move the whole slice on
// every ack; the tree makes the append of XREADGROUP and the delete of
// XACK both O(log n). The zero PEL is empty; its tree comes with the
// first entry.
type PEL struct {
	tree *btree.BTree // of *StreamNACK by ID
}

func nackLess(a, b any) bool { return a.(*StreamNACK).ID.Less(b.(*StreamNACK).ID) }

// probe is the key a lookup by ID searches with.
func probe(id StreamID) *StreamNACK { return &StreamNACK{ID: id} }

// Len is the number of pending entries.
func (p *PEL) Len() int {
	if p.tree == nil {
		return 0
	}
	return p.tree.Len()
}

// At returns the i-th pending entry in ID order.
func (p *PEL) At(i int) (StreamID, *StreamNACK) {
	n := p.tree.GetAt(i).(*StreamNACK)
	return n.ID, n
}

// Each calls fn with every pending entry in ID order while it returns
// true: a walk of the tree, where At costs a descent per entry (the RDB
// writer and the AOF rewrite visit whole PELs). fn must not change the PEL.
func (p *PEL) Each(fn func(n *StreamNACK) bool) {
	if p.tree == nil {
		return
	}
	p.tree.Ascend(nil, func(item any) bool { return fn(item.(*StreamNACK)) })
}

// Seek returns the first pending entry whose ID is at least id, nil if
// there is none.
func (p *PEL) Seek(id StreamID) *StreamNACK {
	var found *StreamNACK
	p.Ascend(id, func(n *StreamNACK) bool {
		found = n
		return false
	})
	return found
}

// Ascend calls fn with the pending entries from id on, in ID order, while
// it returns true. fn must not change the PEL.
func (p *PEL) Ascend(id StreamID, fn func(n *StreamNACK) bool) {
	if p.tree == nil {
		return
	}
	p.tree.Ascend(probe(id), func(item any) bool { return fn(item.(*StreamNACK)) })
}

// First and Last are the pending entries with the lowest and highest ID,
// nil when there is none.
func (p *PEL) First() *StreamNACK { return p.edge(p.tree.Min) }

// Last: see First.
func (p *PEL) Last() *StreamNACK { return p.edge(p.tree.Max) }

func (p *PEL) edge(get func() any) *StreamNACK {
	if p.tree == nil || p.tree.Len() == 0 {
		return nil
	}
	return get().(*StreamNACK)
}

// Get returns the NACK of id, nil if it is not pending.
func (p *PEL) Get(id StreamID) *StreamNACK {
	if p.tree == nil {
		return nil
	}
	if n := p.tree.Get(probe(id)); n != nil {
		return n.(*StreamNACK)
	}
	return nil
}

// Set makes id pending with n (replacing any NACK it had), and reports
// whether it was new. It sets n.ID.
func (p *PEL) Set(id StreamID, n *StreamNACK) bool {
	if p.tree == nil {
		p.tree = btree.NewNonConcurrent(nackLess)
	}
	n.ID = id
	return p.tree.Set(n) == nil
}

// Delete removes id and reports whether it was pending.
func (p *PEL) Delete(id StreamID) bool {
	return p.tree != nil && p.tree.Delete(probe(id)) != nil
}

// load appends n, whose ID is above every pending one (clone).
func (p *PEL) load(n *StreamNACK) {
	if p.tree == nil {
		p.tree = btree.NewNonConcurrent(nackLess)
	}
	p.tree.Load(n)
}

// Groups returns the stream's groups ordered by name. The caller must not
// change the slice.
func (s *Stream) Groups() []*StreamGroup { return s.groups }

// Group returns the group called name, nil if there is none.
func (s *Stream) Group(name string) *StreamGroup {
	if i, ok := slices.BinarySearchFunc(s.groups, name, func(g *StreamGroup, n string) int { return strings.Compare(g.Name, n) }); ok {
		return s.groups[i]
	}
	return nil
}

// CreateGroup adds a group, as streamCreateCG; nil if one of that name
// exists.
func (s *Stream) CreateGroup(name string, lastID StreamID, entriesRead int64) *StreamGroup {
	i, ok := slices.BinarySearchFunc(s.groups, name, func(g *StreamGroup, n string) int { return strings.Compare(g.Name, n) })
	if ok {
		return nil
	}
	g := &StreamGroup{Name: name, LastID: lastID, EntriesRead: entriesRead}
	s.groups = slices.Insert(s.groups, i, g)
	return g
}

// DestroyGroup removes the group called name and reports whether it
// existed.
func (s *Stream) DestroyGroup(name string) bool {
	i, ok := slices.BinarySearchFunc(s.groups, name, func(g *StreamGroup, n string) int { return strings.Compare(g.Name, n) })
	if !ok {
		return false
	}
	s.groups = slices.Delete(s.groups, i, i+1)
	return true
}

// Consumers returns the group's consumers ordered by name. The caller
// must not change the slice.
func (g *StreamGroup) Consumers() []*StreamConsumer { return g.consumers }

func consumerCmp(c *StreamConsumer, n string) int { return strings.Compare(c.Name, n) }

// Consumer returns the consumer called name, nil if there is none (the
// caller refreshes SeenTime where Redis's streamLookupConsumer does).
func (g *StreamGroup) Consumer(name string) *StreamConsumer {
	if i, ok := slices.BinarySearchFunc(g.consumers, name, consumerCmp); ok {
		return g.consumers[i]
	}
	return nil
}

// CreateConsumer adds a consumer seen at now, as streamCreateConsumer;
// nil if one of that name exists.
func (g *StreamGroup) CreateConsumer(name string, now int64) *StreamConsumer {
	i, ok := slices.BinarySearchFunc(g.consumers, name, consumerCmp)
	if ok {
		return nil
	}
	c := &StreamConsumer{Name: name, SeenTime: now}
	g.consumers = slices.Insert(g.consumers, i, c)
	return c
}

// DeleteConsumer removes the consumer and its pending entries from the
// group PEL, as streamDelConsumer, and returns how many it had pending.
func (g *StreamGroup) DeleteConsumer(c *StreamConsumer) int {
	n := c.PEL.Len()
	c.PEL.Ascend(StreamID{}, func(nack *StreamNACK) bool {
		g.PEL.Delete(nack.ID)
		return true
	})
	if i, ok := slices.BinarySearchFunc(g.consumers, c.Name, consumerCmp); ok && g.consumers[i] == c {
		g.consumers = slices.Delete(g.consumers, i, i+1)
	}
	return n
}

// clone deep-copies the group: its NACKs are copied once and shared again
// between the copies' group and consumer PELs.
func (g *StreamGroup) clone() *StreamGroup {
	c := &StreamGroup{Name: g.Name, LastID: g.LastID, EntriesRead: g.EntriesRead}
	consumers := make(map[*StreamConsumer]*StreamConsumer, len(g.consumers))
	for _, sc := range g.consumers {
		nc := &StreamConsumer{Name: sc.Name, SeenTime: sc.SeenTime}
		consumers[sc] = nc
		c.consumers = append(c.consumers, nc)
	}
	g.PEL.Ascend(StreamID{}, func(n *StreamNACK) bool {
		nn := &StreamNACK{ID: n.ID, DeliveryTime: n.DeliveryTime, DeliveryCount: n.DeliveryCount}
		c.PEL.load(nn)
		if nc := consumers[n.Consumer]; nc != nil {
			nn.Consumer = nc
			nc.PEL.load(nn)
		}
		return true
	})
	return c
}

const (
	unsafeSizeofStream = unsafe.Sizeof(Stream{})
	unsafeSizeofNode   = unsafe.Sizeof(streamNode{})
)

// memSize is the group's heap: itself, its name, its PEL (one NACK per
// entry) and its consumers with theirs.
func (g *StreamGroup) memSize() int {
	n := allocSize(int(unsafe.Sizeof(StreamGroup{}))) + allocSize(len(g.Name)) + g.PEL.memSize()
	n += g.PEL.Len() * allocSize(int(unsafe.Sizeof(StreamNACK{})))
	n += allocSizeScan(cap(g.consumers) * 8)
	for _, c := range g.consumers {
		n += allocSize(int(unsafe.Sizeof(StreamConsumer{}))) + allocSize(len(c.Name)) + c.PEL.memSize()
	}
	return n
}

// pelTreeHeader is what an empty tree costs: the tree, its mutex and its
// copy-on-write marker.
const pelTreeHeader = 96 + 32 + 8

// memSize estimates the tree: a 16-byte interface per entry, each node 48
// bytes besides its items. A PEL grows at its end (XREADGROUP ">"), and a
// full node of the tree splits into two of 127 items with arrays of
// exactly 127, the left one never to grow again: its nodes are full, not
// the 3/4 of a single node grown by append (which overcounted a PEL of
// 10,000 by 9%).
func (p *PEL) memSize() int {
	if p.tree == nil {
		return 0
	}
	n := p.tree.Len()
	if n < 255 {
		// One node, its array grown by append: 3/4 full on average.
		return pelTreeHeader + 48 + allocSizeScan(n*16*4/3)
	}
	nodes := n/127 + 1
	return pelTreeHeader + nodes*48 + allocSizeScan(n*16/nodes)*nodes
}

// RangeHasTombstones reports whether max_deleted_entry_id lies in start..
// end (nil for the open ends), as streamRangeHasTombstones.
func (s *Stream) RangeHasTombstones(start, end *StreamID) bool {
	if s.length == 0 || s.maxDeletedID.IsZero() || s.firstID.Compare(s.maxDeletedID) > 0 {
		return false
	}
	lo, hi := StreamID{}, MaxStreamID
	if start != nil {
		lo = *start
	}
	if end != nil {
		hi = *end
	}
	return lo.Compare(s.maxDeletedID) <= 0 && s.maxDeletedID.Compare(hi) <= 0
}

// EstimateDistance is the logical read counter of id (its distance from
// the first entry ever added), or StreamInvalidEntriesRead when it cannot
// be known, as streamEstimateDistanceFromFirstEverEntry.
func (s *Stream) EstimateDistance(id StreamID) int64 {
	if s.entriesAdded == 0 {
		return 0
	}
	if s.length == 0 && id.Compare(s.lastID) < 1 {
		return int64(s.entriesAdded)
	}
	switch id.Compare(s.lastID) {
	case 0:
		return int64(s.entriesAdded)
	case 1:
		return StreamInvalidEntriesRead
	}
	if s.maxDeletedID.IsZero() || s.maxDeletedID.Less(s.firstID) {
		switch id.Compare(s.firstID) {
		case -1:
			return int64(s.entriesAdded - s.length)
		case 0:
			return int64(s.entriesAdded - s.length + 1)
		}
	}
	return StreamInvalidEntriesRead
}

// Lag is the group's lag, false when it cannot be known (a null reply),
// as streamReplyWithCGLag.
func (s *Stream) Lag(g *StreamGroup) (int64, bool) {
	switch {
	case s.entriesAdded == 0:
		return 0, true
	case g.EntriesRead != StreamInvalidEntriesRead && !s.RangeHasTombstones(&g.LastID, nil):
		return int64(s.entriesAdded) - g.EntriesRead, true
	}
	if read := s.EstimateDistance(g.LastID); read != StreamInvalidEntriesRead {
		return int64(s.entriesAdded) - read, true
	}
	return 0, false
}

// Deliver records a new delivery of entry id to c at now, as
// streamReplyWithRange does for an XREADGROUP ">": a new NACK in the
// group's and c's PELs, or, when the entry was pending already (XGROUP
// SETID moved the group back), that NACK moved to c with its count reset
// to 1.
func (g *StreamGroup) Deliver(id StreamID, c *StreamConsumer, now int64) *StreamNACK {
	if n := g.PEL.Get(id); n != nil {
		if n.Consumer != nil {
			n.Consumer.PEL.Delete(id)
		}
		n.Consumer, n.DeliveryTime, n.DeliveryCount = c, now, 1
		c.PEL.Set(id, n)
		return n
	}
	n := &StreamNACK{DeliveryTime: now, DeliveryCount: 1, Consumer: c}
	g.PEL.Set(id, n)
	c.PEL.Set(id, n)
	return n
}

// Ack removes id from the group's PEL and its consumer's, and reports
// whether it was pending (XACK).
func (g *StreamGroup) Ack(id StreamID) bool {
	n := g.PEL.Get(id)
	if n == nil {
		return false
	}
	g.PEL.Delete(id)
	if n.Consumer != nil {
		n.Consumer.PEL.Delete(id)
	}
	return true
}

// Force makes id pending with no consumer yet, delivered once at now
// (streamCreateNACK), as XCLAIM's FORCE does before the claim gives it
// one.
func (g *StreamGroup) Force(id StreamID, now int64) *StreamNACK {
	n := &StreamNACK{DeliveryTime: now, DeliveryCount: 1}
	g.PEL.Set(id, n)
	return n
}

// Claim moves the pending entry n to c (XCLAIM, XAUTOCLAIM).
func (g *StreamGroup) Claim(n *StreamNACK, c *StreamConsumer) {
	if n.Consumer == c {
		return
	}
	if n.Consumer != nil {
		n.Consumer.PEL.Delete(n.ID)
	}
	c.PEL.Set(n.ID, n)
	n.Consumer = c
}

// Delivered moves the group's last delivered ID to id, an entry just read
// past it, and its entries_read counter along, as streamReplyWithRange:
// one more when the counter is valid and no tombstone lies ahead, else
// the estimate for id.
func (s *Stream) Delivered(g *StreamGroup, id StreamID) {
	if id.Compare(g.LastID) <= 0 {
		return
	}
	if g.EntriesRead != StreamInvalidEntriesRead && !s.RangeHasTombstones(&id, nil) {
		g.EntriesRead++
	} else if s.entriesAdded != 0 {
		g.EntriesRead = s.EstimateDistance(id)
	}
	g.LastID = id
}
