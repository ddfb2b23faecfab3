package server

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
)

// HRANDFIELD's replies are random, so conformance compares only their
// shape; this checks what they mean, on both encodings.
func TestHRandFieldSemantics(t *testing.T) {
	ctx := context.Background()
	srv := startServer(t, Config{})
	c := redis.NewClient(patient(&redis.Options{Addr: srv.Addr(), Protocol: 2, DisableIdentity: true}))
	t.Cleanup(func() { c.Close() })
	for _, size := range []int{5, 600} {
		key := fmt.Sprintf("h%d", size)
		fields := map[string]string{}
		for i := range size {
			fields["f"+strconv.Itoa(i)] = "v" + strconv.Itoa(i)
		}
		if err := c.HSet(ctx, key, fields).Err(); err != nil {
			t.Fatal(err)
		}
		t.Run(c.ObjectEncoding(ctx, key).Val(), func(t *testing.T) {
			check := func(count int, kvs []redis.KeyValue, distinct bool) {
				t.Helper()
				seen := map[string]bool{}
				for _, kv := range kvs {
					if fields[kv.Key] != kv.Value || (distinct && seen[kv.Key]) {
						t.Fatalf("count %d: bad or repeated pair %q=%q", count, kv.Key, kv.Value)
					}
					seen[kv.Key] = true
				}
			}
			for _, count := range []int{1, 3, size - 1} {
				got, err := c.HRandFieldWithValues(ctx, key, count).Result()
				if err != nil || len(got) != count {
					t.Fatalf("count %d: %d pairs, %v", count, len(got), err)
				}
				check(count, got, true)
			}
			// A count past the size gives the whole hash.
			if got, _ := c.HRandFieldWithValues(ctx, key, size+10).Result(); len(got) != size {
				t.Fatalf("count %d: %d pairs, want %d", size+10, len(got), size)
			} else {
				check(size+10, got, true)
			}
			// A negative count: exactly that many, repeats allowed; over
			// enough draws from a small hash, repeats do show up.
			got, err := c.HRandFieldWithValues(ctx, key, -3*size).Result()
			if err != nil || len(got) != 3*size {
				t.Fatalf("count %d: %d pairs, %v", -3*size, len(got), err)
			}
			check(-3*size, got, false)
			seen := map[string]bool{}
			for _, kv := range got {
				seen[kv.Key] = true
			}
			if len(seen) == len(got) {
				t.Fatalf("count %d: no repeats in %d draws from %d fields", -3*size, len(got), size)
			}
			// Without a count: one field of the hash.
			if f, err := c.HRandField(ctx, key, 1).Result(); err != nil || len(f) != 1 || fields[f[0]] == "" {
				t.Fatalf("HRANDFIELD: %v %v", f, err)
			}
			if f, err := c.Do(ctx, "HRANDFIELD", key).Text(); err != nil || fields[f] == "" {
				t.Fatalf("HRANDFIELD without count: %q %v", f, err)
			}
		})
	}
}
