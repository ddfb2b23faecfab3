-- Sliding window log: one sorted-set member per counted request, scored by
-- its time in µs. ARGV[6] is unique to this call, so members of two requests
-- in the same microsecond never collapse into one.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - period)
local n = redis.call('ZCARD', KEYS[1])

local function expiry_of(rank)
  local entry = redis.call('ZRANGE', KEYS[1], rank, rank, 'WITHSCORES')
  return tonumber(entry[2]) + period - now
end

if n + cost > rate then
  local retry = -1
  -- The oldest entries leave first; enough of them must leave to make room.
  if cost <= rate then retry = expiry_of(n + cost - rate - 1) end
  local reset = 0
  if n > 0 then reset = expiry_of(-1) end
  return {0, rate, rate - n, retry, reset}
end
if cost == 0 then
  local reset = 0
  if n > 0 then reset = expiry_of(-1) end
  return {1, rate, rate - n, -1, reset}
end

-- unpack has a C-stack limit, so members go in chunks.
local i = 1
while i <= cost do
  local args = {}
  local last = math.min(cost, i + 499)
  for j = i, last do
    args[#args + 1] = now
    args[#args + 1] = ARGV[6] .. ':' .. j
  end
  redis.call('ZADD', KEYS[1], unpack(args))
  i = last + 1
end
redis.call('PEXPIRE', KEYS[1], ttl_ms(period))
return {1, rate, rate - n - cost, -1, period}
