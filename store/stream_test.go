package store

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
)

func collect(s *Stream, start, end StreamID, rev bool) []string {
	var out []string
	it := s.Iter(start, end, rev)
	for {
		id, ok := it.Next()
		if !ok {
			return out
		}
		out = append(out, fmt.Sprintf("%s%q", id, it.Fields(nil)))
	}
}

func TestStreamAppendRange(t *testing.T) {
	s := NewStream()
	lim := StreamLimits{NodeMaxBytes: 4096, NodeMaxEntries: 3}
	for i := 1; i <= 7; i++ {
		fv := [][]byte{[]byte("f"), []byte(fmt.Sprint(i * 1000))}
		if i == 5 {
			fv = [][]byte{[]byte("g"), []byte("x"), []byte("h"), []byte("-12")}
		}
		s.Append(StreamID{uint64(i), 0}, fv, lim)
	}
	if s.NodeCount() != 3 || s.Len() != 7 {
		t.Fatalf("nodes %d len %d", s.NodeCount(), s.Len())
	}
	fwd := collect(s, StreamID{2, 0}, StreamID{5, 0}, false)
	want := `[2-0["f" "2000"] 3-0["f" "3000"] 4-0["f" "4000"] 5-0["g" "x" "h" "-12"]]`
	if fmt.Sprint(fwd) != want {
		t.Fatalf("forward %v", fwd)
	}
	rev := collect(s, StreamID{3, 0}, StreamID{6, 0}, true)
	if fmt.Sprint(rev) != `[6-0["f" "6000"] 5-0["g" "x" "h" "-12"] 4-0["f" "4000"] 3-0["f" "3000"]]` {
		t.Fatalf("reverse %v", rev)
	}
	if n := s.DeleteIDs([]StreamID{{1, 0}, {4, 0}, {9, 0}}); n != 2 {
		t.Fatalf("deleted %d", n)
	}
	if s.FirstID() != (StreamID{2, 0}) || s.MaxDeletedID() != (StreamID{4, 0}) {
		t.Fatalf("first %v maxdel %v", s.FirstID(), s.MaxDeletedID())
	}
	if got := fmt.Sprint(collect(s, StreamID{}, MaxStreamID, true)); got != `[7-0["f" "7000"] 6-0["f" "6000"] 5-0["g" "x" "h" "-12"] 3-0["f" "3000"] 2-0["f" "2000"]]` {
		t.Fatalf("after delete %v", got)
	}
	// Approximate: the first node (2 live of 3) goes: the rest keeps 3.
	if n := s.Trim(TrimArgs{Strategy: TrimMaxLen, Approx: true, MaxLen: 3}); n != 2 || s.Len() != 3 || s.NodeCount() != 2 {
		t.Fatalf("approx trim %d, len %d, nodes %d", n, s.Len(), s.NodeCount())
	}
	if n := s.Trim(TrimArgs{Strategy: TrimMinID, MinID: StreamID{6, 0}}); n != 1 || s.FirstID() != (StreamID{6, 0}) {
		t.Fatalf("minid trim %d first %v", n, s.FirstID())
	}
	c := s.Clone().(*Stream)
	c.Delete(StreamID{6, 0})
	if s.Len() != 2 || c.Len() != 1 {
		t.Fatal("clone shares entries")
	}
}

// A long stream's fill allocates about what it keeps: a node sealed into a
// copy of its exact size leaves its 4 KB buffer to the next node, where
// freed it doubled the fill's allocation (garbage that grew the heap past
// its live size until a collection), and the sealed copies keep their
// entries.
func TestStreamFillAllocatesItsNodes(t *testing.T) {
	lim := StreamLimits{NodeMaxBytes: 4096, NodeMaxEntries: 100}
	record := func(i int) [][]byte {
		return [][]byte{[]byte("user"), []byte(fmt.Sprintf("u%06d", i)), []byte("action"), []byte("allow"), []byte("cost"), []byte("1")}
	}
	const n = 10000
	records := make([][][]byte, n+1)
	for i := 1; i <= n; i++ {
		records[i] = record(i)
	}
	// The fewest bytes of a few fills (fewestOf: TotalAlloc is the whole
	// process's); s is the last one's.
	var s *Stream
	allocated := fewestOf(func() uint64 {
		s = NewStream()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := 1; i <= n; i++ {
			s.Append(StreamID{uint64(i), 0}, records[i], lim)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	})
	if live := uint64(s.MemSize()); allocated > live+live/8 {
		t.Errorf("a fill of %d entries (%d nodes) allocated %d bytes for %d live", n, s.NodeCount(), allocated, live)
	}
	it := s.Iter(StreamID{}, MaxStreamID, false)
	for i := 1; ; i++ {
		id, ok := it.Next()
		if !ok {
			if i != n+1 {
				t.Fatalf("%d entries read back, want %d", i-1, n)
			}
			break
		}
		if want := fmt.Sprintf("%q", record(i)); id != (StreamID{uint64(i), 0}) || fmt.Sprintf("%q", it.Fields(nil)) != want {
			t.Fatalf("entry %d: %v %q, want %s", i, id, it.Fields(nil), want)
		}
	}
}

// An entry that outgrows its node (XADD of many fields) grows it once, not
// append after append: a new node's master entry, then an entry with
// fields of its own, allocate the node twice at most (the first node's
// buffer and the one the second entry grows it into; 5.3 times, appended
// one element at a time).
func TestStreamBigEntryAllocatesItsNode(t *testing.T) {
	redistest.SkipUnderRace(t) // the race detector's allocator counts differently
	const fields = 50000
	fv := make([][]byte, 0, 2*fields)
	other := make([][]byte, 0, 2*fields)
	for i := range fields {
		fv = append(fv, []byte(fmt.Sprintf("field%d", i)), []byte(fmt.Sprint(i)))
		other = append(other, []byte(fmt.Sprintf("other%d", i)), []byte("v"))
	}
	lim := StreamLimits{NodeMaxBytes: 0, NodeMaxEntries: 0}
	var s *Stream
	allocated := fewestOf(func() uint64 {
		s = NewStream()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s.Append(StreamID{1, 0}, fv, lim)
		s.Append(StreamID{2, 0}, other, lim)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	})
	if live := uint64(s.MemSize()); allocated > 2*live {
		t.Errorf("two entries of %d fields (%d nodes) allocated %d bytes for %d live", fields, s.NodeCount(), allocated, live)
	}
	it := s.Iter(StreamID{}, MaxStreamID, false)
	for _, want := range [][][]byte{fv, other} {
		if _, ok := it.Next(); !ok {
			t.Fatal("an entry is missing")
		}
		if got := it.Fields(nil); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Fatalf("an entry read back with %d fields and values, want %d", len(got), len(want))
		}
	}
}

