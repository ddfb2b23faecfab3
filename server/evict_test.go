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

// TestEvictionExceededTime: while memory stays over maxmemory (noeviction
// refuses writes with OOM) current_eviction_exceeded_time grows, and the
// total keeps it once memory is under the limit again; RESETSTAT clears
// both, as Redis's resetServerStats.
func TestEvictionExceededTime(t *testing.T) {
	_, c := newTestServer(t)
	reply(t, c, "SET", "k", strings.Repeat("x", 1000))
	if info := reply(t, c, "INFO", "stats"); infoInt(t, info, "total_eviction_exceeded_time") != 0 {
		t.Fatal("exceeded before any maxmemory")
	}
	reply(t, c, "CONFIG", "SET", "maxmemory", "1")
	defer reply(t, c, "CONFIG", "SET", "maxmemory", "0")
	c.Do(context.Background(), "SET", "k2", "v") // OOM: the stretch begins
	waitFor(t, "current_eviction_exceeded_time > 0", func() bool {
		return infoInt(t, reply(t, c, "INFO", "stats"), "current_eviction_exceeded_time") > 0
	})
	reply(t, c, "CONFIG", "SET", "maxmemory", "0")
	info := reply(t, c, "INFO", "stats")
	if cur, total := infoInt(t, info, "current_eviction_exceeded_time"), infoInt(t, info, "total_eviction_exceeded_time"); cur != 0 || total < 1 {
		t.Errorf("under the limit again: current %d, total %d", cur, total)
	}
	reply(t, c, "CONFIG", "RESETSTAT")
	if total := infoInt(t, reply(t, c, "INFO", "stats"), "total_eviction_exceeded_time"); total != 0 {
		t.Errorf("after RESETSTAT: total %d", total)
	}
}
