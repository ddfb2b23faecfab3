package conformance

import (
	"strconv"
	"testing"
)

// The Lua scripts of the Python limits library's Redis storage (limits
// 5.8.0, limits/resources/redis/lua_scripts, MIT licence, (c) Ali-Akber
// Saifee), which Flask-Limiter and slowapi run: one per strategy. The same
// schedule through the library itself is scripts/limits_compare.py; these
// cases pin the scripts' replies, byte for byte, with client timestamps
// fixed so that the decisions do not depend on the clock.
const (
	limitsIncrExpire = `local current
local amount = tonumber(ARGV[2])
current = redis.call("incrby", KEYS[1], amount)

if tonumber(current) == amount then
    redis.call("expire", KEYS[1], ARGV[1])
end

return current`

	limitsAcquireMovingWindow = `local timestamp = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local expiry = tonumber(ARGV[3])
local amount = tonumber(ARGV[4])

if amount > limit then
    return false
end

local entry = redis.call('lindex', KEYS[1], limit - amount)

if entry and tonumber(entry) >= timestamp - expiry then
    return false
end
local entries = {}
for i = 1, amount do
    entries[i] = timestamp
end

for i=1,#entries,5000 do
    redis.call('lpush', KEYS[1], unpack(entries, i, math.min(i+4999, #entries)))
end
redis.call('ltrim', KEYS[1], 0, limit - 1)
redis.call('expire', KEYS[1], expiry)

return true`

	limitsMovingWindow = `local len = tonumber(ARGV[2])
local expiry = tonumber(ARGV[1])

-- Binary search to find the oldest valid entry in the window
local function oldest_entry(high, target)
    local low = 0
    local result = nil

    while low <= high do
        local mid = math.floor((low + high) / 2)
        local val = tonumber(redis.call('lindex', KEYS[1], mid))

        if val and val >= target then
            result = mid
            low = mid + 1
        else
            high = mid - 1
        end
    end

    return result
end

local index = oldest_entry(len - 1, expiry)

if index then
    local count = index + 1
    local oldest = tonumber(redis.call('lindex', KEYS[1], index))
    return {tostring(oldest), count}
end`

	limitsAcquireSlidingWindow = `-- Time is in milliseconds in this script: TTL, expiry...

local limit = tonumber(ARGV[1])
local expiry = tonumber(ARGV[2]) * 1000
local amount = tonumber(ARGV[3])

if amount > limit then
    return false
end

local current_ttl = tonumber(redis.call('pttl', KEYS[2]))

if current_ttl > 0 and current_ttl < expiry then
    -- Current window expired, shift it to the previous window
    redis.call('rename', KEYS[2], KEYS[1])
    redis.call('set', KEYS[2], 0, 'PX', current_ttl + expiry)
end

local previous_count = tonumber(redis.call('get', KEYS[1])) or 0
local previous_ttl = tonumber(redis.call('pttl', KEYS[1])) or 0
local current_count = tonumber(redis.call('get', KEYS[2])) or 0
current_ttl = tonumber(redis.call('pttl', KEYS[2])) or 0

-- If the values don't exist yet, consider the TTL is 0
if previous_ttl <= 0 then
    previous_ttl = 0
end
if current_ttl <= 0 then
    current_ttl = 0
end
local weighted_count = math.floor(previous_count * previous_ttl / expiry) + current_count

if (weighted_count + amount) > limit then
    return false
end

-- If the current counter exists, increase its value
if redis.call('exists', KEYS[2]) == 1 then
    redis.call('incrby', KEYS[2], amount)
else
    -- Otherwise, set the value with twice the expiry time
    redis.call('set', KEYS[2], amount, 'PX', expiry * 2)
end

return true`

	limitsSlidingWindow = `local expiry = tonumber(ARGV[1]) * 1000
local previous_count = redis.call('get', KEYS[1])
local previous_ttl = redis.call('pttl', KEYS[1])
local current_count = redis.call('get', KEYS[2])
local current_ttl = redis.call('pttl', KEYS[2])

if current_ttl > 0 and current_ttl < expiry then
    -- Current window expired, shift it to the previous window
    redis.call('rename', KEYS[2], KEYS[1])
    redis.call('set', KEYS[2], 0, 'PX', current_ttl + expiry)
    previous_count = redis.call('get', KEYS[1])
    previous_ttl = redis.call('pttl', KEYS[1])
    current_count = redis.call('get', KEYS[2])
    current_ttl = redis.call('pttl', KEYS[2])
end

return {previous_count, previous_ttl, current_count, current_ttl}`

	limitsClearKeys = `local keys = redis.call('keys', KEYS[1])
local res = 0

for i=1,#keys,5000 do
    res = res + redis.call(
        'del', unpack(keys, i, math.min(i+4999, #keys))
    )
end

return res`
)

