package conformance

import (
	"fmt"
	"strings"
	"testing"
)

// The rate-limit scripts of the seed documents, unmodified.
const (
	seed000 = `EVAL "local c = redis.call('get', KEYS[1]) if c and tonumber(c) >= tonumber(ARGV[1]) then return 0 else c = redis.call('incr', KEYS[1]) if tonumber(c) == 1 then redis.call('expire', KEYS[1], ARGV[2]) end return 1 end" 1 "ratelimit:ip:10.0.0.1" 5 60`
	seed001 = `"local c = redis.call('INCR', KEYS[1]) if c == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end if c > tonumber(ARGV[1]) then return 0 end return 1"`

	// A sliding-window log: the timestamp and a unique member come in ARGV
	// so that the replies are deterministic.
	slidingWindow = `"local now = tonumber(ARGV[1]) local window = tonumber(ARGV[2]) local limit = tonumber(ARGV[3]) redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, now - window) local n = redis.call('ZCARD', KEYS[1]) if n < limit then redis.call('ZADD', KEYS[1], now, ARGV[4]) redis.call('PEXPIRE', KEYS[1], window) return {1, limit - n - 1} end return {0, 0}"`

	// A token bucket in a hash, refilled by elapsed time from ARGV.
	tokenBucket = `"local rate = tonumber(ARGV[1]) local capacity = tonumber(ARGV[2]) local now = tonumber(ARGV[3]) local want = tonumber(ARGV[4]) local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts') local tokens = tonumber(state[1]) or capacity local ts = tonumber(state[2]) or now tokens = math.min(capacity, tokens + (now - ts) * rate / 1000) local allowed = 0 if tokens >= want then tokens = tokens - want allowed = 1 end redis.call('HSET', KEYS[1], 'tokens', tokens, 'ts', now) redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / rate * 1000)) return {allowed, tostring(tokens)}"`

	// GCRA on the server's clock: the replies do not depend on the time as
	// long as the calls come within a minute of each other.
	gcra = `"local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000) local interval = tonumber(ARGV[1]) local burst = tonumber(ARGV[2]) local tat = tonumber(redis.call('GET', KEYS[1])) or now if tat < now then tat = now end local new_tat = tat + interval local allow_at = new_tat - burst * interval if now < allow_at then return {0, -1} end redis.call('SET', KEYS[1], new_tat, 'PX', new_tat - now) return {1, math.floor((now - allow_at) / interval)}"`
)

