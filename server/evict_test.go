package server

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// TestMaxMemoryBoundsTheGoRuntime: a real bound also bounds the Go heap
// (a soft memory limit near it), a tiny one (as tests set) does not, and
// lifting the bound restores the limit the process started with.
func TestMaxMemoryBoundsTheGoRuntime(t *testing.T) {
	_, c := newTestServer(t)
	defer debug.SetMemoryLimit(startMemoryLimit)
	for _, tc := range []struct {
		maxmemory string
		want      int64
	}{
		{"100mb", min(startMemoryLimit, 100<<20+25<<20+32<<20)},
		{"1mb", startMemoryLimit},
		{"1gb", min(startMemoryLimit, 1<<30+1<<28+32<<20)},
		{"18446744073709551615", startMemoryLimit},
		{"0", startMemoryLimit},
	} {
		if got := reply(t, c, "CONFIG", "SET", "maxmemory", tc.maxmemory); got != "OK" {
			t.Fatalf("CONFIG SET maxmemory %s: %s", tc.maxmemory, got)
		}
		if got := debug.SetMemoryLimit(-1); got != tc.want {
			t.Errorf("maxmemory %s: Go memory limit %d, want %d", tc.maxmemory, got, tc.want)
		}
	}
}

// TestEvictionKeepsUsedMemoryUnderTheBound: keys written past maxmemory
// under allkeys-lru evict older ones; used_memory stays at the bound and
// evicted_keys counts every key gone.
func TestEvictionKeepsUsedMemoryUnderTheBound(t *testing.T) {
	_, c := newTestServer(t)
	reply(t, c, "CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
	reply(t, c, "CONFIG", "SET", "maxmemory", "2mb")
	defer reply(t, c, "CONFIG", "SET", "maxmemory", "0")
	const n = 50000
	pipe := c.Pipeline()
	for i := range n {
		pipe.Set(context.Background(), fmt.Sprintf("rate:ip:%d", i), "1", time.Hour)
	}
	if _, err := pipe.Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	info := reply(t, c, "INFO")
	used, evicted := infoInt(t, info, "used_memory"), infoInt(t, info, "evicted_keys")
	size := infoInt(t, "dbsize:"+reply(t, c, "DBSIZE")+"\r\n", "dbsize")
	if used > 2<<20 || evicted == 0 || size+evicted != n {
		t.Fatalf("used_memory %d (bound %d), evicted %d, dbsize %d: not %d keys", used, 2<<20, evicted, size, n)
	}
	if got := reply(t, c, "GET", fmt.Sprintf("rate:ip:%d", n-1)); got != "1" {
		t.Fatalf("the newest key: %s", got)
	}
}

func infoInt(t *testing.T, info, field string) int64 {
	t.Helper()
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			var n int64
			if _, err := fmt.Sscan(v, &n); err != nil {
				t.Fatalf("%s: %q", field, v)
			}
			return n
		}
	}
	t.Fatalf("no %s in %q", field, info)
	return 0
}