// eval returns an EVAL line of script with its keys and args, quoted as
// the case runner splits lines.
func eval(script string, keys []string, args ...string) string {
	line := "EVAL " + strconv.Quote(script) + " " + strconv.Itoa(len(keys))
	for _, a := range append(keys, args...) {
		line += " " + a
	}
	return line
}

func TestLimitsScripts(t *testing.T) {
	fixed := []string{"LIMITS:LIMITER/k/5/1/minute"}
	moving := []string{"LIMITS:LIMITER/m/3/10/second"}
	prev, cur := "LIMITS:{LIMITER/s/3/1/minute}/-1", "LIMITS:{LIMITER/s/3/1/minute}"
	sliding := []string{prev, cur}
	runCases(t, []tcase{
		{"fixed window", []string{
			eval(limitsIncrExpire, fixed, "60", "1"), eval(limitsIncrExpire, fixed, "60", "1"),
			"!approx=1 TTL " + fixed[0], eval(limitsIncrExpire, fixed, "60", "3"),
			"GET " + fixed[0], "!approx=1 TTL " + fixed[0],
			// A key of another type: the INCRBY error, from a script.
			"RPUSH wrong x", eval(limitsIncrExpire, []string{"wrong"}, "60", "1"),
			eval(limitsIncrExpire, fixed, "60", "notanumber"),
		}},
		{"moving window", []string{
			eval(limitsAcquireMovingWindow, moving, "1764560000.123456", "3", "10", "1"),
			eval(limitsAcquireMovingWindow, moving, "1764560001.5", "3", "10", "1"),
			eval(limitsAcquireMovingWindow, moving, "1764560002.25", "3", "10", "1"),
			// Full: the oldest entry is still inside the window.
			eval(limitsAcquireMovingWindow, moving, "1764560003", "3", "10", "1"),
			"LRANGE " + moving[0] + " 0 -1", "!approx=1 TTL " + moving[0],
			eval(limitsMovingWindow, moving, "1764559995", "3"),
			eval(limitsMovingWindow, moving, "1764560001", "3"),
			eval(limitsMovingWindow, moving, "1764560100", "3"),
			// Past the window the oldest entries make room again.
			eval(limitsAcquireMovingWindow, moving, "1764560011.2", "3", "10", "2"),
			eval(limitsAcquireMovingWindow, moving, "1764560011.3", "3", "10", "4"),
			"LRANGE " + moving[0] + " 0 -1",
			eval(limitsAcquireMovingWindow, []string{"big"}, "1764560000", "12000", "10", "11000"),
			"LLEN big", "LINDEX big 10999",
		}},
		{"sliding window counter", []string{
			eval(limitsAcquireSlidingWindow, sliding, "3", "60", "1"),
			eval(limitsAcquireSlidingWindow, sliding, "3", "60", "2"),
			eval(limitsAcquireSlidingWindow, sliding, "3", "60", "1"),
			eval(limitsAcquireSlidingWindow, sliding, "3", "60", "4"),
			"GET " + cur, "!approx=1000 PTTL " + cur, "EXISTS " + prev,
			"!type " + eval(limitsSlidingWindow, sliding, "60"),
			// A current window with less than the expiry left shifts to the
			// previous one, whose count then weighs by its remaining time.
			"SET " + cur + " 3 PX 30000",
			eval(limitsAcquireSlidingWindow, sliding, "3", "60", "1"),
			"GET " + prev, "GET " + cur, "!approx=1000 PTTL " + prev, "!approx=1000 PTTL " + cur,
			eval(limitsAcquireSlidingWindow, sliding, "3", "60", "1"),
			eval(limitsAcquireSlidingWindow, sliding, "3", "60", "1"),
			"SET " + cur + " 2 PX 20000",
			"!type " + eval(limitsSlidingWindow, sliding, "60"),
			"GET " + prev, "GET " + cur,
		}},
		{"clear keys", []string{
			"SET LIMITS:a 1", "SET LIMITS:b 1", "SET other 1",
			eval(limitsClearKeys, []string{"LIMITS:*"}), "EXISTS LIMITS:a LIMITS:b other",
			eval(limitsClearKeys, []string{"LIMITS:*"}),
		}},
	})
}