func TestStreamGroupsModel(t *testing.T) {
	s := NewStream()
	g := s.CreateGroup("g2", StreamID{}, 0)
	if s.CreateGroup("g2", StreamID{}, 0) != nil || s.CreateGroup("g1", StreamID{}, -1) == nil {
		t.Fatal("create")
	}
	if s.Groups()[0].Name != "g1" || s.Group("g2") != g {
		t.Fatal("order")
	}
	c := g.CreateConsumer("bob", 5)
	for _, id := range []StreamID{{3, 0}, {1, 0}, {2, 0}} {
		n := &StreamNACK{DeliveryTime: 5, DeliveryCount: 1, Consumer: c}
		g.PEL.Set(id, n)
		c.PEL.Set(id, n)
	}
	if id, _ := g.PEL.At(0); id != (StreamID{1, 0}) || g.PEL.Seek(StreamID{2, 5}).ID != (StreamID{3, 0}) || g.PEL.Seek(StreamID{4, 0}) != nil {
		t.Fatal("pel order")
	}
	cl := s.Clone().(*Stream)
	if g.DeleteConsumer(c) != 3 || g.PEL.Len() != 0 {
		t.Fatal("delconsumer")
	}
	cg := cl.Group("g2")
	if cg.PEL.Len() != 3 || cg.Consumer("bob").PEL.Get(StreamID{2, 0}) != cg.PEL.Get(StreamID{2, 0}) {
		t.Fatal("clone of groups")
	}
}

// TestStreamMemSizeFollowsNodes: MemSize caches the nodes' bytes, and
// every change of the nodes must show in it as in a size computed anew.
func TestStreamMemSizeFollowsNodes(t *testing.T) {
	lim := StreamLimits{NodeMaxBytes: 4096, NodeMaxEntries: 10}
	s := NewStream()
	fresh := func() int {
		c := *s
		c.nodesChanged()
		return c.MemSize()
	}
	next := uint64(1)
	add := func(n int) {
		for range n {
			s.Append(StreamID{Ms: next}, [][]byte{[]byte("f"), []byte("a longer value to fill the node")}, lim)
			next++
		}
	}
	steps := []struct {
		name string
		do   func()
	}{
		{"append into the tail", func() { add(3) }},
		{"append new nodes", func() { add(40) }},
		{"delete one entry", func() { s.Delete(StreamID{Ms: 5}) }},
		{"delete a node's entries", func() {
			for ms := uint64(11); ms <= 20; ms++ {
				s.Delete(StreamID{Ms: ms})
			}
		}},
		{"trim", func() { s.Trim(TrimArgs{Strategy: TrimMaxLen, MaxLen: 7}) }},
		{"append new nodes after a trim", func() { add(40) }},
		{"trim whole nodes", func() { s.Trim(TrimArgs{Strategy: TrimMaxLen, Approx: true, MaxLen: 15}) }},
		{"trim nothing", func() { s.Trim(TrimArgs{Strategy: TrimMaxLen, Approx: true, MaxLen: 1000}) }},
		{"trim every node", func() { s.Trim(TrimArgs{Strategy: TrimMinID, MinID: StreamID{Ms: next}}) }},
		{"append into an emptied stream", func() { add(25) }},
		{"load a node", func() { id, lp := s.Node(0); s.AppendNode(StreamID{Ms: id.Ms + 1000}, slices.Clone(lp)) }},
	}
	for _, st := range steps {
		s.MemSize() // cache the size before the change
		st.do()
		if got, want := s.MemSize(), fresh(); got != want {
			t.Errorf("after %s: MemSize %d, computed anew %d", st.name, got, want)
		}
	}
}
