package rdb

import (
	"bytes"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate/floodgate/store"
)

// BenchmarkLoad1M loads an RDB file of 1,000,000 small counters, half with
// a TTL (persistence.BenchmarkRDB1M's keyspace), into an empty store: the
// decoding and the store's insertion, without the disk.
//
//	go test ./rdb -run '^$' -bench Load1M -benchmem -cpuprofile /tmp/load.prof
func BenchmarkLoad1M(b *testing.B) {
	src := store.New(16, nil)
	exp := time.Now().Add(time.Hour).UnixMilli()
	for i := range 1_000_000 {
		var at int64
		if i%2 == 1 {
			at = exp
		}
		src.DB(0).Set([]byte("counter:"+strconv.Itoa(i)), store.NewInt(int64(i)), at)
	}
	var file bytes.Buffer
	if err := Save(&file, src, Options{Compress: true, Checksum: true}); err != nil {
		b.Fatal(err)
	}
	src = nil
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s := store.New(16, nil)
		info, err := Load(bytes.NewReader(file.Bytes()), s, LoadOptions{Now: time.Now().UnixMilli()})
		if err != nil || info.Keys != 1_000_000 {
			b.Fatal(info, err)
		}
	}
}
