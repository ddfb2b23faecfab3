package rdb

import (
	"encoding/binary"
	"slices"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/store"
)

// Streams as Redis 7.0 writes them (RDB_TYPE_STREAM_LISTPACKS_2): the
// nodes, each its 16-byte big-endian master ID and its listpack; the
// length, last ID, first ID, max deleted ID and entries added; then the
// groups, each its name, last ID, entries_read, its PEL (raw 128-bit IDs
// with delivery time and count) and its consumers (name, seen time, the
// IDs of their PEL). Loading also reads RDB_TYPE_STREAM_LISTPACKS (6.x),
// whose missing counters Redis derives.

func appendStreamID(b []byte, id store.StreamID) []byte {
	b = binary.BigEndian.AppendUint64(b, id.Ms)
	return binary.BigEndian.AppendUint64(b, id.Seq)
}

func appendStream(b []byte, s *store.Stream, compress bool) []byte {
	b = appendLen(b, uint64(s.NodeCount()))
	var key [16]byte
	for i := range s.NodeCount() {
		master, lp := s.Node(i)
		b = appendString(b, appendStreamID(key[:0], master), compress)
		b = appendString(b, lp, compress)
	}
	b = appendLen(b, s.Len())
	last, first, maxDel := s.LastID(), s.FirstID(), s.MaxDeletedID()
	b = appendLen(appendLen(b, last.Ms), last.Seq)
	b = appendLen(appendLen(b, first.Ms), first.Seq)
	b = appendLen(appendLen(b, maxDel.Ms), maxDel.Seq)
	b = appendLen(b, s.EntriesAdded())
	groups := s.Groups()
	b = appendLen(b, uint64(len(groups)))
	for _, g := range groups {
		b = appendString(b, g.Name, compress)
		b = appendLen(appendLen(b, g.LastID.Ms), g.LastID.Seq)
		b = appendLen(b, uint64(g.EntriesRead)) // -1 as 2^64-1, as rdbSaveLen of a long long
		b = appendLen(b, uint64(g.PEL.Len()))
		g.PEL.Each(func(nack *store.StreamNACK) bool {
			b = appendStreamID(b, nack.ID)
			b = binary.LittleEndian.AppendUint64(b, uint64(nack.DeliveryTime))
			b = appendLen(b, nack.DeliveryCount)
			return true
		})
		consumers := g.Consumers()
		b = appendLen(b, uint64(len(consumers)))
		for _, c := range consumers {
			b = appendString(b, c.Name, compress)
			b = binary.LittleEndian.AppendUint64(b, uint64(c.SeenTime))
			b = appendLen(b, uint64(c.PEL.Len()))
			c.PEL.Each(func(nack *store.StreamNACK) bool {
				b = appendStreamID(b, nack.ID)
				return true
			})
		}
	}
	return b
}

func (r *reader) streamID() (store.StreamID, error) {
	raw, err := r.fixed(16)
	if err != nil {
		return store.StreamID{}, err
	}
	return store.StreamID{Ms: binary.BigEndian.Uint64(raw), Seq: binary.BigEndian.Uint64(raw[8:])}, nil
}

func (r *reader) lenID() (store.StreamID, error) {
	ms, err := r.plainLength()
	if err != nil {
		return store.StreamID{}, err
	}
	seq, err := r.plainLength()
	return store.StreamID{Ms: ms, Seq: seq}, err
}

func (r *reader) millis() (int64, error) {
	raw, err := r.fixed(8)
	if err != nil {
		return 0, err
	}
	return int64(binary.LittleEndian.Uint64(raw)), nil
}

