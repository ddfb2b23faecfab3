package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// A store that has INCREX (Redis 8.8, Valkey 9.2, floodgate) counts a
// fixed window in one command: INCREX key BYINT cost UBOUND rate PX window
// ENX opens the window with the first request, adds the cost only while it
// fits under the rate and never moves the window's end. The Limiter asks
// the store once, with COMMAND INFO increx, and otherwise runs
// fixed_window.lua. The PTTL that gives RetryAfter and ResetAfter goes in
// the same round trip, pipelined: no script, no EVALSHA, nothing to load
// again after a restart.
//
// The two paths decide alike (TestIncrExAndScriptAgree): fixed_window.lua's
// window is [start, start+Period) in µs, and a key expires once the clock
// is past its deadline, so the key's deadline is start+Period-1ms; on the
// store's millisecond clock the windows are the same. The INCREX path keeps
// its count in a key of its own ("{key}:fixed_window:n", a plain integer),
// so the two paths never misread each other's state.
//
// The INCREX path is used for FixedWindow only (FixedWindowIncrFirst
// counts refused requests, which INCREX's skip does not; a cost-0 peek
// reads the count with GET, since it must not open a window), for a Period of whole
// milliseconds of at least 2ms, and not with WithClock (INCREX's expiry
// follows the store's clock) or WithScriptOnly.

// increxFor reports whether this request goes to INCREX.
func (l *Limiter) increxFor(ctx context.Context, limit Limit, n int) bool {
	if l.algo != FixedWindow || l.clock != nil ||
		limit.Period%time.Millisecond != 0 || limit.Period < 2*time.Millisecond {
		return false
	}
	return l.storeHas(ctx, "increx", &l.increx)
}

// HasIncrEx reports whether the Limiter counts its fixed windows with the
// store's INCREX, asking the store if it has not yet.
func (l *Limiter) HasIncrEx(ctx context.Context) bool {
	return l.increxFor(ctx, Limit{Rate: 1, Period: time.Second}, 1)
}

// increxKey is the store key of key's INCREX window count.
func increxKey(key string) string { return storeKey(key, FixedWindow) + ":n" }

// incrEx decides one request with INCREX, answering as fixed_window.lua:
// {allowed, rate, remaining, retry_after_us, reset_after_us}.
func (l *Limiter) incrEx(ctx context.Context, key string, limit Limit, n int) ([]int64, error) {
	k := increxKey(key)
	window := (limit.Period - time.Millisecond).Milliseconds()
	pipe := l.rdb.Pipeline()
	var incr *redis.Cmd
	var peek *redis.StringCmd
	if n > 0 {
		incr = pipe.Do(ctx, "INCREX", k, "BYINT", n, "UBOUND", limit.Rate, "PX", window, "ENX")
	} else {
		peek = pipe.Get(ctx, k)
	}
	ttl := pipe.PTTL(ctx, k)
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return nil, err
	}
	counted := []int64{0, 1} // a peek is allowed, and spends nothing
	if incr != nil {
		var err error
		if counted, err = incr.Int64Slice(); err != nil {
			return nil, err
		}
		if len(counted) != 2 {
			return nil, fmt.Errorf("ratelimit: INCREX replied %d values, want 2", len(counted))
		}
	} else if v, err := peek.Int64(); err == nil {
		counted[0] = v
	} else if err != redis.Nil {
		return nil, err
	}
	rate := int64(limit.Rate)
	reply := []int64{0, rate, rate - counted[0], -1, 0}
	if counted[1] > 0 {
		reply[0] = 1
	}
	// The window ends a millisecond after the key's deadline.
	if d := ttl.Val(); d >= 0 {
		reply[4] = (d + time.Millisecond).Microseconds()
		if reply[0] == 0 && int64(n) <= rate {
			reply[3] = reply[4]
		}
	}
	return reply, nil
}
