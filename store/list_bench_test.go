package store

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"
)

// BenchmarkListMemory reports the heap per element of about 100,000
// elements "<ms>-<i>" spread over keys of size elements each, each key
// built by one RPUSH, keys and keyspace included, as Redis's used_memory
// delta counts them (scripts/collection-memory.sh list). Run it with
// -benchtime=1x.
func BenchmarkListMemory(b *testing.B) {
	for _, size := range []int{10, 100, 10000} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			keys := max(100000/size, 10)
			vals := make([][]byte, size)
			for i := range vals {
				vals[i] = []byte(strconv.Itoa(1700000000000+i) + "-" + strconv.Itoa(i))
			}
			for range b.N {
				s := New(1, nil)
				before := heapInUse()
				for k := range keys {
					l := NewList()
					l.PushBack(vals...)
					s.DB(0).Set([]byte("k"+strconv.Itoa(k)), l, 0)
				}
				after := heapInUse()
				b.ReportMetric(float64(after-before)/float64(keys*size), "B/element")
				runtime.KeepAlive(s)
			}
		})
	}
}

// BenchmarkListPushPop is a queue in steady state: RPUSH one, LPOP one.
func BenchmarkListPushPop(b *testing.B) {
	l := NewList()
	v := []byte("1700000000000-12345")
	for range 1000 {
		l.PushBack(v)
	}
	b.ReportAllocs()
	for range b.N {
		l.PushBack(v)
		l.PopFront()
	}
}