func (r *reader) stream(t byte) (store.Value, error) {
	s := store.NewStream()
	nodes, err := r.plainLength()
	if err != nil {
		return nil, err
	}
	type node struct {
		master store.StreamID
		lp     []byte
	}
	var loaded []node
	for range nodes {
		key, err := r.string()
		if err != nil {
			return nil, err
		}
		if len(key) != 16 {
			return nil, r.corrupt("Stream node key entry is not the size of a stream ID")
		}
		lp, err := r.string()
		if err != nil {
			return nil, err
		}
		// Always checked deeply (Redis does with sanitize-dump-payload):
		// the iterator trusts a node's layout.
		empty, ok := validStreamListpack(lp)
		if !ok {
			return nil, r.corrupt("Stream listpack integrity check failed.")
		}
		if empty {
			return nil, r.corrupt("Empty listpack inside stream")
		}
		loaded = append(loaded, node{store.StreamID{Ms: binary.BigEndian.Uint64(key), Seq: binary.BigEndian.Uint64(key[8:])}, lp})
	}
	slices.SortStableFunc(loaded, func(a, b node) int { return a.master.Compare(b.master) })
	for i, n := range loaded {
		if i > 0 && loaded[i-1].master == n.master {
			return nil, r.corrupt("Listpack re-added with existing key")
		}
		s.AppendNode(n.master, n.lp)
	}
	length, err := r.plainLength()
	if err != nil {
		return nil, err
	}
	s.SetLen(length)
	last, err := r.lenID()
	if err != nil {
		return nil, err
	}
	s.SetLastID(last)
	if t == typeStreamListpacks2 {
		first, err := r.lenID()
		if err != nil {
			return nil, err
		}
		maxDel, err := r.lenID()
		if err != nil {
			return nil, err
		}
		added, err := r.plainLength()
		if err != nil {
			return nil, err
		}
		s.SetFirstID(first)
		s.SetMaxDeletedID(maxDel)
		s.SetEntriesAdded(added)
	} else {
		s.SetEntriesAdded(length)
		s.SetFirstID(s.EdgeID(true, true))
	}
	if length > 0 && len(loaded) == 0 {
		return nil, r.corrupt("Stream length inconsistent with rax entries")
	}
	groups, err := r.plainLength()
	if err != nil {
		return nil, err
	}
	for range groups {
		name, err := r.string()
		if err != nil {
			return nil, err
		}
		lastID, err := r.lenID()
		if err != nil {
			return nil, err
		}
		var read int64
		if t == typeStreamListpacks2 {
			n, err := r.plainLength()
			if err != nil {
				return nil, err
			}
			read = int64(n)
		} else {
			read = s.EstimateDistance(lastID)
		}
		g := s.CreateGroup(string(name), lastID, read)
		if g == nil {
			return nil, r.corrupt("Duplicated consumer group name %s", name)
		}
		pending, err := r.plainLength()
		if err != nil {
			return nil, err
		}
		for range pending {
			id, err := r.streamID()
			if err != nil {
				return nil, err
			}
			at, err := r.millis()
			if err != nil {
				return nil, err
			}
			count, err := r.plainLength()
			if err != nil {
				return nil, err
			}
			if g.PEL.Get(id) != nil {
				return nil, r.corrupt("Duplicated global PEL entry loading stream consumer group")
			}
			g.PEL.Set(id, &store.StreamNACK{DeliveryTime: at, DeliveryCount: count})
		}
		consumers, err := r.plainLength()
		if err != nil {
			return nil, err
		}
		for range consumers {
			cname, err := r.string()
			if err != nil {
				return nil, err
			}
			c := g.CreateConsumer(string(cname), 0)
			if c == nil {
				return nil, r.corrupt("Duplicate stream consumer detected.")
			}
			if c.SeenTime, err = r.millis(); err != nil {
				return nil, err
			}
			owned, err := r.plainLength()
			if err != nil {
				return nil, err
			}
			for range owned {
				id, err := r.streamID()
				if err != nil {
					return nil, err
				}
				nack := g.PEL.Get(id)
				if nack == nil {
					return nil, r.corrupt("Consumer entry not found in group global PEL")
				}
				if c.PEL.Get(id) != nil {
					return nil, r.corrupt("Duplicated consumer PEL entry  loading a stream consumer group")
				}
				nack.Consumer = c
				c.PEL.Set(id, nack)
			}
		}
		// Every pending entry needs its consumer (Redis checks with deep
		// sanitization; floodgate's replies would dereference it).
		orphan := false
		g.PEL.Each(func(nack *store.StreamNACK) bool {
			orphan = nack.Consumer == nil
			return !orphan
		})
		if orphan {
			return nil, r.corrupt("Stream CG PEL entry without consumer")
		}
	}
	return s, nil
}

// validStreamListpack is streamValidateListpackIntegrity in its deep form:
// a valid listpack whose master entry and entries are laid out as a
// stream node's, every count matching. empty reports a listpack with no
// entry at all.
func validStreamListpack(lp []byte) (empty, ok bool) {
	entries, err := listpackEntries(lp)
	if err != nil {
		return false, false
	}
	if len(entries) == 0 {
		return true, true
	}
	p := 0
	next := func() ([]byte, bool) {
		if p >= len(entries) {
			return nil, false
		}
		p++
		return entries[p-1], true
	}
	integer := func() (int64, bool) {
		e, ok := next()
		if !ok {
			return 0, false
		}
		return number.ParseInt(e)
	}
	live, ok1 := integer()
	deleted, ok2 := integer()
	masterFields, ok3 := integer()
	if !ok1 || !ok2 || !ok3 || live < 0 || deleted < 0 || masterFields < 0 || masterFields > int64(len(entries)) {
		return false, false
	}
	for range masterFields {
		if _, ok := next(); !ok {
			return false, false
		}
	}
	if zero, ok := integer(); !ok || zero != 0 {
		return false, false
	}
	for n := live + deleted; n > 0; n-- {
		flags, ok := integer()
		if !ok {
			return false, false
		}
		if _, ok := integer(); !ok {
			return false, false
		}
		if _, ok := integer(); !ok {
			return false, false
		}
		fields, extra := masterFields, int64(3)
		if flags&2 == 0 {
			if fields, ok = integer(); !ok || fields < 0 || fields > int64(len(entries)) {
				return false, false
			}
			for range fields {
				if _, ok := next(); !ok {
					return false, false
				}
			}
			extra += fields + 1
		}
		for range fields {
			if _, ok := next(); !ok {
				return false, false
			}
		}
		if count, ok := integer(); !ok || count != fields+extra {
			return false, false
		}
	}
	return false, p == len(entries)
}
