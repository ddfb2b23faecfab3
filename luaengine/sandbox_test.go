package luaengine

import (
	"strings"
	"testing"
)

// A script that tries to change a shared table fails with Redis's error,
// and every later script still runs the original libraries (issue #29:
// string.format replaced through the string metatable reached every
// client until restart).
func TestSandboxAttacksLeaveLibrariesIntact(t *testing.T) {
	attacks := []string{
		"getmetatable('').__index.format = function() return 'ATTACKER' end",
		"getmetatable('').__index = {format = function() return 'ATTACKER' end}",
		"getmetatable('').__add = function() return 'ATTACKER' end",
		"rawset(getmetatable('').__index, 'format', function() return 'ATTACKER' end)",
		"setmetatable(getmetatable(''), {__index = function() return 'ATTACKER' end})",
		"string.format = function() return 'ATTACKER' end",
		"rawset(string, 'format', function() return 'ATTACKER' end)",
		"table.insert(string, 'ATTACKER')",
		"local mt = getmetatable(_G) mt.__index = function() return 'ATTACKER' end",
		"rawset(getmetatable(_G), '__newindex', function() end) nosuch = 'ATTACKER'",
		"setmetatable(_G, nil) nosuch = 'ATTACKER'",
		"redis.call = function() return 'ATTACKER' end",
		"rawset(_G, 'tostring', function() return 'ATTACKER' end)",
		"loadstring('math.floor = function() return 1 end')()",
		"coroutine.wrap(function() cjson.encode = function() return 'ATTACKER' end end)()",
		"struct.pack = nil",
		"bit.band = nil",
		"cmsgpack.pack = nil",
	}
	probe := "return {string.format('%d', 7), ('x'):rep(2), tostring(5), math.floor(1.5), cjson.encode({1}), tostring(bit.band(3, 1)), type(struct.pack), type(cmsgpack.pack), tostring(pcall(function() return nosuch end))}"
	want := run(t, New(Options{}), newFakeRedis(), probe, nil, nil)
	if strings.Contains(want, "ATTACKER") || strings.HasPrefix(want, "-") {
		t.Fatalf("probe on a fresh engine: %q", want)
	}
	e := New(Options{})
	f := newFakeRedis()
	for _, attack := range attacks {
		if got := run(t, e, f, attack, nil, nil); !strings.Contains(got, "Attempt to modify a readonly table") {
			t.Errorf("%q: got %q, want the readonly-table error", attack, got)
		}
		if got := run(t, e, f, probe, nil, nil); got != want {
			t.Errorf("after %q: probe got %q, want %q", attack, got, want)
		}
	}
}

// Every table a script can reach from the globals (values and metatables,
// the string metatable too) refuses rawset, except KEYS and ARGV, which
// are the caller's; a library added after the protection would show here.
func TestSandboxEveryReachableTableReadonly(t *testing.T) {
	const walk = `
local seen, writable = {}, {}
local function visit(t, path)
  if type(t) ~= 'table' or seen[t] then return end
  seen[t] = true
  if t ~= KEYS and t ~= ARGV and pcall(rawset, t, '__probe', 1) then
    writable[#writable + 1] = path
  end
  for k, v in pairs(t) do visit(v, path .. '.' .. tostring(k)) end
  visit(getmetatable(t), 'getmetatable(' .. path .. ')')
end
visit(_G, '_G')
visit(getmetatable(''), "getmetatable('')")
local n = 0
for _ in pairs(seen) do n = n + 1 end
return {n, unpack(writable)}`
	got := run(t, New(Options{}), newFakeRedis(), walk, nil, nil)
	// An array of one integer: the count of tables seen, none writable.
	if !strings.HasPrefix(got, "*1\r\n:") {
		t.Errorf("writable tables: %q", got)
	}
	if got == "*1\r\n:0\r\n" || got == "*1\r\n:1\r\n" {
		t.Errorf("the walk saw no libraries: %q", got)
	}
}

// assert is Lua 5.1's luaB_assert: a number message is formatted, other
// non-strings are refused as luaL_optstring refuses them, and no position
// is given when pcall called it (replies from redis-server 7.0.15).
func TestAssertMessages(t *testing.T) {
	e := New(Options{})
	f := newFakeRedis()
	for _, tt := range []struct{ body, want string }{
		{"return {pcall(assert, false)}", "*2\r\n$-1\r\n$17\r\nassertion failed!\r\n"},
		{"return {pcall(assert, nil, 5)}", "*2\r\n$-1\r\n$1\r\n5\r\n"},
		{"return {pcall(assert, nil, {})}", "*2\r\n$-1\r\n$51\r\nbad argument #2 to '?' (string expected, got table)\r\n"},
		{"return {pcall(assert)}", "*2\r\n$-1\r\n$39\r\nbad argument #1 to '?' (value expected)\r\n"},
		{"return {pcall(error, {err=5})}", "*2\r\n$-1\r\n:5\r\n"},
		{"return {assert(1, 2, 3)}", "*3\r\n:1\r\n:2\r\n:3\r\n"},
	} {
		if got := run(t, e, f, tt.body, nil, nil); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.body, got, tt.want)
		}
	}
	for _, tt := range []struct{ body, want string }{
		{"assert(nil, 5.5)", "-ERR user_script:1: 5.5 script: "},
		{"local a = assert a(nil, {})", "-ERR user_script:1: bad argument #2 to 'a' (string expected, got table) script: "},
		{"assert()", "-ERR user_script:1: bad argument #1 to 'assert' (value expected) script: "},
		{"error({err=5})", "-5 script: "},
	} {
		if got := run(t, e, f, tt.body, nil, nil); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: got %q, want %q...", tt.body, got, tt.want)
		}
	}
}
