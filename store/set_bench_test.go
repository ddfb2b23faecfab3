package store

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"
)

// BenchmarkSetMemory reports the heap per member of about 100,000 members
// spread over keys of size members each, keys and keyspace included, as
// Redis's used_memory delta counts them (scripts/set-memory.sh builds the
// same keys in Redis). Run it with -benchtime=1x.
func BenchmarkSetMemory(b *testing.B) {
	shapes := map[string]func(i int) []byte{
		"int": func(i int) []byte { return strconv.AppendInt(nil, int64(1000000+i*7), 10) },
		"ip":  func(i int) []byte { return fmt.Appendf(nil, "10.0.%d.%d", i/256, i%256) },
	}
	for _, shape := range []string{"int", "ip"} {
		for _, size := range []int{10, 100, 10000} {
			b.Run(fmt.Sprintf("%s/size=%d", shape, size), func(b *testing.B) {
				keys := max(100000/size, 10)
				for range b.N {
					s := New(1, nil)
					before := heapInUse()
					for k := range keys {
						set := NewSet()
						for i := range size {
							set.Add(shapes[shape](i), &DefaultEncodings)
						}
						s.DB(0).Set([]byte("k"+strconv.Itoa(k)), set, 0)
					}
					after := settledHeap(s)
					b.ReportMetric(float64(after-before)/float64(keys*size), "B/member")
					runtime.KeepAlive(s)
				}
			})
		}
	}
}
