package luaengine

import "testing"

// A KEYS table a script changed is replaced for the next call, with or
// without global assignments in that script.
func TestKeysReplacedAfterChange(t *testing.T) {
	e := New(Options{})
	f := newFakeRedis()
	run(t, e, f, "KEYS.extra = 1 return 1", []string{"a"}, nil)
	for _, body := range []string{"return KEYS[1]", "if false then x = 1 end return KEYS[1]"} {
		if got := run(t, e, f, body, []string{"b"}, nil); got != "$1\r\nb\r\n" {
			t.Errorf("%q: got %q", body, got)
		}
	}
}

func TestChangesTables(t *testing.T) {
	const sliding = `local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000) local window = tonumber(ARGV[2]) redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, now - window) local n = redis.call('ZCARD', KEYS[1]) if n < tonumber(ARGV[1]) then redis.call('ZADD', KEYS[1], now, t[1] .. '-' .. t[2]) redis.call('PEXPIRE', KEYS[1], window) return 1 end return 0`
	e := New(Options{})
	for _, tt := range []struct {
		body    string
		changes bool
	}{
		{seed001, false},
		{sliding, false},
		{"return {KEYS[1], ARGV[1], #KEYS}", false}, // a constructor fills a new table
		{"return cjson.encode({a = KEYS})", true},   // record fields compile to SETTABLE: conservative
		{"KEYS.x = 1", true},
		{"KEYS[1] = 'k'", true},
		{"local t = {} t[1] = 1 return t", true},
		{"table.insert(ARGV, 'z')", true},
		{"rawset(KEYS, 'a', 1)", true},
		{"setmetatable(KEYS, {})", true},
		{"_G.table.insert(KEYS, 1)", true},
		{"loadstring('KEYS.x = 1')()", true},
		{"local function f() ARGV.x = 1 end return 1", true},
		{"return function() return function() return nosuch end end", true},
	} {
		s, err := e.Get([]byte(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		if s.changesTables != tt.changes {
			t.Errorf("%q: changesTables %v, want %v", tt.body, s.changesTables, tt.changes)
		}
	}
}

// keepsArgs lets a function's KEYS and ARGV tables be reused only when the
// function reads them by index and length alone.
func TestKeepsArgs(t *testing.T) {
	e := New(Options{})
	for _, tt := range []struct {
		fn    string
		keeps bool
	}{
		{"function(KEYS, ARGV) " + seed001 + " end", false},
		{"function(KEYS, ARGV) local n = redis.call('INCR', KEYS[1]) if n <= tonumber(ARGV[2]) then return #ARGV end return 0 end", false},
		{"function(k, a) return {k[1], a.x, #k} end", false},
		{"function(KEYS) return KEYS[1] end", false}, // ARGV is dropped
		{"function() return 1 end", false},
		{"function(KEYS, ARGV, extra) return extra end", false},
		{"function(KEYS, ARGV) saved = KEYS end", true},
		{"function(KEYS, ARGV) store[1] = ARGV end", true},
		{"function(KEYS, ARGV) KEYS[1] = 'x' end", true},
		{"function(KEYS, ARGV) local k = KEYS return k[1] end", true},
		{"function(KEYS, ARGV) return KEYS end", true},
		{"function(KEYS, ARGV) table.insert(KEYS, 'x') end", true},
		{"function(KEYS, ARGV) return unpack(ARGV) end", true},
		{"function(KEYS, ARGV) for _, k in ipairs(KEYS) do end end", true},
		{"function(KEYS, ARGV) return function() return KEYS[1] end end", true},
		{"function(KEYS, ARGV) local t = {} t[KEYS] = 1 end", true},
		{"function(KEYS, ARGV) return store[KEYS] end", true},
		{"function(KEYS, ARGV) return KEYS == ARGV end", true},
		{"function(KEYS, ARGV) return 'a' .. ARGV end", true},
		{"function(KEYS, ARGV) KEYS = {} return KEYS[1] end", true},
		{"function(...) return ... end", true},
		{"function(KEYS, ...) return ... end", true},
	} {
		fn, err := e.L.LoadString("return " + tt.fn)
		if err != nil {
			t.Fatalf("%s: %v", tt.fn, err)
		}
		if got := keepsArgs(fn.Proto.FunctionPrototypes[0]); got != tt.keeps {
			t.Errorf("%s: keepsArgs %v, want %v", tt.fn, got, tt.keeps)
		}
	}
}
