-- Sliding window counter: the previous fixed window's count, weighted by how
-- much of it still overlaps the sliding window, plus the current count.
-- KEYS[1] is one hash {w = index of the current window, c = its count,
-- p = previous window's count}: one key instead of two keeps both counters in
-- one slot by construction and needs no key named after the time.
-- All comparisons are scaled by period so they stay in exact integers.
local window = math.floor(now / period)
local elapsed = now - window * period
local cur, prev = 0, 0
local state = redis.call('HMGET', KEYS[1], 'w', 'c', 'p')
local w = tonumber(state[1])
if w and w > window then
  -- A caller whose clock lags one that already moved on must not take the
  -- newer window for an old one and start counting from zero.
  window, elapsed = w, 0
end
if w == window then
  cur, prev = tonumber(state[2]), tonumber(state[3])
elseif w == window - 1 then
  prev = tonumber(state[2])
end

-- first_fit returns the earliest offset >= at into a window whose previous
-- count is p and current count is c where cost more requests fit, or nil.
local function first_fit(p, c, at)
  local room = rate - c - cost
  if room < 0 then return nil end
  if p == 0 then return at end
  return math.max(at, period - math.floor(room * period / p))
end

local weighted = prev * (period - elapsed)
local used = cur + math.ceil(weighted / period)
if weighted + (cur + cost) * period > rate * period then
  local retry = -1
  if cost <= rate then
    local e = first_fit(prev, cur, elapsed)
    if e and e < period then
      retry = e - elapsed
    else
      retry = period - elapsed + first_fit(cur, 0, 0)
    end
  end
  local reset = 0
  if cur > 0 then reset = 2 * period - elapsed elseif prev > 0 then reset = period - elapsed end
  return {0, rate, math.max(0, rate - used), retry, reset}
end

if cost > 0 then
  cur = cur + cost
  redis.call('HSET', KEYS[1], 'w', window, 'c', cur, 'p', prev)
  redis.call('PEXPIRE', KEYS[1], ttl_ms(2 * period))
end
local reset = 0
if cur > 0 then reset = 2 * period - elapsed elseif prev > 0 then reset = period - elapsed end
return {1, rate, math.max(0, rate - used - cost), -1, reset}
