-- Generic cell rate algorithm, computed as CL.THROTTLE computes it (redis-cell,
-- and floodgate natively), so that the script and the command answer alike for
-- every limit: KEYS[1] holds the theoretical arrival time (TAT) in integer
-- nanoseconds, the emission interval is period / rate in nanoseconds rounded
-- down, and a request of cost n is allowed when its new TAT is at most burst
-- emission intervals ahead of now.
--
-- Nanoseconds since 1970 (about 1.8e18) are beyond the 2^53 that a Lua double
-- holds exactly, so a point in time is kept as whole seconds plus the
-- nanoseconds within them; a duration (how far the TAT is ahead of now) is a
-- plain number, exact up to 2^53 ns (104 days). In µs doubles, a TAT kept only
-- a quarter of a microsecond, and a fractional interval (7 per second) made
-- Remaining come out one lower than CL.THROTTLE's.
--
-- Every division below is of integers whose sum is under 2^53, and then
-- math.floor (or math.ceil) of the rounded double quotient is the exact one.
local q = math.floor(period / rate)
local interval = q * 1000 + math.floor((period - q * rate) * 1000 / rate)
if interval < 1 then interval = 1 end
local tolerance = interval * burst

local now_s = math.floor(now / 1000000)
local now_ns = (now - now_s * 1000000) * 1000

-- backlog: how far the stored TAT is ahead of now, 0 if behind or absent. A
-- TAT in µs, as versions before kept it, reads as a time in 1970: the limiter
-- forgets that state once.
local backlog = 0
local stored = redis.call('GET', KEYS[1])
if stored then
  local tat_s, tat_ns = 0, tonumber(stored)
  if #stored > 9 then
    tat_s, tat_ns = tonumber(string.sub(stored, 1, -10)), tonumber(string.sub(stored, -9))
  end
  if tat_s and tat_ns then
    backlog = math.max(0, (tat_s - now_s) * 1e9 + (tat_ns - now_ns))
  end
end

local ahead = backlog + interval * cost
if ahead > tolerance then
  local retry = -1
  if cost <= burst then retry = math.ceil((ahead - tolerance) / 1000) end
  return {0, burst, math.floor(math.max(0, tolerance - backlog) / interval), retry, math.ceil(backlog / 1000)}
end
if cost > 0 then
  local ns = now_ns + ahead
  local carry = math.floor(ns / 1e9)
  redis.call('SET', KEYS[1], string.format('%d%09d', now_s + carry, ns - carry * 1e9), 'PX', ttl_ms(ahead / 1000))
end
return {1, burst, math.floor((tolerance - ahead) / interval), -1, math.ceil(ahead / 1000)}
