package luaengine

import (
	"strings"
	"testing"
)

// Redis 7.0 keeps every script EVAL compiled until SCRIPT FLUSH (7.4
// evicts EVAL's past 500): an EVALSHA of any script seen before runs.
func TestEvalCacheKeepsEveryScript(t *testing.T) {
	e := New(Options{})
	f := newFakeRedis()
	loaded, _ := e.Load([]byte("return 'pinned'"))
	var shas []string
	for i := 0; i < 1000; i++ {
		body := "return " + itoa(i)
		run(t, e, f, body, nil, nil)
		shas = append(shas, SHA1Hex([]byte(body)))
	}
	for i, sha := range shas {
		if !e.Exists(sha) {
			t.Fatalf("script %d was dropped", i)
		}
	}
	if e.Scripts() != 1001 || !e.Exists(strings.ToUpper(loaded.SHA)) {
		t.Errorf("cache holds %d scripts, want 1001", e.Scripts())
	}
	e.Flush()
	if e.Exists(loaded.SHA) || e.Exists(shas[0]) || e.Scripts() != 0 || e.ScriptsMemory() != 0 {
		t.Errorf("after flush: %d scripts, %d bytes", e.Scripts(), e.ScriptsMemory())
	}
}

// used_memory_scripts_eval as redis-server 7.0.15 reported it after SCRIPT
// FLUSH and the scripts below (measured; Redis's counts just after its
// dictionary grows, 5 and 9 scripts, include the table being rehashed).
func TestScriptsMemoryMatchesRedis(t *testing.T) {
	for _, tt := range []struct {
		bodies []int // body lengths
		want   int64
	}{
		{nil, 0},
		{[]int{2}, 136},
		{[]int{8}, 136},
		{[]int{36}, 168},
		{[]int{37}, 168},
		{[]int{200}, 344},
		{[]int{300}, 440},
		{[]int{5000}, 5240},
		{[]int{70000}, 82040},
		{[]int{8, 8}, 240},
		{[]int{8, 8, 8, 8}, 448},
		{[]int{8, 8, 8, 8, 8, 8}, 688},
		{[]int{8, 8, 8, 8, 8, 8, 8, 8}, 896},
	} {
		e := New(Options{})
		for i, n := range tt.bodies {
			// Distinct bodies of length n (a comment pads them).
			body := "return " + itoa(i%10)
			switch {
			case n < len(body):
				body = "--" + strings.Repeat("x", n-2)
			case n > len(body)+2:
				body += "--" + strings.Repeat("x", n-len(body)-2)
			}
			if len(body) != n {
				t.Fatalf("body %q is not %d bytes", body, n)
			}
			if _, err := e.Load([]byte(body)); err != nil {
				t.Fatalf("%q: %v", body, err)
			}
		}
		if got := e.ScriptsMemory(); got != tt.want {
			t.Errorf("bodies %v: %d bytes, want %d", tt.bodies, got, tt.want)
		}
		e.Close()
	}
}