func TestScripting(t *testing.T) {
	runCases(t, []tcase{
		{"seed 000 fixed window", []string{
			seed000, seed000, seed000, seed000, seed000, seed000,
			"TTL ratelimit:ip:10.0.0.1", "GET ratelimit:ip:10.0.0.1",
		}},
		{"seed 001 incr first", []string{
			"EVAL " + seed001 + " 1 rate:user:42 3 60",
			"EVAL " + seed001 + " 1 rate:user:42 3 60",
			"EVAL " + seed001 + " 1 rate:user:42 3 60",
			"EVAL " + seed001 + " 1 rate:user:42 3 60",
			"EVAL " + seed001 + " 1 rate:user:42 3 60",
			"GET rate:user:42", "TTL rate:user:42",
		}},
		{"seed 001 by sha", []string{
			"SCRIPT LOAD " + seed001,
			"EVALSHA e94c8fe9d374c0dc4efaf6e39ef85d58e14c46b4 1 k 1 10",
			"EVALSHA e94c8fe9d374c0dc4efaf6e39ef85d58e14c46b4 1 k 1 10",
			"SCRIPT EXISTS e94c8fe9d374c0dc4efaf6e39ef85d58e14c46b4 1bc6b2bcd0fd5b1d21b4f0a7b6d8c9fce7b5d1d4",
		}},
		{"sliding window log", []string{
			"EVAL " + slidingWindow + " 1 sw 1000 60000 3 a",
			"EVAL " + slidingWindow + " 1 sw 1001 60000 3 b",
			"EVAL " + slidingWindow + " 1 sw 1002 60000 3 c",
			"EVAL " + slidingWindow + " 1 sw 1003 60000 3 d",
			"ZRANGE sw 0 -1 WITHSCORES",
			"!approx=1000 PTTL sw",
			"EVAL " + slidingWindow + " 1 sw 61001 60000 3 e",
			"EVAL " + slidingWindow + " 1 sw 61002 60000 3 f",
			"ZRANGE sw 0 -1",
			"ZCARD sw",
		}},
		{"token bucket", []string{
			"EVAL " + tokenBucket + " 1 tb 10 5 1000 2",
			"EVAL " + tokenBucket + " 1 tb 10 5 1000 2",
			"EVAL " + tokenBucket + " 1 tb 10 5 1000 2",
			"EVAL " + tokenBucket + " 1 tb 10 5 1050 1",
			"EVAL " + tokenBucket + " 1 tb 10 5 1100 1",
			"HGETALL tb",
			"!approx=1000 PTTL tb",
			"EVAL " + tokenBucket + " 1 tb 10 5 9000 5",
		}},
		{"gcra on TIME", []string{
			"EVAL " + gcra + " 1 g 60000 3",
			"EVAL " + gcra + " 1 g 60000 3",
			"EVAL " + gcra + " 1 g 60000 3",
			"EVAL " + gcra + " 1 g 60000 3",
			"EVAL " + gcra + " 1 g 60000 3",
			"!approx=1000 PTTL g",
			`!type EVAL "return redis.call('TIME')" 0`,
			`EVAL "local t = redis.call('TIME') return {type(t), #t, type(t[1]), tonumber(t[1]) > 1600000000, tonumber(t[2]) < 1000000}" 0`,
		}},
		{"keys and argv", []string{
			`EVAL "return KEYS" 2 a b c d`,
			`EVAL "return ARGV" 2 a b c d`,
			`EVAL "return {#KEYS, #ARGV}" 0`,
			`EVAL "return {#KEYS, #ARGV}" 3 a b c`,
			`EVAL "return KEYS[1]" 0`,
			`EVAL "return ARGV[1] .. KEYS[1]" 1 k v`,
			`EVAL "return 1" -1`,
			`EVAL "return 1" 2 a`,
			`EVAL "return 1" x`,
			`EVAL "return 1" 1.5`,
			`EVAL "return 1" 99999999999999999999`,
			`EVAL "return 1" " 1"`,
			`EVAL "return +" -1`,
			`EVAL "return +" 5`,
			`EVAL "return 1"`,
			`EVAL`,
			`EVALSHA abc`,
			`EVAL_RO "return 1"`,
		}},
		{"lua to redis conversions", []string{
			`EVAL "return 1" 0`,
			`EVAL "return -7" 0`,
			`EVAL "return 1.9" 0`,
			`EVAL "return -1.9" 0`,
			`EVAL "return 3.0" 0`,
			`EVAL "return 2^53" 0`,
			`EVAL "return 1e20" 0`,
			`EVAL "return 'str'" 0`,
			`EVAL "return ''" 0`,
			`EVAL "return true" 0`,
			`EVAL "return false" 0`,
			`EVAL "return nil" 0`,
			`EVAL "return" 0`,
			`EVAL "return {}" 0`,
			`EVAL "return {1, 2, 3}" 0`,
			`EVAL "return {1, nil, 3}" 0`,
			`EVAL "return {1, false, 3}" 0`,
			`EVAL "return {1, true, 'x', 2.5}" 0`,
			`EVAL "return {1, {2, {3, {'four'}}}}" 0`,
			`EVAL "return {a = 1, b = 2}" 0`,
			`EVAL "return {1, 2, a = 3}" 0`,
			`EVAL "return {ok = 'fine'}" 0`,
			`EVAL "return {err = 'My Error'}" 0`,
			`EVAL "return {err = 'ERR with code'}" 0`,
			`EVAL "return {err = 'x', ok = 'y'}" 0`,
			`EVAL "return {ok = 'multi\\nline'}" 0`,
			`EVAL "return redis.error_reply('custom failure')" 0`,
			`EVAL "return redis.error_reply('-WRONG thing')" 0`,
			`EVAL "return redis.status_reply('STATUS')" 0`,
			`EVAL "return {redis.status_reply('A'), redis.error_reply('B')}" 0`,
			`EVAL "return redis.error_reply()" 0`,
			`EVAL "return redis.status_reply(1)" 0`,
			`EVAL "return {1, {err = 'nested'}, {ok = 'ok'}}" 0`,
			`EVAL "return tostring(nil)" 0`,
			`EVAL "return 0/0 ~= 0/0" 0`,
			`EVAL "return {1, 2, 3, nil, 5}" 0`,
			`EVAL "return {{}, {{}}}" 0`,
			`EVAL "return 'a\0b'" 0`,
		}},
		{"redis to lua conversions", []string{
			"SET s hello", "SET n 42", "ZADD z 1 a 2 b", "HSET h f v",
			`EVAL "return redis.call('GET', 's')" 0`,
			`EVAL "return type(redis.call('GET', 's'))" 0`,
			`EVAL "return redis.call('GET', 'missing')" 0`,
			`EVAL "return type(redis.call('GET', 'missing'))" 0`,
			`EVAL "return tostring(redis.call('GET', 'missing'))" 0`,
			`EVAL "return redis.call('INCR', 'n')" 0`,
			`EVAL "return type(redis.call('INCR', 'n'))" 0`,
			`EVAL "return redis.call('SET', 'x', 'y')" 0`,
			`EVAL "return type(redis.call('SET', 'x', 'y'))" 0`,
			`EVAL "return redis.call('SET', 'x', 'y').ok" 0`,
			`EVAL "return redis.call('PING')" 0`,
			`EVAL "return redis.call('ZRANGE', 'z', 0, -1, 'WITHSCORES')" 0`,
			`EVAL "return redis.call('ZSCORE', 'z', 'b')" 0`,
			`EVAL "return type(redis.call('ZSCORE', 'z', 'b'))" 0`,
			`EVAL "return redis.call('ZINCRBY', 'z', 0.5, 'a')" 0`,
			`EVAL "return redis.call('MGET', 's', 'missing', 'n')" 0`,
			`EVAL "local r = redis.call('MGET', 's', 'missing') return {type(r), #r, type(r[2])}" 0`,
			`EVAL "return redis.call('HGETALL', 'h')" 0`,
			`EVAL "return redis.call('HGETALL', 'nohash')" 0`,
			`EVAL "return #redis.call('HGETALL', 'nohash')" 0`,
			`EVAL "return redis.call('EXISTS', 's', 'n', 'nope')" 0`,
			`EVAL "return redis.call('TTL', 's')" 0`,
			`EVAL "return redis.pcall('INCR', 's')" 0`,
			`EVAL "local r = redis.pcall('INCR', 's') return type(r)" 0`,
			`EVAL "local r = redis.pcall('INCR', 's') return r.err" 0`,
			`EVAL "return redis.pcall('NOSUCH')" 0`,
			`EVAL "return redis.pcall('GET')" 0`,
			`EVAL "return redis.pcall('ZADD', 's', 1, 'm')" 0`,
			`EVAL "local ok, e = pcall(redis.call, 'INCR', 's') return {tostring(ok), e.err}" 0`,
			`EVAL "return redis.call('SET', 'f', 3.5)" 0`,
			"GET f",
			`EVAL "return redis.call('SET', 'f', 1e20)" 0`,
			"GET f",
			`EVAL "return redis.call('SET', 'f', 0.1)" 0`,
			"GET f",
			`EVAL "return redis.call('SET', 'f', -0)" 0`,
			"GET f",
			`EVAL "return redis.call('SET', 'f', {})" 0`,
			`EVAL "return redis.call('SET', 'f', true)" 0`,
			`EVAL "return redis.pcall('SET', 'f', nil)" 0`,
			`EVAL "return redis.call()" 0`,
			`EVAL "return redis.pcall()" 0`,
		}},
		// Lua 5.1 names the variable a runtime error is about; floodgate
		// reads the failing instruction the same way (luaengine/objname.go).
		{"runtime error names", []string{
			`EVAL "return tonumber(ARGV[5]) + 1" 0`,
			`EVAL "local x return x + 1" 0`,
			`EVAL "return KEYS[3] .. 'x'" 0`,
			`EVAL "local t = {} return t.a.b" 0`,
			`EVAL "return #nil" 0`,
			`EVAL "local t = {} t.f()" 0`,
			`EVAL "return ARGV[1]:upper()" 0`,
			`EVAL "local x = nil return x.y" 0`,
			`EVAL "local t = {} return t.x + 1" 0`,
			`EVAL "local t = {} return 1 + t.x" 0`,
			`EVAL "return 1 + nil" 0`,
			`EVAL "return -nil" 0`,
			`EVAL "return #KEYS[1]" 0`,
			`EVAL "local c = redis.call('get','k') return c + 1" 0`,
			`EVAL "local a = {} local b = a.x return b.y" 0`,
			`EVAL "local t = {} for i=1,2 do t = t.x end" 0`,
			`EVAL "local s = 'a' return s.x.y" 0`,
			`EVAL "local t = {x={}} return t.x.y.z" 0`,
			`EVAL "local f = {} f()" 0`,
			`EVAL "return ({}).x.y" 0`,
			`EVAL "local x return 'a' .. x" 0`,
			`EVAL "local x return x .. 'a'" 0`,
			`EVAL "return 'a' .. nil .. 'b'" 0`,
			`EVAL "local t = {} return t.a .. t.b" 0`,
			`EVAL "return 'a' .. {}" 0`,
			`EVAL "local n = 5 return n .. nil" 0`,
			`EVAL "local t = {} return t.name .. ':' .. 1" 0`,
			`EVAL "local up = nil local function f() return up.x end return f()" 0`,
			`EVAL "local c = tonumber(ARGV[1]) if c > 5 then return 1 end return 0" 0`,
		}},
		{"errors", []string{
			"SET s hello", "ZADD z 1 a",
			`EVAL "error('boom')" 0`,
			`EVAL "error('boom', 0)" 0`,
			`EVAL "error({err = 'CUSTOM table error'})" 0`,
			`EVAL "error(42)" 0`,
			`EVAL "return redis.call('INCR', 's')" 0`,
			`EVAL "\n\nreturn redis.call('INCR', 's')" 0`,
			`EVAL "return redis.call('GET', 'z')" 0`,
			`EVAL "return redis.call('ZADD', 's', 1, 'a')" 0`,
			`EVAL "return redis.call('NOSUCH')" 0`,
			`EVAL "return redis.call('nosuch', 'a', 'b')" 0`,
			`EVAL "return redis.call('GET')" 0`,
			`EVAL "return redis.call('GET', 'a', 'b')" 0`,
			`EVAL "return redis.call('EVAL', 'return 1', 0)" 0`,
			`EVAL "return redis.call('MULTI')" 0`,
			`EVAL "return redis.call('SCRIPT', 'LOAD', 'return 1')" 0`,
			`EVAL "return redis.call('SCRIPT')" 0`,
			`EVAL "return redis.call('CONFIG', 'NOSUCH')" 0`,
			`EVAL "return redis.call('CONFIG', 'GET')" 0`,
			`EVAL "return nosuchvar" 0`,
			`EVAL "return nosuchfunc()" 0`,
			`EVAL "x = 1" 0`,
			`EVAL "local t = {} t.x.y = 1" 0`,
			`EVAL "return 1 + {}" 0`,
			`EVAL "return #5" 0`,
			`EVAL "return +" 0`,
			`EVAL "return 'unfinished" 0`,
			`EVAL "if true then" 0`,
			`EVAL "return 1 1" 0`,
			`EVAL "\n\nreturn +" 0`,
			`EVAL "return redis.call('SET', 'k')" 0`,
			`EVAL "redis.call('SET', 'ok1', 'v') error('after write')" 0`,
			"GET ok1",
			`EVAL "return redis.sha1hex()" 0`,
			`EVAL "return string.rep('x', -1)" 0`,
			`EVAL "return ('x'):bad()" 0`,
			`EVAL "return tonumber()" 0`,
			`EVAL "return string.format('%d', 'x')" 0`,
		}},
		{"library functions", []string{
			`EVAL "return string.format('%d %s %5.2f %x %q', 42, 'str', 3.14159, 255, 'a\"b')" 0`,
			`EVAL "return string.format('%.3f', 1/3)" 0`,
			`EVAL "return string.format('%g %g %g', 1e20, 0.1, 100)" 0`,
			`EVAL "return string.format('%5s|%-5s|', 'ab', 'cd')" 0`,
			`EVAL "return tostring(2^53)" 0`,
			`EVAL "return tostring(2^63)" 0`,
			`EVAL "return tostring(0.1 + 0.2)" 0`,
			`EVAL "return tostring(1/3)" 0`,
			`EVAL "return tostring(100)" 0`,
			`EVAL "return tostring(-0.5)" 0`,
			`EVAL "return tostring(1e15)" 0`,
			`EVAL "return tostring(1e16)" 0`,
			`EVAL "return tostring(1/0)" 0`,
			`EVAL "return tostring(-1/0)" 0`,
			`EVAL "return 1 .. ''" 0`,
			`EVAL "return 1.5 .. '|' .. 2^53 .. '|' .. 0.1" 0`,
			`EVAL "return tonumber('0x10')" 0`,
			`EVAL "return tonumber('  5  ')" 0`,
			`EVAL "return tonumber('1e2')" 0`,
			`EVAL "return tonumber('abc')" 0`,
			`EVAL "return tostring(tonumber('abc'))" 0`,
			`EVAL "return tonumber('10', 2)" 0`,
			`EVAL "return tonumber('ff', 16)" 0`,
			`EVAL "return tonumber('z', 36)" 0`,
			`EVAL "return tonumber('1.5')" 0`,
			`EVAL "return tostring(tonumber('1.5'))" 0`,
			`EVAL "return {math.floor(3.7), math.ceil(3.2), math.max(1, 9, 3), math.min(4, 2), math.abs(-5)}" 0`,
			`EVAL "return tostring(math.huge)" 0`,
			`EVAL "return tostring(math.pi)" 0`,
			`EVAL "return {math.fmod(7, 3), math.floor(math.sqrt(16)), math.pow(2, 10)}" 0`,
			`EVAL "return tostring(math.modf(3.7))" 0`,
			`EVAL "return {bit.band(12, 10), bit.bor(12, 10), bit.bxor(12, 10), bit.bnot(0)}" 0`,
			`EVAL "return {bit.lshift(1, 4), bit.rshift(256, 4), bit.arshift(-256, 4)}" 0`,
			`EVAL "return {bit.tohex(255), bit.tohex(255, 4), bit.tohex(-1)}" 0`,
			`EVAL "return bit.tobit(2^32 + 5)" 0`,
			`EVAL "return table.concat({1, 2, 'three'}, ',')" 0`,
			`EVAL "return table.concat({}, ',')" 0`,
			`EVAL "local t = {3, 1, 2} table.sort(t) return t" 0`,
			`EVAL "local t = {'b', 'c', 'a'} table.sort(t, function(a, b) return a > b end) return t" 0`,
			`EVAL "local t = {1} table.insert(t, 2) table.insert(t, 1, 0) return t" 0`,
			`EVAL "local t = {1, 2, 3} table.remove(t, 1) return t" 0`,
			`EVAL "return table.getn({1, 2, 3})" 0`,
			`EVAL "return {unpack({1, 2, 3})}" 0`,
			// 60 nested calls each holding 7,000 values: the Lua stack grows
			// to 420,000 slots (and fast: gopher-lua's default growth step
			// made this take seconds).
			`EVAL "local t = {} for i = 1, 7000 do t[i] = i end local function f(n, ...) if n == 0 then return select('#', ...) end return 1 + f(n - 1, unpack(t)) end return f(60)" 0`,
			// Recursion: 2,000 nested calls run (gopher-lua's default stack held
			// 256); past Lua 5.1's limit (16,384 to 20,000 calls, with the
			// state's history) the error carries Redis's suffix.
			`EVAL "local function f(n) if n == 0 then return 0 end return 1 + f(n - 1) end return f(2000)" 0`,
			`EVAL "local function f(n) if n == 0 then return 0 end return 1 + f(n - 1) end return f(30000)" 0`,
			`EVAL "return redis.sha1hex('')" 0`,
			`EVAL "return redis.sha1hex('hello')" 0`,
			`EVAL "return string.rep('ab', 3)" 0`,
			`EVAL "return {string.sub('hello', 2, 4), string.sub('hello', -3)}" 0`,
			`EVAL "return {string.byte('A'), string.char(72, 105)}" 0`,
			`EVAL "return {string.upper('abc'), string.lower('ABC'), string.len('abc'), string.reverse('abc')}" 0`,
			`EVAL "return {string.gsub('hello world', 'o', '0')}" 0`,
			`EVAL "return {string.find('hello', 'll')}" 0`,
			`EVAL "return {string.match('key:123', '(%a+):(%d+)')}" 0`,
			`EVAL "local out = {} for w in string.gmatch('a b c', '%a') do out[#out + 1] = w end return out" 0`,
			`EVAL "return type(string.gmatch)" 0`,
			`EVAL "return {type(cjson), type(struct), type(cmsgpack), type(bit)}" 0`,
			`EVAL "return redis.REDIS_VERSION" 0`,
			`EVAL "return redis.REDIS_VERSION_NUM" 0`,
			`EVAL "return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}" 0`,
			`EVAL "redis.log(redis.LOG_WARNING, 'from a test') return 1" 0`,
			`EVAL "return _VERSION" 0`,
			`EVAL "return select('#', 1, 2, 3)" 0`,
			`EVAL "return {pcall(error, 'x')}" 0`, `EVAL "return {pcall(function() error('x') end)}" 0`, `EVAL "return {pcall(function() error('x', 2) end)}" 0`, `EVAL "return {pcall(error, 'x', 2)}" 0`, `EVAL "return {pcall(error)}" 0`, `EVAL "error('boom')" 0`, `EVAL "error({err='MY code'})" 0`,
			`EVAL "local ok, e = pcall(function() error({code = 1}) end) return type(e)" 0`,
			`EVAL "return type(next)" 0`,
			`EVAL "local n = 0 for k, v in pairs({a = 1, b = 2}) do n = n + v end return n" 0`,
			`EVAL "local s = 0 for i, v in ipairs({5, 6, 7}) do s = s + i * v end return s" 0`,
			`EVAL "local mt = {__index = function(t, k) return k .. '!' end} return setmetatable({}, mt).hi" 0`,
			`EVAL "return rawget({a = 1}, 'a')" 0`,
			`EVAL "return type(coroutine)" 0`,
			`EVAL "return math.random(1, 1)" 0`,
		}},
		{"sandbox", []string{
			`EVAL "return {type(os), type(io), type(loadfile), type(dofile), type(require), type(debug), type(package)}" 0`,
			`EVAL "return type(print)" 0`,
			`EVAL "return type(loadstring)" 0`,
			`EVAL "return type(load)" 0`,
			`EVAL "return type(newproxy)" 0`,
			`EVAL "return type(getfenv)" 0`,
			`EVAL "return type(_G)" 0`,
			`EVAL "redis = nil" 0`,
			`EVAL "_G.x = 1" 0`,
			`EVAL "rawset(_G, 'x', 1)" 0`,
			`EVAL "string.x = 1" 0`,
			`EVAL "math.floor = nil" 0`,
			`EVAL "redis.call = nil" 0`,
			`EVAL "setmetatable(_G, nil)" 0`,
			`EVAL "local x = 1 return x" 0`,
			`EVAL "local function f() return 5 end return f()" 0`,
			`EVAL "return os.time()" 0`,
			`EVAL "return io.write('x')" 0`,
			`EVAL "return loadfile('/etc/passwd')" 0`,
			`EVAL "return dofile('/etc/passwd')" 0`,
			`EVAL "return rawget(_G, 'nosuch')" 0`,
		}},
		{"shebang", []string{
			"SET k v",
			"EVAL \"#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])\" 1 k",
			"EVAL \"#!lua flags=no-writes\nreturn redis.call('SET', KEYS[1], 'x')\" 1 k",
			"EVAL \"#!lua flags=no-writes\nreturn redis.pcall('DEL', KEYS[1])\" 1 k",
			"EVAL \"#!lua\nreturn redis.call('SET', KEYS[1], 'y')\" 1 k",
			"GET k",
			"EVAL \"#!lua flags=no-writes,allow-oom\nreturn 1\" 0",
			"EVAL \"#!lua flags=allow-stale,no-cluster\nreturn 2\" 0",
			"EVAL \"#!lua flags=bad\nreturn 1\" 0",
			"EVAL \"#!lua flags=no-writes,bad\nreturn 1\" 0",
			"EVAL \"#!lua nosuch=1\nreturn 1\" 0",
			"EVAL \"#!nolua\nreturn 1\" 0",
			"EVAL \"#!lua\" 0",
			"EVAL \"#!lua flags=\nreturn 1\" 0",
			"EVAL \"#!lua\n\nreturn +\" 0",
			"EVAL \"#!lua\nreturn nosuch.x\" 0",
			"EVAL \"#!lua\n\nerror('line three')\" 0",
			"EVAL \"#comment\nreturn 1\" 0",
		}},
		{"read-only scripts", []string{
			"SET k v",
			`EVAL_RO "return redis.call('GET', KEYS[1])" 1 k`,
			`EVAL_RO "return redis.call('SET', KEYS[1], 'x')" 1 k`,
			`EVAL_RO "return redis.pcall('INCR', KEYS[1])" 1 k`,
			`EVAL_RO "return redis.call('DEL', KEYS[1])" 1 k`,
			`EVAL_RO "return redis.call('EXPIRE', KEYS[1], 10)" 1 k`,
			"GET k",
			"EVAL_RO \"#!lua\nreturn 1\" 0",
			"EVAL_RO \"#!lua flags=no-writes\nreturn 1\" 0",
			"SCRIPT LOAD \"return redis.call('SET', KEYS[1], 'ro')\"",
			"EVALSHA_RO e78e7d3c9f32f518abdd3bb855cf8f7832408e2a 1 k",
			"SCRIPT LOAD \"return redis.call('GET', KEYS[1])\"",
			"EVALSHA_RO d3c21d0c2b9ca22f82737626a27bcaf5d288f99f 1 k",
			`EVAL_RO "return 1" -1`,
			`EVAL_RO "return +" 0`,
		}},
		{"script load exists flush", []string{
			"SCRIPT FLUSH",
			`SCRIPT LOAD "return 1"`,
			`SCRIPT LOAD "return 1"`,
			"SCRIPT EXISTS e0e1f9fabfc9d4800c877a703b823ac0578ff8db",
			"SCRIPT EXISTS e0e1f9fabfc9d4800c877a703b823ac0578ff8db E0E1F9FABFC9D4800C877A703B823AC0578FF8DB x 0000000000000000000000000000000000000000",
			"EVALSHA e0e1f9fabfc9d4800c877a703b823ac0578ff8db 0",
			"EVALSHA E0E1F9FABFC9D4800C877A703B823AC0578FF8DB 0",
			"evalsha e0e1f9fabfc9d4800c877a703b823ac0578ff8db 0",
			"EVALSHA e0e1f9fabfc9d4800c877a703b823ac0578ff8db -1",
			"EVALSHA e0e1f9fabfc9d4800c877a703b823ac0578ff8db x",
			"EVALSHA e0e1f9fabfc9d4800c877a703b823ac0578ff8db 3 a",
			"EVALSHA 0000000000000000000000000000000000000000 0",
			"EVALSHA 0000000000000000000000000000000000000000 -1",
			"EVALSHA 0000000000000000000000000000000000000000 x",
			"EVALSHA nosuch 0",
			"EVALSHA nosuch -1",
			"EVALSHA 00000000000000000000000000000000000000001 x",
			"EVALSHA_RO 0000000000000000000000000000000000000000 0",
			`EVAL "return 2" 0`,
			"SCRIPT EXISTS 7f923f79fe76194c868d7e1d0820de36700eb649",
			"EVALSHA 7f923f79fe76194c868d7e1d0820de36700eb649 0",
			"SCRIPT FLUSH",
			"SCRIPT EXISTS e0e1f9fabfc9d4800c877a703b823ac0578ff8db 7f923f79fe76194c868d7e1d0820de36700eb649",
			"EVALSHA e0e1f9fabfc9d4800c877a703b823ac0578ff8db 0",
			"SCRIPT FLUSH ASYNC",
			"SCRIPT FLUSH sync",
			"SCRIPT FLUSH x",
			"SCRIPT FLUSH ASYNC SYNC",
			"SCRIPT FLUSH SYNC extra",
			`SCRIPT LOAD "return +"`,
			`SCRIPT LOAD "#!lua flags=bad\nreturn 1"`,
			"SCRIPT LOAD",
			"SCRIPT LOAD a b",
			"SCRIPT EXISTS",
			"SCRIPT",
			"SCRIPT NOSUCH",
			"SCRIPT KILL",
			"SCRIPT KILL extra",
			"SCRIPT HELP",
			"SCRIPT help extra",
			"SCRIPT DEBUG NO",
			"SCRIPT DEBUG maybe",
			"SCRIPT DEBUG",
		}},
		{"select inside a script", []string{
			"SET a db0",
			`EVAL "redis.call('SELECT', 1) redis.call('SET', 'a', 'db1') return redis.call('GET', 'a')" 0`,
			"GET a",
			"SELECT 1",
			"GET a",
			`EVAL "return redis.call('GET', 'a')" 0`,
			"DEL a",
			"SELECT 0",
		}},
		{"expiry inside a script", []string{
			`EVAL "redis.call('SET', KEYS[1], 'v', 'PX', 100000) return redis.call('PTTL', KEYS[1]) > 99000" 1 k`,
			`EVAL "redis.call('SET', KEYS[1], 'v') redis.call('EXPIRE', KEYS[1], 100) return redis.call('TTL', KEYS[1])" 1 k`,
			`EVAL "redis.call('SET', KEYS[1], 'v') redis.call('PEXPIRE', KEYS[1], -1) return redis.call('EXISTS', KEYS[1])" 1 k`,
			`EVAL "return redis.call('EXPIRE', KEYS[1], 'x')" 1 k`,
			`EVAL "redis.call('SET', KEYS[1], 'v') redis.call('PERSIST', KEYS[1]) return redis.call('TTL', KEYS[1])" 1 k`,
		}},
		{"eval inside multi", []string{
			"MULTI",
			`EVAL "return redis.call('INCR', KEYS[1])" 1 m`,
			`EVAL "return redis.call('INCR', KEYS[1])" 1 m`,
			"EVAL \"return +\" 0",
			"EXEC",
			"GET m",
		}},
	})
}

