package store

import (
	"slices"
	"strings"
	"unsafe"
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
// acknowledged.
type StreamNACK struct {
	DeliveryTime  int64 // unix ms of the last delivery
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

// PEL is a pending entries list: NACKs ordered by entry ID. It is a sorted
// slice: entries are delivered in ID order, so inserts are appends in the
// common case.
type PEL struct {
	ids   []StreamID
	nacks []*StreamNACK
}

// Len is the number of pending entries.
func (p *PEL) Len() int { return len(p.ids) }

// At returns the i-th pending entry in ID order.
func (p *PEL) At(i int) (StreamID, *StreamNACK) { return p.ids[i], p.nacks[i] }

// Seek is the index of the first pending entry whose ID is at least id
// (Len if there is none).
func (p *PEL) Seek(id StreamID) int {
	i, _ := slices.BinarySearchFunc(p.ids, id, StreamID.Compare)
	return i
}

// Get returns the NACK of id, nil if it is not pending.
func (p *PEL) Get(id StreamID) *StreamNACK {
	if i, ok := slices.BinarySearchFunc(p.ids, id, StreamID.Compare); ok {
		return p.nacks[i]
	}
	return nil
}

// Set makes id pending with n (replacing any NACK it had), and reports
// whether it was new.
func (p *PEL) Set(id StreamID, n *StreamNACK) bool {
	if k := len(p.ids); k == 0 || p.ids[k-1].Less(id) {
		p.ids, p.nacks = append(p.ids, id), append(p.nacks, n)
		return true
	}
	i, ok := slices.BinarySearchFunc(p.ids, id, StreamID.Compare)
	if ok {
		p.nacks[i] = n
		return false
	}
	p.ids, p.nacks = slices.Insert(p.ids, i, id), slices.Insert(p.nacks, i, n)
	return true
}

// Delete removes id and reports whether it was pending.
func (p *PEL) Delete(id StreamID) bool {
	i, ok := slices.BinarySearchFunc(p.ids, id, StreamID.Compare)
	if !ok {
		return false
	}
	p.ids, p.nacks = slices.Delete(p.ids, i, i+1), slices.Delete(p.nacks, i, i+1)
	return true
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
	for i := range n {
		id, _ := c.PEL.At(i)
		g.PEL.Delete(id)
	}
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
	nacks := make(map[*StreamNACK]*StreamNACK, g.PEL.Len())
	c.PEL.ids = slices.Clone(g.PEL.ids)
	c.PEL.nacks = make([]*StreamNACK, len(g.PEL.nacks))
	for i, n := range g.PEL.nacks {
		nn := &StreamNACK{DeliveryTime: n.DeliveryTime, DeliveryCount: n.DeliveryCount, Consumer: consumers[n.Consumer]}
		nacks[n] = nn
		c.PEL.nacks[i] = nn
	}
	for _, sc := range g.consumers {
		nc := consumers[sc]
		nc.PEL.ids = slices.Clone(sc.PEL.ids)
		nc.PEL.nacks = make([]*StreamNACK, len(sc.PEL.nacks))
		for i, n := range sc.PEL.nacks {
			nc.PEL.nacks[i] = nacks[n]
		}
	}
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

func (p *PEL) memSize() int { return allocSize(cap(p.ids)*16) + allocSizeScan(cap(p.nacks)*8) }

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
