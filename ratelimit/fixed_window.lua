-- Fixed window in two flavours, chosen by incr_first (set by the Go side
-- before this body):
--   check then increment (incr_first false): GET, deny if the count is
--   already at the limit, else INCR; rejected requests do not count;
--   increment first (incr_first true): INCR, deny when over the limit;
--   rejected requests count, so a client that keeps retrying stays locked
--   out until its window ends.
-- KEYS[1] is a hash {n = requests counted, e = end of the window in µs}; the
-- window opens at the first request, like EXPIRE when the count is 1.
local n, e = 0, now + period
local state = redis.call('HMGET', KEYS[1], 'n', 'e')
if state[2] and tonumber(state[2]) > now then
  n, e = tonumber(state[1]), tonumber(state[2])
end
local live = n > 0

local function count()
  if live then
    n = redis.call('HINCRBY', KEYS[1], 'n', cost)
  else
    n = cost
    redis.call('HSET', KEYS[1], 'n', n, 'e', e)
    redis.call('PEXPIRE', KEYS[1], ttl_ms(period))
    live = true
  end
end

local function reply(allowed, remaining)
  local retry, reset = -1, 0
  if allowed == 0 and cost <= rate then retry = e - now end
  if live then reset = e - now end
  return {allowed, rate, remaining, retry, reset}
end

if incr_first then
  if cost > 0 then count() end
  if n > rate then return reply(0, 0) end
  return reply(1, rate - n)
end
if n + cost > rate then return reply(0, rate - n) end
if cost > 0 then count() end
return reply(1, rate - n)
