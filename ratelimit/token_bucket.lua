-- Token bucket of burst tokens refilled at rate tokens per period.
-- KEYS[1] is a hash {t = tokens × period_us, ts = last update in µs}: scaling
-- tokens by the period keeps refill (elapsed × rate) in exact integers.
local capacity = burst * period
local tokens, last = capacity, now
local state = redis.call('HMGET', KEYS[1], 't', 'ts')
if state[1] then
  tokens, last = tonumber(state[1]), tonumber(state[2])
  -- Callers' clocks may disagree a little; time never runs backwards here, or
  -- the same interval would be refilled twice.
  if now > last then
    tokens = math.min(capacity, tokens + (now - last) * rate)
    last = now
  end
end

local need = cost * period
if need > tokens then
  local retry = -1
  if cost <= burst then retry = math.ceil((need - tokens) / rate) end
  return {0, burst, math.floor(tokens / period), retry, math.ceil((capacity - tokens) / rate)}
end
if cost > 0 then
  tokens = tokens - need
  redis.call('HSET', KEYS[1], 't', tokens, 'ts', last)
  redis.call('PEXPIRE', KEYS[1], ttl_ms(math.ceil((capacity - tokens) / rate)))
end
return {1, burst, math.floor(tokens / period), -1, math.ceil((capacity - tokens) / rate)}
