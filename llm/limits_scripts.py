"""The Lua scripts of ``llm.limits.RedisLimits``: each step of the shared limits, atomic in Redis.

Times are microseconds on the Redis server's clock (``TIME``), written with ``%d`` so that Lua never
rounds them; key expiries are in milliseconds. See ``llm.limits`` for what each key means.
"""

_NOW = "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000000 + tonumber(t[2])\n"
_EXPIRE_AT_LEAST = """
local function expire_at_least(key, ms)
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, string.format('%d', ms)) end
end
"""
# KEYS: leases, queue (token → ticket), waiting (token → expiry), tickets; ARGV: limit, token, lease µs, wait µs.
# First come, first served: a token waits in the queue (its place kept while it asks again within ``wait``)
# and takes a slot when fewer tokens are ahead of it than slots are free. 1 = the slot is the token's.
ACQUIRE = (
    _NOW
    + _EXPIRE_AT_LEAST
    + """
local leases, queue, waiting, tickets = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local token, lease, wait = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', leases, '-inf', string.format('%d', now))
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', waiting, '-inf', string.format('%d', now))) do
  redis.call('ZREM', queue, gone)
  redis.call('ZREM', waiting, gone)
end
if not redis.call('ZSCORE', queue, token) then
  redis.call('ZADD', queue, redis.call('INCR', tickets), token)
end
expire_at_least(tickets, math.ceil(wait / 1000))  -- outlives every place in the queue
local free = tonumber(ARGV[1]) - redis.call('ZCARD', leases)
if redis.call('ZRANK', queue, token) < free then
  redis.call('ZREM', queue, token)
  redis.call('ZREM', waiting, token)
  redis.call('ZADD', leases, string.format('%d', now + lease), token)
  expire_at_least(leases, math.ceil(lease / 1000))
  return 1
end
redis.call('ZADD', waiting, string.format('%d', now + wait), token)
for _, key in ipairs({queue, waiting}) do expire_at_least(key, math.ceil(wait / 1000)) end
return 0
"""
)
# KEYS: leases; ARGV: lease (µs), tokens... The number of tokens whose lease was still there.
RENEW = (
    _NOW
    + _EXPIRE_AT_LEAST
    + """
local lease = tonumber(ARGV[1])
local kept = 0
for i = 2, #ARGV do
  kept = kept + redis.call('ZADD', KEYS[1], 'XX', 'CH', string.format('%d', now + lease), ARGV[i])
end
if kept > 0 then expire_at_least(KEYS[1], math.ceil(lease / 1000)) end
return kept
"""
)
# KEYS: next-start, pause-until; ARGV: interval (µs, 0 = no rate limit). {wait µs, start µs}.
RESERVE = (
    _NOW
    + """
local start = now
local pause = tonumber(redis.call('GET', KEYS[2]) or '0')
if pause > start then start = pause end
local interval = tonumber(ARGV[1])
if interval > 0 then
  local nxt = tonumber(redis.call('GET', KEYS[1]) or '0')
  if nxt > start then start = nxt end
  local after = start + interval
  local keep_ms = math.ceil((after - now) / 1000) + 1000
  redis.call('SET', KEYS[1], string.format('%d', after), 'PX', string.format('%d', keep_ms))
end
return {start - now, start}
"""
)
# KEYS: pause-until; ARGV: the pause (µs). Extends the pause to now + that, never shortens it. The end (µs).
PAUSE = (
    _NOW
    + """
local ends = now + tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if ends <= current then return current end
redis.call('SET', KEYS[1], string.format('%d', ends), 'PX', string.format('%d', math.ceil(tonumber(ARGV[1]) / 1000)))
return ends
"""
)
