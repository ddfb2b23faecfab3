package conformance

import (
	"strings"
	"testing"
)

// argvShape answers #ARGV, the count and last key next lists, and the
// border after a key past the end is set.
const argvShape = `"local n, last = 0, nil for k in pairs(ARGV) do n = n + 1 last = k end ` +
	`local len = #ARGV ARGV[len + 2] = 'q' return {len, n, last, ARGV[len], #ARGV}"`

// TestScriptingFastPaths covers what the engine's per-call shortcuts must
// not change: number parsing, the KEYS and ARGV tables refilled in place
// from one call to the next.
func TestScriptingFastPaths(t *testing.T) {
	const tonumbers = `"local r = {} for i, s in ipairs(ARGV) do r[i] = tostring(tonumber(s)) end return r"`
	runCases(t, []tcase{
		{"tonumber of argument strings", []string{
			"EVAL " + tonumbers + " 0 0 00 7 007 100 60000 1700000000000 999999999999999 1000000000000000 9999999999999999 12345678901234567890",
			"EVAL " + tonumbers + ` 0 "" " 1" "1 " "\t5\r\n" +1 -1 -0 1.5 1e3 0x10 1_0 12a inf -nan .5 5.`,
			`EVAL "return tonumber(ARGV[1]) + 1" 0 41`,
			`EVAL "return {tonumber('10', nil), tonumber('10', 16), tostring(tonumber('z', 36)), tostring(tonumber('10', 10)), tostring(tonumber(nil))}" 0`,
			`EVAL "return tonumber('10', 'x')" 0`,
			`EVAL "return tonumber()" 0`,
			`EVAL "local a = tonumber(ARGV[1]) local b = tonumber(ARGV[2]) local c = redis.call('incrby', KEYS[1], 5000) local d = redis.call('incrby', KEYS[1], 5000) return {a, b, c, d, a + b, c - d}" 1 big 60000 1700000000000`,
			`EVAL "return tonumber(ARGV[1]) == 0 and 1 / tonumber(ARGV[1]) < 0" 0 -0`,
		}},
		{"KEYS and ARGV are fresh every call", []string{
			`EVAL "KEYS.extra = 1 return 1" 0`,
			`EVAL "return tostring(KEYS.extra)" 0`,
			`EVAL "KEYS.extra = 1 table.insert(ARGV, 'z') return 1" 3 a b c x`,
			`EVAL "return {#KEYS, #ARGV, tostring(KEYS.extra), tostring(ARGV[2])}" 1 k`,
			`EVAL "setmetatable(ARGV, {__index=function() return 'meta' end}) return 1" 0 a`,
			`EVAL "return tostring(ARGV[5])" 0 a`,
			`EVAL "setmetatable(KEYS, {__index=function() return 'meta' end}) return 1" 0`,
			`EVAL "return tostring(KEYS[1])" 0`,
			`EVAL "KEYS[1] = 5 ARGV[2] = nil return 1" 2 k1 k2 a b c`,
			`EVAL "return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], #ARGV}" 2 k1 k2 a b c`,
			`EVAL "return {KEYS[1], #KEYS, ARGV[1], #ARGV}" 1 k1 a`,
			`EVAL "table.remove(KEYS) KEYS.x = 1 return 1" 2 k1 k2`,
			`EVAL "return {#KEYS, tostring(KEYS.x), KEYS[2]}" 2 k1 k2`,
			`EVAL "KEYS[2] = nil KEYS[4] = 'y' return 1" 2 k1 k2`,
			`EVAL "return {#KEYS, KEYS[2], tostring(KEYS[4])}" 2 k1 k2`,
			`EVAL "KEYS[1] = nil return 1" 2 k1 k2`,
			`EVAL "return {#KEYS, KEYS[1], KEYS[2]}" 2 k1 k2`,
			`EVAL "return {#KEYS, tostring(KEYS[1]), #ARGV}" 0`,
		}},
		// A burst of arguments, then a few: the array made for the burst
		// is given back, and both the burst's and the next call's tables
		// count, list and grow as Redis's fresh ones.
		{"ARGV after a burst", []string{
			"EVAL " + argvShape + " 0" + strings.Repeat(" a", 1000),
			"EVAL " + argvShape + " 0 x y z",
			"EVAL " + argvShape + " 0" + strings.Repeat(" b", 100),
			"EVAL " + argvShape + " 0" + strings.Repeat(" b", 100),
			`EVAL "ARGV[1001] = 'p' ARGV.k = 1 local n = 0 for k in pairs(ARGV) do n = n + 1 end return {#ARGV, n}" 0` + strings.Repeat(" c", 1000),
			"EVAL " + argvShape + " 0" + strings.Repeat(" d", 999),
			`EVAL "return {#ARGV, ARGV[1], tostring(ARGV[2])}" 0 e`,
		}},
		{"loadstring chunks see the read-only globals", []string{
			`EVAL "local f = loadstring('redis = 1') local ok = pcall(f) return {tostring(ok), type(redis)}" 0`,
			`EVAL "return type(redis)" 0`,
			`EVAL "local f = loadstring('newglobal = 1') return tostring(pcall(f))" 0`,
			`EVAL "return tostring(rawget(_G, 'newglobal'))" 0`,
			`EVAL "local f = loadstring('return type(redis), KEYS[1]') return {f()}" 1 k`,
			`EVAL "local co = coroutine.create(function() return loadstring('return type(cjson)')() end) return {coroutine.resume(co)}" 0`,
		}},
		// Scripts with and without global assignments must read, miss
		// and refuse alike.
		{"globals with and without global assignments", []string{
			`EVAL "return nosuch" 0`,
			`EVAL "if false then x = 1 end return nosuch" 0`,
			`EVAL "return {type(redis), type(_G), type(KEYS), tostring(_G == _G._G), KEYS[1], ARGV[1]}" 1 k a`,
			`EVAL "if false then x = 1 end return {type(redis), type(_G), KEYS[1], ARGV[1]}" 1 k a`,
			`EVAL "_G.x = 1 return 1" 0`,
			`EVAL "_G['redis'] = 1 return 1" 0`,
			`EVAL "rawset(_G, 'x', 1) return 1" 0`,
			`EVAL "x = 1 return 1" 0`,
			`EVAL "redis = 1 return 1" 0`,
			`EVAL "local ok, err = pcall(function() y = 1 end) return {tostring(ok), type(redis)}" 0`,
			`EVAL "local function f(n) return redis.call('incrby', KEYS[1], n) end return {f(1), f(tonumber(ARGV[1]))}" 1 counter 5`,
			`EVAL "local t = {} t.redis = 1 return {t.redis, type(redis)}" 0`,
			`EVAL "return tostring(rawget(_G, 'x'))..tostring(rawget(_G, 'y'))" 0`,
			`EVAL "local n = 0 for k, v in pairs(_G) do if k == 'redis' or k == 'KEYS' then n = n + 1 end end return n" 0`,
		}},
	})
}
