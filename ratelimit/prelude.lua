-- Shared head of every ratelimit script, prepended in Go so that the clock and
-- argument handling exist once.
--
-- ARGV[1] is the caller's clock in microseconds, or '' to use the store's own
-- TIME. Microseconds since the epoch (about 1.8e15) stay exact in a Lua 5.1
-- double up to 2^53, which nanoseconds would not.
-- ARGV[2] rate, ARGV[3] period in microseconds, ARGV[4] burst, ARGV[5] cost.
--
-- Every script replies {allowed, limit, remaining, retry_after_us,
-- reset_after_us} as integers: Redis truncates Lua numbers in replies, so the
-- scripts round durations up themselves (waiting the reported time must be
-- enough) and round remaining down.
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local rate = tonumber(ARGV[2])
local period = tonumber(ARGV[3])
local burst = tonumber(ARGV[4])
local cost = tonumber(ARGV[5])

-- ttl_ms turns a lifetime in microseconds into a PEXPIRE argument. Expiry only
-- collects garbage: state is judged by the times stored in it, because with a
-- caller's clock the store's TTLs do not follow that clock.
local function ttl_ms(us)
  return math.max(1, math.ceil(us / 1000))
end
