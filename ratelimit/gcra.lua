-- Generic cell rate algorithm, with the semantics of redis-cell's CL.THROTTLE:
-- KEYS[1] holds the theoretical arrival time (TAT) in µs. A request of cost n
-- is allowed when its new TAT is at most burst emission intervals ahead of now.
-- The emission interval may be fractional; %.17g in redis.call keeps the
-- stored double exact.
local interval = period / rate
local tolerance = interval * burst
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end

-- A hair of slack so that 2.9999999 emission intervals count as 3.
local function whole(x)
  return math.max(0, math.floor(x / interval + 1e-9))
end

local new_tat = tat + interval * cost
local diff = now - (new_tat - tolerance)
if diff < 0 then
  local retry = -1
  if cost <= burst then retry = math.ceil(-diff) end
  return {0, burst, whole(tolerance - (tat - now)), retry, math.ceil(tat - now)}
end
if cost > 0 then
  redis.call('SET', KEYS[1], new_tat, 'PX', ttl_ms(new_tat - now))
end
return {1, burst, whole(tolerance - (new_tat - now)), -1, math.ceil(new_tat - now)}
