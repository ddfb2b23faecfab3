package conformance

import "testing"

// Numbers written as strings, read by scripts (Lua 5.1's luaO_str2d: C's
// strtod, then only white space) and by commands (Redis's strtod-based
// getDoubleFromObject, string2ll, strtold): one parser serves them all.
func TestStringToNumber(t *testing.T) {
	const conv = `"local r = {} for i, s in ipairs(ARGV) do r[i] = tostring(tonumber(s)) end return r"`
	const arith = `"local r = {} for i, s in ipairs(ARGV) do local ok, v = pcall(function() return s + 0 end) r[i] = ok and tostring(v) or 'err' end return r"`
	const format = `"local r = {} for i, s in ipairs(ARGV) do local ok, v = pcall(string.format, '%d', s) r[i] = ok and v or 'err' end return r"`
	const inputs = ` 0x1.8 0x1.8p3 0X10 -0x10 0x 0x1p 010 0b1 1_0 1e309 -1e309 1e-400 nan nan(0x1) -nan NaN(abc) INF -Infinity infx " 7 " "\t0x1.8\n" "1 x" 0x1.8.1 .5 5. . e1`
	runCases(t, []tcase{
		{"tonumber", []string{"EVAL " + conv + " 0" + inputs}},
		{"tonumber with a base", []string{
			`EVAL "local r = {} local t = {{'0x10',16},{'-1',16},{'+f',16},{' ff ',16},{'zz',36},{string.rep('1',70),2},{'-0x10',16},{'0x',16},{'-',16},{'',16},{' ',16},{'1 2',16},{'\t7\n',8},{'0b1',2},{'8',8},{'1_0',16},{'-ff',16},{'0X1g',16},{'7\0x',8},{10,16}} for i, c in ipairs(t) do r[i] = tostring(tonumber(c[1], c[2])) end return r" 0`,
		}},
		{"numerals in the source", []string{
			`EVAL "return {tostring(0x10), tostring(0x1p4), tostring(0X1P-1), tostring(1e2), tostring(.5), tostring(5.)}" 0`,
			`EVAL "return 0x1.8" 0`, `EVAL "return 1e" 0`, `EVAL "return 0x" 0`, `EVAL "return 1_0" 0`, `EVAL "return 08" 0`,
		}},
		{"arithmetic coercion", []string{
			"EVAL " + arith + " 0" + inputs,
			`EVAL "return {tostring('0x1.8' + 0), tostring('010' * 1), tostring(-'0x1.8'), tostring('3' % '2'), tostring('2' ^ '0x3'), tostring('1e309' - 1)}" 0`,
			`EVAL "return '0b1' + 0" 0`,
			`EVAL "return '1_0' * 1" 0`,
			`EVAL "local s = 'x' return s + 1" 0`,
			`EVAL "local s = '0x' return 1 - s" 0`,
			`EVAL "return -ARGV[1]" 0 abc`,
			`EVAL "local t = setmetatable({}, {__add = function(a, b) return 'meta' end}) return {'1' + t, t + '1'}" 0`,
			`EVAL "return '5' + nil" 0`, `EVAL "local t = {} return t.x * '2'" 0`, `EVAL "local s = 'a' return pcall(function() return s % 2 end)" 0`,
			`EVAL "local t = {f = 'x'} return 2 ^ t.f" 0`, `EVAL "return {} - '1'" 0`, `EVAL "return -{}" 0`, `EVAL "return ('1' + 1) / '0'" 0`,
			`EVAL "local u = 'q' local function f() return u + 1 end return f()" 0`, `EVAL "return #('1' + '2')" 0`,
		}},
		{"string.format", []string{
			"EVAL " + format + " 0" + inputs,
			`EVAL "return string.format('%d %s %.3f', '0x1.8', tonumber('0x1.8'), '  2.5  ')" 0`,
		}},
		{"the math library", []string{
			`EVAL "return {math.floor('0x1.8'), math.floor('010'), tostring(math.max('1e2', ' 7 ')), math.abs('-0x10'), tostring(math.fmod('7', '0x2')), tostring(math.sqrt('0x10'))}" 0`,
			`EVAL "return math.floor('1_0')" 0`, `EVAL "return math.floor('x')" 0`, `EVAL "return math.floor()" 0`,
			`EVAL "return math.max()" 0`, `EVAL "return math.min(1, 'y')" 0`, `EVAL "math.randomseed('0x10') return {math.random('010'), math.random('2', ' 0x9 ')}" 0`,
		}},
		{"getmetatable of a string", []string{
			`EVAL "local mt = getmetatable('') return {type(mt), type(mt.__index), type(mt.__add), type(mt.__unm)}" 0`,
		}},
		{"commands", []string{
			"SET f 0x1.8", "INCRBYFLOAT f 0x1p3", "INCRBYFLOAT f 1e309", "INCRBYFLOAT f nan", "INCRBYFLOAT f ' 1'", "GET f",
			"INCRBYFLOAT g 010", "INCRBYFLOAT g 1_0", "INCRBYFLOAT g 0b1",
			"ZADD z 0x1.8 a 0x10 b -inf c", "ZADD z 1_0 d", "ZADD z nan e", "ZADD z 1e309 e", "ZADD z ' 1' e",
			"ZRANGE z 0 -1 WITHSCORES", "ZRANGEBYSCORE z 0x1 0x1p5", "ZCOUNT z ' 1' 0x10",
			"ZINCRBY z 0x.8 a", "ZSCORE z a",
			"HSET h f 0x10", "HINCRBYFLOAT h f 0x1.8", "HINCRBY h f 010", "HINCRBYFLOAT h f 1_0",
			"SET i 010", "INCR i", "INCRBY i 0x10", "INCRBY i +1", "EXPIRE i 1_0",
			"CONFIG SET lua-time-limit +5", "CONFIG SET lua-time-limit 007", "CONFIG SET lua-time-limit ' 5'",
			"CONFIG SET lua-time-limit 0x10", "CONFIG GET lua-time-limit",
		}},
		{"scan cursors", []string{
			"SET k v", // one key: SCAN's order is the hash table's
			`SCAN ""`, "SCAN ' 0'", "SCAN +0", "SCAN -0", "SCAN 0x0", "SCAN 18446744073709551616", "SCAN 1e2",
			`SCAN "0\x00junk"`, "ZADD z 1 m", "HSET h f v", `ZSCAN z "0\x00junk"`, `HSCAN h "0\x00junk"`, "ZSCAN z ' 0'", "HSCAN h +0",
			"ZSCAN z 18446744073709551616", "HSCAN h -", `ZSCAN z ""`,
		}},
		{"score bounds", []string{
			"ZADD z 1 a 16 b 32 c", "ZRANGEBYSCORE z (0x1 +inf", "ZRANGEBYSCORE z -inf (inf", "ZRANGEBYSCORE z 0x10 0X20",
			"ZRANGEBYSCORE z ' 1' 1e1", "ZRANGEBYSCORE z 1_0 2", "ZRANGEBYSCORE z nan 2", "ZCOUNT z -INFINITY +Infinity",
			"ZREMRANGEBYSCORE z (1 0x1p4", "ZRANGE z 0 -1 WITHSCORES",
		}},
		{"the keyspace operations commands share with the test double", []string{
			"ZADD n inf a", "ZINCRBY n -inf a", "ZADD n INCR -inf a", "ZSCORE n a",
			"ZADD n 1 b 2 c", "ZADD n CH 5 b 2 c 3 d", "ZADD n XX 9 e", "ZADD n NX GT 1 a", "ZADD n GT CH 0 b 9 c",
			"ZADD n LT INCR -1 c", "ZADD n XX INCR 1 nosuch", "ZADD missing XX 1 a", "EXISTS missing", "ZRANGE n 0 -1 WITHSCORES",
			"SET s 9223372036854775807", "INCR s", "INCRBY s -1", "DECRBY s -9223372036854775808", "GET s",
			"HSET s f v", "ZADD s 1 a", "INCR n", "HSET h a 1 b 2 a 3", "HGETALL h", "HSET h", "HMSET h a", "HMSET h c 4",
			`EVAL "return {pcall(redis.call, 'ZINCRBY', KEYS[1], '-inf', 'a'), redis.call('ZADD', KEYS[1], '0x1p1', 'z')}" 1 n`,
			"SET e v EX +5", "SET e v EX 010", "SET e v EX 1e3", "SET e v PX 0x10", "EXPIRE e 0x10",
		}},
	})
}
