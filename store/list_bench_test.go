package store

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"
)

// BenchmarkListMemory and BenchmarkHashMemory (sets: set_bench_test.go) report
// the heap per element of about 100,000 elements "<ms>-<i>" (a hash maps
// each to "<ms>") spread over keys of size elements, each key built as one
// RPUSH/HSET builds it, keys and keyspace included, as Redis's
// used_memory delta counts them (scripts/collection-memory.sh). Run them
// with -benchtime=1x.
func BenchmarkListMemory(b *testing.B) {
	collectionMemory(b, func(elems [][]byte) Value {
		l := NewList()
		l.PushBack(elems...)
		return l
	})
}

func BenchmarkHashMemory(b *testing.B) {
	collectionMemory(b, func(elems [][]byte) Value {
		h := NewHash()
		for _, e := range elems {
			h.Set(e, e[:13], &DefaultEncodings)
		}
		return h
	})
}

// BenchmarkHashIPMemory is a rate limiter's hash: fields "10.0.<a>.<b>"
// mapped to a small counter "<i % 100>" (scripts/collection-memory.sh hash-ip).
func BenchmarkHashIPMemory(b *testing.B) {
	collectionMemory(b, func(elems [][]byte) Value {
		h := NewHash()
		for i := range elems {
			h.Set(fmt.Appendf(nil, "10.0.%d.%d", i/256, i%256), strconv.AppendInt(nil, int64(i%100), 10), &DefaultEncodings)
		}
		return h
	})
}

func collectionMemory(b *testing.B, build func(elems [][]byte) Value) {
	for _, size := range []int{10, 100, 10000} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			keys := max(100000/size, 10)
			elems := make([][]byte, size)
			for i := range elems {
				elems[i] = []byte(strconv.Itoa(1700000000000+i) + "-" + strconv.Itoa(i))
			}
			for range b.N {
				s := New(1, nil)
				before := heapInUse()
				for k := range keys {
					s.DB(0).Set([]byte("k"+strconv.Itoa(k)), build(elems), 0)
				}
				after := settledHeap(s)
				b.ReportMetric(float64(after-before)/float64(keys*size), "B/element")
				runtime.KeepAlive(s)
			}
		})
	}
}

// BenchmarkListPushPop is a queue in steady state: RPUSH one, LPOP one.
func BenchmarkListPushPop(b *testing.B) {
	benchQueue(b, func(l *List, v []byte) { l.PushBack(v) }, (*List).PopFront)
}

// BenchmarkListPushFrontPopBack is the other queue: LPUSH one, RPOP one,
// where the pop finds the new last element by walking the tail node.
func BenchmarkListPushFrontPopBack(b *testing.B) {
	benchQueue(b, func(l *List, v []byte) { l.PushFront(v) }, (*List).PopBack)
}

func benchQueue(b *testing.B, push func(*List, []byte), pop func(*List) []byte) {
	l := NewList()
	v := []byte("1700000000000-12345")
	for range 1000 {
		l.PushBack(v)
	}
	b.ReportAllocs()
	for range b.N {
		push(l, v)
		pop(l)
	}
}
