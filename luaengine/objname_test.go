package luaengine

import (
	"testing"
)

// TestObjectNames checks that runtime errors name the variable as Lua 5.1
// does. Expected texts are redis-server 7.0.15's.
func TestObjectNames(t *testing.T) {
	tests := []struct{ body, want string }{
		{"local x return x + 1", "attempt to perform arithmetic on local 'x' (a nil value)"},
		{"local t = {} return t.a.b", "attempt to index field 'a' (a nil value)"},
		{"local t = {} t.f()", "attempt to call field 'f' (a nil value)"},
		{"return ARGV[1]:upper()", "attempt to index field '?' (a nil value)"},
		{"return KEYS[3] .. 'x'", "attempt to concatenate field '?' (a nil value)"},
		{"local up = nil local function f() return up.x end return f()", "attempt to index upvalue 'up' (a nil value)"},
		{"return #nil", "attempt to get length of a nil value"},
		{"return 1 + nil", "attempt to perform arithmetic on a nil value"},
		// A local is named whatever branch set it.
		{"local t = {} local v if ARGV[1] then v = t.a else v = t.b end return v + 1", "attempt to perform arithmetic on local 'v' (a nil value)"},
	}
	e := New(Options{})
	defer e.Close()
	for _, tt := range tests {
		f := newFakeRedis()
		f.engine = e
		got := run(t, e, f, tt.body, nil, nil)
		want := "-ERR user_script:1: " + tt.want + " script: " + SHA1Hex([]byte(tt.body)) + ", on @user_script:1.\r\n"
		if got != want {
			t.Errorf("%s\n got %q\nwant %q", tt.body, got, want)
		}
	}
}