// evalLine is an EVAL of script with no keys, quoted for splitArgs.
func evalLine(script string) string {
	var b strings.Builder
	b.WriteString(`EVAL "`)
	for i := 0; i < len(script); i++ {
		switch c := script[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < ' ' || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteString(`" 0`)
	return b.String()
}

// Scripts Lua 5.1 refuses to compile: Redis replies "ERR Error compiling
// script (new function): user_script:<line>: <msg> near '<token>'", with
// Lua 5.1's exact message, line and token.
var compileErrorScripts = []string{
	// '<token>' expected, and which block it would close
	"if true then", "if true then\nreturn 1", "function f()\nreturn 1", "do\nlocal x = 1",
	"while true do\n", "repeat\nlocal x = 1", "return {1\n,2", "return {1, 2", "f(1, 2", "return (1",
	"return 1 1", "return 1 end", "end", "elseif", "return 'a' 'b'", "return a.1", "return 1;;",
	"x", "x, y", "goto x", "x = \"abc\" y", "if x return 1 end", "while true return end",
	"for i = 1 do end", "for i=1,2,3,4 do end", "for x, y z in pairs(t) do end", "for i 1, 2 do end",
	"local t = {} t[1 = 2", "return {[1] 2}", "local t = {a = 1 b = 2}", "while true do return 1 x = 2 end",
	"if x then else elseif y then end",
	// names
	"local", "local 1 = 2", "local x, = 1", "function () end", "function f(1) end", "function f(a,) end",
	"x.", "return x:", "for a, 1 in pairs(t) do end", "function a.b.c:d.e() end", "local function a.b() end",
	// expressions
	"x = ", "local x 1", "return + 1", "return )", "return ==", "return not", "return {a = }", "return a[]",
	"x, 1 = 2, 3", "f() = 1", "x = 1 = 2", "(x) = 1", "x:y", "x:y + 1", "return true()", "return {}()",
	"x = 1 // 2", "return ~1", "::x::", "local a <const> = 1", "return \x01", "return \x7f", "\x1bLua",
	"return 1 \x00 2", "return \xc3\xa9",
	// varargs, break, ambiguity
	"local function f() return ... end", "function f(a, ...) local function g() return ... end end",
	"break", "if true then break end", "while true do local function f() break end end",
	"f\n(1)", "local f = print\n(f)(1)", "local t = {} t.x\n(1)",
	// the lexer
	"return 1.2.3", "return 0x", "return 1e", "return 3..2", "return 12abc", "return 0x.8p1 1",
	"return '\\300'", "return 'abc\ndef'", "return 'a\\0b\nc'", "return 'ab\rc'", "return \"a", "return '\\",
	"return [[abc", "return [[\nabc\ndef", "--[[ comment", "return [==[ x ]]", "return [=x",
	"return 1 [[a\nb]]", "return 1 'a\\\nb'", "return 1 'a\\65b'", "return 1 +\r\n\r\n", "return 1 +\n\r\n\r",
	"x = 1 +\n-- comment\n", "--[==[ a\n]] ]==] return 1 1",
	// shebang scripts keep their line numbers
	"#!lua\nreturn 1 1", "#!lua flags=no-writes\nif x",
}

func TestScriptingCompileErrors(t *testing.T) {
	var lines []string
	for _, s := range compileErrorScripts {
		lines = append(lines, evalLine(s))
	}
	deep := func(open, close string, n int) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	names := func(prefix string, n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf("%s%d", prefix, i)
		}
		return strings.Join(s, ", ")
	}
	var upvalues strings.Builder
	for i := 0; i < 61; i++ {
		fmt.Fprintf(&upvalues, "local u%d = %d\n", i, i)
	}
	use := strings.ReplaceAll(names("u", 61), ", ", " + ")
	limits := []string{
		// 200 syntax levels: the chunk, the expression, one per parenthesis
		evalLine("return " + deep("(", ")", 198)),
		evalLine("return " + deep("(", ")", 199)),
		evalLine(strings.Repeat("do ", 200) + strings.Repeat("end ", 200)),
		evalLine("return " + strings.Repeat("1 ^ ", 198) + "1"),
		evalLine("local " + names("v", 200)),
		evalLine("local " + names("v", 201)),
		evalLine("local function f() local " + names("v", 201) + " end"),
		evalLine("for i = 1, 2 do local " + names("v", 197) + " end"),
		evalLine(upvalues.String() + "local function f()\nreturn " + use + "\nend"),
		evalLine(upvalues.String() + "local function f()\nreturn function()\nreturn " + use + "\nend\nend"),
		evalLine(names("a", 200) + " = 1"),
		evalLine(names("a", 201) + " = 1"),
	}
	runCases(t, []tcase{
		{"lua 5.1 compile errors", lines},
		{"lua 5.1 limits", limits},
		{"compile errors by script load", []string{
			`SCRIPT LOAD "if x then"`,
			`SCRIPT LOAD "return 1 1"`,
			`SCRIPT LOAD "return ..."`,
		}},
		{"valid lua 5.1", []string{
			evalLine("return ..."),
			evalLine("local f = function(...) return ... end return f(1, 2)"),
			evalLine("local function f(...) return arg.n end return f(1, 2)"),
			evalLine("return [[a [[ b]]"),
			evalLine("return {0x10, 1e2, .5 * 4, 5.e1}"),
			evalLine("local t = {a = 1; b = 2,} return t.a + t.b"),
			evalLine("local x = 1\n(function() end)()\nreturn x"),
			evalLine("return ('x'):rep(3)"),
			evalLine("return #{...}"),
			evalLine("--[==[ a\n]] ]==] return 1"),
			evalLine("return 'a\\\nb'"),
			// hexadecimal numerals are read by strtod, as in Lua 5.1
			evalLine("return 0x1p4"),
			evalLine("return {tostring(0xffffffffffffffff), tostring(0x10000000000000000000)}"),
			evalLine("return {0xff, 0XA, 0x10 .. 'x', -0x10}"),
			evalLine("return 0x10..'x'"),
		}},
	})
}

func TestScriptingCJSON(t *testing.T) {
	runCases(t, []tcase{
		{"cjson.null", []string{
			`EVAL "return type(cjson.null)" 0`,
			`EVAL "return tostring(cjson.null)" 0`,
			`EVAL "return tostring(cjson.decode('null'))" 0`,
			`EVAL "return {cjson.null == cjson.null, rawequal(cjson.null, cjson.decode('null')), cjson.null ~= nil}" 0`,
			`EVAL "return cjson.null == nil" 0`,
			`EVAL "return cjson.null == false" 0`,
			`EVAL "return cjson.null and 1 or 2" 0`,
			`EVAL "local t = {} t[cjson.null] = 1 return t[cjson.decode('null')]" 0`,
			`EVAL "return type(cjson.decode('[null]')[1])" 0`,
			`EVAL "return type(cjson.decode('{\"a\":null}').a)" 0`,
			`EVAL "return #cjson.decode('[1,null,3]')" 0`,
			`EVAL "return cjson.encode(cjson.null)" 0`,
			`EVAL "return cjson.encode({cjson.null, 1})" 0`,
			`EVAL "return cjson.encode({a = cjson.null})" 0`,
			`EVAL "return cjson.encode(cjson.decode('{\"a\":[null,{\"b\":null}]}'))" 0`,
			`EVAL "return {pcall(cjson.encode, cjson.null)}" 0`,
			`EVAL "return cjson.null" 0`,
			`EVAL "return {1, cjson.null, 2}" 0`,
			`EVAL "return cjson.decode('[1,null,3]')" 0`,
			`EVAL "return getmetatable(cjson.null)" 0`,
			`EVAL "return select('#', cjson.null)" 0`,
			`EVAL "return tonumber(cjson.null)" 0`,
			`EVAL "return tostring(cjson.null) == tostring(cjson.decode('null'))" 0`,
			`EVAL "return cjson.null == cjson.new().null" 0`,
			`EVAL "return cjson.null.x" 0`,
			`EVAL "return cjson.null()" 0`,
			`EVAL "return #cjson.null" 0`,
			`EVAL "return cjson.null .. 'x'" 0`,
			`EVAL "return cjson.null + 1" 0`,
			`EVAL "return cjson.null < cjson.null" 0`,
			`EVAL "return string.format('%s', cjson.null)" 0`,
			`EVAL "return struct.pack('>I', cjson.null)" 0`,
			`EVAL "return redis.call('SET', 'k', cjson.null)" 0`,
			`EVAL "return redis.status_reply(cjson.null)" 0`,
			`EVAL "return cjson.encode(redis.call('GET', 'nokey'))" 0`,
		}},
		{"cjson objects list their keys in Lua 5.1's lua_next order", []string{
			`EVAL "return cjson.encode({a=1,b=2,c=3})" 0`,
			`EVAL "return cjson.encode({allowed=1, remaining=5, reset=60})" 0`,
			`EVAL "return cjson.encode({a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8,i=9})" 0`,
			`EVAL "return cjson.encode({tokens=5, ts=1000, allowed=true, retry_after=-1, reset_after=0})" 0`,
			`EVAL "local t = {} t.allowed = 1 t.remaining = 5 t.reset = 60 return cjson.encode(t)" 0`,
			`EVAL "local t = {} t.x = 1 t.y = 2 t.z = 3 t.w = 4 t.v = 5 return cjson.encode(t)" 0`,
			`EVAL "local t = {a=1,b=2,c=3} t.d = 4 t.e = 5 return cjson.encode(t)" 0`,
			`EVAL "local t = {} for i = 1, 20 do t['k' .. i] = i end return cjson.encode(t)" 0`,
			`EVAL "return cjson.encode(cjson.decode('{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5}'))" 0`,
			`EVAL "return cjson.encode(cjson.decode('{\"user\":\"x\",\"count\":3,\"window\":60,\"limit\":100}'))" 0`,
			`EVAL "return cjson.encode({{a=1,b=2},{c=3,d=4,e=5}})" 0`,
			`EVAL "return cjson.encode({x={y={z=1,w=2},v=3},u=4})" 0`,
			`EVAL "return cjson.encode({[1.5]=1})" 0`,
		}},
		{"cjson settings outlive a script until SCRIPT FLUSH", []string{
			"SCRIPT FLUSH",
			`EVAL "return {cjson.encode_max_depth(2), cjson.decode_max_depth(3), cjson.encode_number_precision(3)}" 0`,
			`EVAL "return {cjson.encode_max_depth(), cjson.decode_max_depth(), cjson.encode_number_precision()}" 0`,
			`EVAL "return {pcall(cjson.encode, {{{1}}})}" 0`,
			`EVAL "return {pcall(cjson.decode, '[[[[1]]]]')}" 0`,
			`EVAL "return cjson.encode(math.pi)" 0`,
			`EVAL "return {cjson.encode_keep_buffer(false), cjson.encode_invalid_numbers('null'), cjson.decode_invalid_numbers(false)}" 0`,
			`EVAL "return {cjson.encode_keep_buffer(), cjson.encode_invalid_numbers(), cjson.decode_invalid_numbers()}" 0`,
			`EVAL "return cjson.encode(0/0)" 0`,
			`EVAL "return {pcall(cjson.decode, 'NaN')}" 0`,
			`EVAL "return {cjson.encode_sparse_array(true, 5, 5)}" 0`,
			`EVAL "return cjson.encode({[8] = 1})" 0`,
			`EVAL "return {cjson.new().encode_max_depth(), cjson.new().encode({[8] = 1})}" 0`,
			"SCRIPT FLUSH",
			`EVAL "return {cjson.encode_max_depth(), cjson.decode_max_depth(), cjson.encode_number_precision()}" 0`,
			`EVAL "return {cjson.encode_keep_buffer(), cjson.encode_invalid_numbers(), cjson.decode_invalid_numbers()}" 0`,
			`EVAL "return {cjson.encode_sparse_array()}" 0`,
			`EVAL "return {cjson.encode(math.pi), cjson.encode({[8] = 1})}" 0`,
			`EVAL "return {pcall(cjson.encode, {{{1}}})}" 0`,
			// The defaults again, for the cases that run after this one.
			`EVAL "return {cjson.encode_max_depth(1000), cjson.decode_max_depth(1000), cjson.encode_number_precision(14), cjson.encode_keep_buffer(true), cjson.encode_invalid_numbers(false), cjson.decode_invalid_numbers(true), cjson.encode_sparse_array(false, 2, 10)}" 0`,
		}},
	})
}

// Lua 5.1's luaG_ordererror: "two <type> values" for one type, else both
// types in the order the comparison was compiled (a > b is b < a).
func TestScriptingCompareErrors(t *testing.T) {
	runCases(t, []tcase{{"order comparison errors", []string{
		`EVAL "return 1 < 'x'" 0`,
		`EVAL "return 1 > 'x'" 0`,
		`EVAL "return {} < {}" 0`,
		`EVAL "return {} <= {}" 0`,
		`EVAL "return nil < 1" 0`,
		`EVAL "return nil >= 1" 0`,
		`EVAL "return true < false" 0`,
		`EVAL "local t = {} return t < 1" 0`,
		`EVAL "return 1 < cjson.null" 0`,
		`EVAL "return cjson.null <= cjson.null" 0`,
		`EVAL "return redis.call('GET', 'nokey') < 1" 0`,
	}}})
}

// Errors caught by pcall and xpcall read as Lua 5.1's, with the variable
// named where Lua names it, as they do when they end the script.
func TestScriptingPcallErrors(t *testing.T) {
	runCases(t, []tcase{
		{"pcall runtime errors", []string{
			`EVAL "return {pcall(function() return {} < {} end)}" 0`,
			`EVAL "return {pcall(function() return 1 < 'x' end)}" 0`,
			`EVAL "return {pcall(function() local x; return x.y end)}" 0`,
			`EVAL "return {pcall(function() local t = nil; t.x = 1 end)}" 0`,
			`EVAL "return {pcall(function() local t = {} return t.a.b end)}" 0`,
			`EVAL "return {pcall(function() return KEYS[1].x end)}" 0`,
			`EVAL "return {pcall(function() return nosuch.y end)}" 0`,
			`EVAL "return {pcall(function() local t = {} t.f() end)}" 0`,
			`EVAL "return {pcall(function() local t = {} t:m() end)}" 0`,
			`EVAL "return {pcall(function() return ('x')() end)}" 0`,
			`EVAL "return {pcall(function() return 1 + {} end)}" 0`,
			`EVAL "return {pcall(function() local a = {} return a + 1 end)}" 0`,
			`EVAL "return {pcall(function() local a = {} return 1 + a end)}" 0`,
			`EVAL "return {pcall(function() return 'x' + 1 end)}" 0`,
			`EVAL "return {pcall(function() return 'x' * '5' end)}" 0`,
			`EVAL "return {pcall(function() return '5' * 'x' end)}" 0`,
			`EVAL "return {pcall(function() return 2 ^ {} end)}" 0`,
			`EVAL "return {pcall(function() return -{} end)}" 0`,
			`EVAL "return {pcall(function() return #nil end)}" 0`,
			`EVAL "return {pcall(function() local s = {} return 'a' .. s end)}" 0`,
			`EVAL "return {pcall(function() return nil .. 'a' end)}" 0`,
			`EVAL "return {pcall(function() error('x') end)}" 0`,
			`EVAL "return {pcall(function() error({err='x'}) end)}" 0`,
			`EVAL "local ok, e = pcall(function() error({err='x'}) end) return type(e)" 0`,
			`EVAL "return {pcall(1)}" 0`,
			`EVAL "return {pcall(setmetatable({}, {__call = function(self, a) return a end}), 7)}" 0`,
			`EVAL "return {pcall(function() return 1, 2 end)}" 0`,
			// A caught message ends the script as it was caught.
			`EVAL "local ok, e = pcall(function() local x; return x.y end) error(e, 0)" 0`,
			`EVAL "local ok, e = pcall(function() local x; return x.y end) error(e)" 0`,
			`EVAL "local ok, e = pcall(function() local x; return x.y end) return #e" 0`,
		}},
		{"xpcall", []string{
			`EVAL "return {xpcall(function() local x; return x.y end, function(m) return 'H:' .. m end)}" 0`,
			`EVAL "return {xpcall(function() return {} < {} end, function(m) return m end)}" 0`,
			`EVAL "return {xpcall(function() return 1, 2 end, error)}" 0`,
			`EVAL "return {xpcall(error, function(m) return type(m) end)}" 0`,
			`EVAL "local ok, e = xpcall(function() error({err='x'}) end, function(m) return m end) return type(e)" 0`,
			`EVAL "local ok, e = xpcall(function() redis.call('nosuch') end, function(m) return m end) return type(e)" 0`,
			`EVAL "return {xpcall(1, function(m) return m end)}" 0`,
			`EVAL "return {xpcall(1, 2)}" 0`,
			`EVAL "return {xpcall(function() local x; return x.y end, 3)}" 0`,
			`EVAL "return {xpcall(function() error('a') end, function(m) error('b') end)}" 0`,
			`EVAL "return {xpcall()}" 0`,
			`EVAL "return {xpcall(1)}" 0`,
		}},
		// gopher-lua left the upvalues of a failed function open (reading
		// registers reused later), or closed those of live frames too.
		{"upvalues after a caught error", []string{
			`EVAL "local f; pcall(function() local x = 1; f = function() return x end; error('e') end); local a, b, c, d = 5, 6, 7, 8; return f()" 0`,
			`EVAL "pcall(error, 'x'); local f; pcall(function() local x = 1; f = function() return x end; error('e') end); local a, b, c, d = 5, 6, 7, 8; return f()" 0`,
			`EVAL "local x = 1; local f = function() return x end; pcall(error, 'e'); x = 2; return f()" 0`,
			`EVAL "local x = 1; local f = function() return x end; pcall(error, 'e'); pcall(error, 'e'); x = 2; return f()" 0`,
			`EVAL "local f; xpcall(function() local x = 1; f = function() return x end; error('e') end, function(m) return m end); local a, b, c, d = 5, 6, 7, 8; return f()" 0`,
			`EVAL "local g; pcall(function() local y = 3; g = function() y = y + 1; return y end; pcall(function() local z = 1; error('in') end); error('out') end); local a, b, c = 9, 9, 9; return {g(), g()}" 0`,
		}},
	})
}

// Error and status replies keep a script's bytes: Redis reads the text as a
// C string (it ends at a NUL) and only turns CR and LF into spaces.
func TestScriptingReplyBytes(t *testing.T) {
	runCases(t, []tcase{{"error and status bytes", []string{
		`EVAL "error('\\255x')" 0`,
		`EVAL "error('a\\255\\r\\nb\\n')" 0`,
		`EVAL "error('a\\rb\\n\\n', 0)" 0`,
		`EVAL "error('\\0\\255', 0)" 0`,
		`EVAL "error('a\\0b')" 0`,
		`EVAL "error({err='X\\255\\nz'})" 0`,
		`EVAL "error({err='x\\0y'})" 0`,
		`EVAL "error({err='X\\n'})" 0`,
		`EVAL "error({err='\\255'})" 0`,
		`EVAL "return {err='x\\255\\n'}" 0`,
		`EVAL "return {err='x\\r\\ny\\r\\n'}" 0`,
		`EVAL "return {err='x\\0y'}" 0`,
		`EVAL "return {err='\\255'}" 0`,
		`EVAL "return {1, {err='q\\254\\n'}}" 0`,
		`EVAL "return {1, {err='a\\0b'}}" 0`,
		`EVAL "return redis.error_reply('e\\255\\n1')" 0`,
		`EVAL "return redis.error_reply('a\\0b')" 0`,
		`EVAL "return redis.status_reply('s\\255\\n')" 0`,
		`EVAL "return redis.status_reply('a\\r\\n')" 0`,
		`EVAL "return {ok='a\\0b'}" 0`,
		`EVAL "return {ok='x\\255\\n'}" 0`,
		`EVAL "return {big_number='12\\255\\n3\\0x'}" 0`,
		`EVAL "redis.setresp(3) return {big_number='12\\255\\n3\\0x'}" 0`,
		`EVAL "return {verbatim_string={format='txt', string='a\\255\\n\\0b'}}" 0`,
		`EVAL "return {pcall(error, '\\255\\0x')}" 0`,
	}}})
}

// loadstring names its chunks as Lua 5.1's luaO_chunkid does, compiles them
// as scripts are, and error levels count as Lua's.
func TestScriptingLoadstring(t *testing.T) {
	runCases(t, []tcase{
		{"loadstring chunk names", []string{
			`EVAL "loadstring('error(\"e\")', '=mychunk')()" 0`,
			`EVAL "loadstring('error(\"e\")', '@file')()" 0`,
			`EVAL "loadstring('error(\"e\")', 'nm')()" 0`,
			`EVAL "loadstring('\\n\\nerror(\"e\")')()" 0`,
			`EVAL "loadstring('local x; return x.y')()" 0`,
			`EVAL "loadstring('local t = {} return t.a.b')()" 0`,
			`EVAL "loadstring('return 1 + {}')()" 0`,
			`EVAL "return {pcall(loadstring('local x; return x.y'))}" 0`,
			`EVAL "return {pcall(loadstring('-- aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\\nerror(\"e\")'))}" 0`,
			`EVAL "return select(2, pcall(loadstring('error(\"e\")', '=' .. string.rep('b', 100))))" 0`,
			`EVAL "return select(2, pcall(loadstring('error(\"e\")', '@' .. string.rep('b', 100))))" 0`,
			`EVAL "return select(2, pcall(loadstring('error(\"e\")', 'x\\ry')))" 0`,
			`EVAL "local f = loadstring('x = 1') return {pcall(f)}" 0`,
			`EVAL "return loadstring('return ...')(1, 2)" 0`,
			`EVAL "return loadstring('return 1.5 .. \"\" .. 0.1')()" 0`,
			`EVAL "return loadstring('return redis.call(\"ping\")')()" 0`,
			`EVAL "return {pcall(loadstring, 1)}" 0`,
		}},
		{"loadstring compile errors", []string{
			`EVAL "return select(2, loadstring('x x'))" 0`,
			`EVAL "return select(2, loadstring('x x', 'nm'))" 0`,
			`EVAL "return select(2, loadstring('x x', '=nm'))" 0`,
			`EVAL "return select(2, loadstring('\\n\\nx x'))" 0`,
			`EVAL "return select(2, loadstring('return \"abc'))" 0`,
			`EVAL "return select(2, loadstring('return 1 +'))" 0`,
			`EVAL "return select(2, loadstring('local x = 1 x x'))" 0`,
			`EVAL "return select(2, loadstring(string.rep('a', 50) .. ' x'))" 0`,
			`EVAL "return select(2, loadstring(string.rep('a', 70) .. ' x'))" 0`,
			`EVAL "return select(2, loadstring('x x', string.rep('b', 100)))" 0`,
			`EVAL "return select(2, loadstring('x x', '=' .. string.rep('b', 100)))" 0`,
			`EVAL "return select(2, loadstring('x x', '@' .. string.rep('b', 100)))" 0`,
		}},
		{"error levels", []string{
			`EVAL "loadstring('error(\"e\", 2)')()" 0`,
			"EVAL \"local function f()\n error('e', 2)\nend\nf()\" 0",
			"EVAL \"local function f()\n error('e', 3)\nend\nlocal function g()\n f()\nend\ng()\" 0",
			"EVAL \"local function f()\n error('e', 9)\nend\nf()\" 0",
			"EVAL \"return {pcall(function()\nlocal function f()\n error('e', 2)\nend\nf() end)}\" 0",
			`EVAL "error('e', 1)" 0`,
			`EVAL "error('e', 2)" 0`,
			`EVAL "error('e', -1)" 0`,
			`EVAL "return {pcall(error, 'x', 2)}" 0`,
			`EVAL "return {pcall(error, 'x', 3)}" 0`,
			`EVAL "return {pcall(function() error('x', 3) end)}" 0`,
			`EVAL "return {pcall(function() error('x', 4) end)}" 0`,
		}},
	})
}

// Redis 7.0 leaves its error handler in the globals, where scripts can see
// and call it.
func TestScriptingErrHandlerGlobal(t *testing.T) {
	runCases(t, []tcase{{"__redis__err__handler", []string{
		`EVAL "return type(__redis__err__handler)" 0`,
		`EVAL "local n = 0 for k in pairs(_G) do n = n + 1 end return n" 0`,
		`EVAL "local t = {} for k in pairs(_G) do t[#t+1] = k end table.sort(t) return t" 0`,
		`EVAL "return rawget(_G, '__redis__err__handler') ~= nil" 0`,
		`EVAL "return {pcall(function() __redis__err__handler = 1 end)}" 0`,
		`EVAL "return __redis__err__handler('x')" 0`,
		`EVAL "return {pcall(__redis__err__handler, 'x')}" 0`,
		`EVAL "return type(__redis__err__handler({}))" 0`,
		`EVAL "return __redis__err__handler({})" 0`,
		`EVAL "local r = __redis__err__handler('x') return {r.err, r.source, r.line, r.trace}" 0`,
		"EVAL \"\nlocal r = __redis__err__handler('x') return r.line\" 0",
		`EVAL "local r = select(2, pcall(__redis__err__handler, 'x')) return {r.err, r.source, r.line}" 0`,
		`EVAL "local r = __redis__err__handler() return r.err" 0`,
		`EVAL "local r = __redis__err__handler(1.5) return r.err" 0`,
		`EVAL "local r = __redis__err__handler(true) return r.err" 0`,
		`EVAL "local r = __redis__err__handler({err='E', x=1}) return {r.err, r.x, r.source, r.line}" 0`,
		`EVAL "local r = (function() return __redis__err__handler('x') end)() return {r.source, r.line}" 0`,
		`EVAL "local r = (function() local r = __redis__err__handler('x') return r end)() return {r.source, r.line}" 0`,
		`EVAL "local ok, r = (function() return pcall(__redis__err__handler, 'x') end)() return {r.source, r.line}" 0`,
		`EVAL "local r = loadstring('local r = __redis__err__handler(\"q\") return r', '=nm')() return {r.err, r.source, r.line}" 0`,
		`EVAL "__redis__err__handler(redis)" 0`,
		`EVAL "return {pcall(__redis__err__handler, redis)}" 0`,
	}}})
}

// cmsgpack.pack writes a map's keys in lua_next's order, as cjson does.
func TestScriptingCMsgpackKeyOrder(t *testing.T) {
	runCases(t, []tcase{{"cmsgpack map key order", []string{
		`EVAL "local t = {} t.a = 1 t.b = 2 t.c = 3 t.d = 4 t.e = 5 return cmsgpack.pack(t)" 0`,
		`EVAL "local t = {} for i = 1, 20 do t['k' .. i] = i end return cmsgpack.pack(t)" 0`,
		`EVAL "local t = {} t.hello = 1 t.world = 2 t.foo = 3 t.bar = 4 t.baz = 5 t.qux = 6 return cmsgpack.pack(t)" 0`,
		`EVAL "return cmsgpack.pack({a = 1, b = 2, c = 3})" 0`,
		`EVAL "local t = {} t.x = {} t.x.q = 1 t.x.r = 2 t.y = 'z' return cmsgpack.pack(t)" 0`,
		`EVAL "local t = {1, 2, x = 1} return cmsgpack.pack(t)" 0`,
		`EVAL "local t = {} t.a = 1 t.b = 2 t.c = 3 t.d = 4 t.e = 5 local r = {} for k in pairs(cmsgpack.unpack(cmsgpack.pack(t))) do r[#r+1] = k end return r" 0`,
	}}})
}

// Argument errors of library functions read as luaL_argerror's: the
// function named by the call, '?' and no position when pcall called it,
// and "no value" for a missing argument.
func TestScriptingArgErrors(t *testing.T) {
	runCases(t, []tcase{{"argument errors", []string{
		`EVAL "return string.rep()" 0`,
		`EVAL "return ipairs()" 0`,
		`EVAL "return {pcall(string.rep)}" 0`,
		`EVAL "return {pcall(ipairs)}" 0`,
		`EVAL "return {pcall(function() return string.rep() end)}" 0`,
		`EVAL "return {pcall(function() return string.rep('x') end)}" 0`,
		`EVAL "return {pcall(function() return string.rep(nil, 1) end)}" 0`,
		`EVAL "return {pcall(function() return ('x'):rep() end)}" 0`,
		`EVAL "return {pcall(function() return ('x').rep() end)}" 0`,
		`EVAL "return {pcall(function() local s = 'x' return s:sub() end)}" 0`,
		`EVAL "return {pcall(function() local t = {f = string.rep} return t:f() end)}" 0`,
		`EVAL "return {pcall(function() local f = string.rep return f() end)}" 0`,
		`EVAL "return {pcall(function() local a = 1 return string.rep(a and nil) end)}" 0`,
		`EVAL "return {pcall(function() return string.sub() end)}" 0`,
		`EVAL "return {pcall(function() return string.byte() end)}" 0`,
		`EVAL "return {pcall(function() return ipairs() end)}" 0`,
		`EVAL "return {pcall(function() return unpack() end)}" 0`,
		`EVAL "return {pcall(function() return pairs(nil) end)}" 0`,
		`EVAL "return {pcall(function() return next() end)}" 0`,
		`EVAL "return {pcall(function() return rawget() end)}" 0`,
		`EVAL "return {pcall(function() return table.concat() end)}" 0`,
		`EVAL "return {pcall(function() return table.sort() end)}" 0`,
		`EVAL "return {pcall(function() return math.floor('a') end)}" 0`,
		`EVAL "return {pcall(function() return string.format('%d', 'x') end)}" 0`,
		`EVAL "return {pcall(function() return tostring() end)}" 0`,
		`EVAL "return {pcall(function() return getmetatable() end)}" 0`,
		`EVAL "return {pcall(function() return tonumber('1', 99) end)}" 0`,
		`EVAL "return {pcall(function() return bit.band() end)}" 0`,
		`EVAL "return {pcall(function() return bit.band(1, nil) end)}" 0`,
		`EVAL "return {pcall(function() return bit.lshift(1) end)}" 0`,
		`EVAL "return {pcall(function() return cjson.encode() end)}" 0`,
		`EVAL "return {pcall(cjson.encode)}" 0`,
		`EVAL "return {pcall(function() return cmsgpack.unpack() end)}" 0`,
		`EVAL "return struct.pack('bb', 1)" 0`,
		`EVAL "return {pcall(struct.pack, 'bb', 1)}" 0`,
		`EVAL "local p = struct.pack return p('bb', 1)" 0`,
		`EVAL "return {pcall(function() return struct.unpack('b') end)}" 0`,
		// The script's own text is left alone.
		`EVAL "return {pcall(function() error('bad argument #1 to x (got nil)') end)}" 0`,
		`EVAL "return {pcall(error, 'bad argument #1 to x (got nil)')}" 0`,
		`EVAL "assert(false, 'bad argument #3 to x (got nil)')" 0`,
	}}})
}

// Base and library functions check their arguments as Lua 5.1's do.
func TestScriptingLibraryChecks(t *testing.T) {
	runCases(t, []tcase{{"library argument checks", []string{
		`EVAL "return {pcall(function() return table.concat({{}}) end)}" 0`,
		`EVAL "return {pcall(function() return table.concat({1, {}, 3}) end)}" 0`,
		`EVAL "return {pcall(function() return table.concat({1, true}) end)}" 0`,
		`EVAL "return {pcall(function() return setmetatable(1, {}) end)}" 0`,
		`EVAL "return {pcall(function() return setmetatable() end)}" 0`,
		`EVAL "return {pcall(function() return setmetatable({}, 1) end)}" 0`,
		`EVAL "return {pcall(function() return setmetatable({}) end)}" 0`,
		`EVAL "return {pcall(function() return setmetatable({}, nil) end)}" 0`,
		`EVAL "return {pcall(function() return setmetatable(setmetatable({}, {__metatable = 1}), {}) end)}" 0`,
		`EVAL "return {pcall(function() return setmetatable(redis, 1) end)}" 0`,
		`EVAL "return {pcall(function() return setmetatable(redis, {}) end)}" 0`,
		`EVAL "return {pcall(setmetatable, {})}" 0`,
		`EVAL "return {pcall(function() return string.char(256) end)}" 0`,
		`EVAL "return {pcall(function() return string.char(-1) end)}" 0`,
		`EVAL "return {pcall(function() return string.char('65', 66.7) end)}" 0`,
		`EVAL "return {pcall(function() return string.char(65.9, -0.5) end)}" 0`,
		`EVAL "return {pcall(function() return string.char('x') end)}" 0`,
		`EVAL "return {pcall(function() return string.char() end)}" 0`,
		`EVAL "return ('x'):char()" 0`,
		`EVAL "return {pcall(function() return math.max() end)}" 0`,
		`EVAL "return {pcall(function() return math.min() end)}" 0`,
		`EVAL "return {pcall(function() return math.max('3', 2) end)}" 0`,
		`EVAL "return {pcall(function() return select('x') end)}" 0`,
		`EVAL "return {pcall(function() return select() end)}" 0`,
		`EVAL "return {pcall(function() return select(-1, 'a', 'b') end)}" 0`,
		`EVAL "return {pcall(function() return select(-5, 'a') end)}" 0`,
		`EVAL "return {pcall(function() return select(0, 'a') end)}" 0`,
		`EVAL "return {pcall(function() return select('2', 'a', 'b') end)}" 0`,
		`EVAL "return {pcall(function() return select(5, 'a') end)}" 0`,
		`EVAL "return {pcall(function() return select('#x', 'a') end)}" 0`,
		`EVAL "return {pcall(function() return select(1.5, 'a', 'b') end)}" 0`,
		`EVAL "return select('#', 1, 2, 3)" 0`,
	}}})
}

// Functions that push many results stop where lua_checkstack does, and an
// error raised by a function pcall called directly has no position.
func TestScriptingStackLimits(t *testing.T) {
	runCases(t, []tcase{
		{"unpack and string.byte limits", []string{
			`EVAL "return select('#', unpack({}, 1, 7997))" 0`,
			`EVAL "return {pcall(unpack, {}, 1, 7998)}" 0`,
			`EVAL "return select('#', unpack({}, 1, 7998))" 0`,
			`EVAL "return {pcall(function() return unpack({}, 1, 1e8) end)}" 0`,
			// The server still answers after them.
			`EVAL "return 1" 0`,
			`EVAL "return {unpack({1, 2, 3}, '2')}" 0`,
			`EVAL "return {unpack({1, 2, 3}, 2, nil)}" 0`,
			`EVAL "return {unpack({1, 2, 3}, -1, 1)}" 0`,
			`EVAL "return {pcall(unpack, nil)}" 0`,
			`EVAL "return {string.byte('abc', -2, 10)}" 0`,
			`EVAL "return {string.byte('abc', 0)}" 0`,
			`EVAL "return {string.byte('abc', '2')}" 0`,
			`EVAL "return {string.byte('abc', 3, 1)}" 0`,
			`EVAL "return {string.byte('')}" 0`,
			`EVAL "return {string.byte('abc', -10, -2)}" 0`,
			`EVAL "return {string.byte(123, 2)}" 0`,
			`EVAL "return {('abc'):byte(2, 3)}" 0`,
			`EVAL "return {string.byte('abc', 1.9, 2.9)}" 0`,
			`EVAL "return {pcall(string.byte)}" 0`,
			`EVAL "return select('#', string.byte(string.rep('x', 7997), 1, -1))" 0`,
			`EVAL "return select('#', string.byte(string.rep('x', 7998), 1, -1))" 0`,
			`EVAL "return {pcall(function() return select('#', string.byte(string.rep('x', 9000), 1, -1)) end)}" 0`,
			`EVAL "return {pcall(function() local function f() return 1 + f() end return f() end)}" 0`,
			`EVAL "return {xpcall(function() local function f() return 1 + f() end return f() end, function(m) return m end)}" 0`,
			`EVAL "return 1" 0`,
		}},
		{"errors of functions pcall calls", []string{
			`EVAL "return {pcall(string.format, '%y', 1)}" 0`,
			`EVAL "return {pcall(cjson.decode, '{')}" 0`,
			`EVAL "return {pcall(redis.call, 'nosuch')}" 0`,
			`EVAL "return {pcall(tonumber)}" 0`,
		}},
	})
}

// table.insert takes two or three arguments and refuses read-only tables
// (whose views it used to write into, for every later script).
func TestScriptingTableInsert(t *testing.T) {
	runCases(t, []tcase{{"table.insert", []string{
		`EVAL "table.insert(redis, 1)" 0`,
		`EVAL "return #redis" 0`,
		`EVAL "table.insert(_G, 1)" 0`,
		`EVAL "return {pcall(table.insert, {}, 1, 2, 3)}" 0`,
		`EVAL "return {pcall(table.insert, {})}" 0`,
		`EVAL "return {pcall(table.insert, redis)}" 0`,
		`EVAL "return {pcall(table.insert, 1, 2)}" 0`,
		`EVAL "local t = {1,2,3} table.insert(t, 2, 'x') return t" 0`,
		`EVAL "local t = {1,2,3} table.insert(t, '2', 'x') return t" 0`,
		`EVAL "local t = {1,2,3} table.insert(t, 1, 'x') return t" 0`,
		`EVAL "local t = {1,2,3} table.insert(t, 4, 'x') return t" 0`,
		`EVAL "local t = {} table.insert(t, 0, 'x') return {#t, t[0]}" 0`,
		`EVAL "local t = {'a'} table.insert(t, nil) return #t" 0`,
		`EVAL "table.insert(KEYS, 'x') return KEYS" 0`,
		`EVAL "local t = {} table.foreach(redis, function(k) t[#t+1] = k end) return #t" 0`,
	}}})
}
