package store

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
)

// TestAccountingMatchesHeap: the accounted memory of a keyspace (Used,
// INFO's used_memory) is what the Go heap holds for it, within 7%, for
// every type and encoding at 10, 100 and 10,000 elements a key; maxmemory
// and the memory rows of BENCHMARKS.md rely on it.
func TestAccountingMatchesHeap(t *testing.T) {
	if redistest.RaceEnabled {
		t.Skip("the race detector's allocator has no tiny blocks: small strings cost it more than the accounting charges")
	}
	// Elements are built in one reused buffer, as commands read them from
	// a request: a fresh slice per element would share the allocator's
	// 16-byte blocks with the small strings stored and keep them half full.
	var buf []byte
	elem := func(i int) []byte {
		buf = strconv.AppendInt(buf[:0], int64(1700000000000+i), 10)
		buf = append(buf, '-')
		return strconv.AppendInt(buf, int64(i), 10)
	}
	kinds := map[string]func(size int) Value{
		"string": func(int) Value { return NewString(elem(12345)) },
		"intset": func(size int) Value {
			s := NewSet()
			for i := range size {
				buf = strconv.AppendInt(buf[:0], int64(1000000+7*i), 10)
				s.Add(buf, &DefaultEncodings)
			}
			return s
		},
		"set": func(size int) Value {
			s := NewSet()
			for i := range size {
				s.Add(elem(i), &DefaultEncodings)
			}
			return s
		},
		"hash": func(size int) Value {
			h := NewHash()
			for i := range size {
				h.Set(elem(i), []byte(strconv.Itoa(i%100)), &DefaultEncodings)
			}
			return h
		},
		"list": func(size int) Value {
			l := NewList()
			for i := range size {
				l.PushBack(elem(i))
			}
			return l
		},
		"stream-pel": func(size int) Value {
			st := NewStream()
			for i := range size {
				st.Append(StreamID{Ms: uint64(i + 1)}, [][]byte{[]byte("f"), elem(i)}, DefaultEncodings.StreamLimits())
			}
			g := st.CreateGroup("group", StreamID{}, 0)
			consumers := []*StreamConsumer{g.CreateConsumer("alice", 1), g.CreateConsumer("bob", 1)}
			for i := range size {
				id := StreamID{Ms: uint64(i + 1)}
				st.Delivered(g, id)
				g.Deliver(id, consumers[i%2], 1)
			}
			return st
		},
		"zset": func(size int) Value {
			z := NewZSet()
			fillWindow(z, size)
			return z
		},
	}
	for _, name := range []string{"string", "intset", "set", "hash", "list", "zset", "stream-pel"} {
		for _, size := range []int{10, 100, 10000} {
			if name == "string" && size > 10 {
				continue
			}
			t.Run(fmt.Sprintf("%s/%d", name, size), func(t *testing.T) {
				keys := max(100000/size, 10)
				s := New(1, nil)
				before, used := heapInUse(), s.Used()
				for k := range keys {
					s.DB(0).Set([]byte("key:"+strconv.Itoa(k)), kinds[name](size), 0)
				}
				heap, acc := float64(heapInUse()-before), float64(s.Used()-used)
				runtime.KeepAlive(s)
				t.Logf("heap %.1f, accounted %.1f bytes a key", heap/float64(keys), acc/float64(keys))
				if acc < 0.93*heap || acc > 1.07*heap {
					t.Errorf("accounted %.0f bytes for %.0f on the heap (%.2f)", acc, heap, acc/heap)
				}
			})
		}
	}
}
