package ratelimit

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// A store that has redis-cell's CL.THROTTLE (floodgate, or Redis with the
// redis-cell module) decides GCRA natively: no script to run, several times
// less server CPU per decision (BENCHMARKS.md). The Limiter asks the store
// once, with COMMAND INFO cl.throttle, and otherwise runs gcra.lua.
//
// The two paths answer alike: the same requests are allowed, with the same
// Limit and Remaining. CL.THROTTLE reports RetryAfter and ResetAfter in
// whole seconds (rounded up, as redis-cell rounds: a remainder under a
// millisecond is dropped), where the script reports microseconds; a
// Limiter on the native path returns those whole seconds. Its state lives
// in a key of its own ("{key}:gcra:ns", the TAT in nanoseconds as
// redis-cell stores it), so the two paths never misread each other's.
//
// The native path is not used with WithClock (CL.THROTTLE reads the store's
// clock only), nor for a Limit whose Period is not a whole number of
// microseconds (the script's unit; see throttleArgs), nor with
// WithScriptOnly.

// Native-detection states of a Limiter.
const (
	nativeUnknown int32 = iota
	nativeYes
	nativeNo
)

// WithScriptOnly makes the Limiter run its Lua script even on a store that
// has CL.THROTTLE or INCREX: for comparing the two, or for microsecond
// RetryAfter and ResetAfter.
func WithScriptOnly() Option {
	return func(l *Limiter) { l.native.Store(nativeNo); l.increx.Store(nativeNo) }
}

// Native reports whether the Limiter decides with the store's CL.THROTTLE,
// asking the store if it has not yet. A failed question answers false and
// is asked again next time.
func (l *Limiter) Native(ctx context.Context) bool {
	if l.algo != GCRA || l.clock != nil {
		return false
	}
	return l.storeHas(ctx, "cl.throttle", &l.native)
}

// storeHas reports whether the store has the command name, asking it with
// COMMAND INFO the first time and remembering the answer in state. A failed
// question answers false and is asked again next time. A Ring or a Cluster
// is asked node by node and has the command only if every shard or master
// has it: a Ring of a floodgate and a redis-server would otherwise send
// CL.THROTTLE to Redis for the keys on its shard (TestRingURL).
func (l *Limiter) storeHas(ctx context.Context, name string, state *atomic.Int32) bool {
	switch state.Load() {
	case nativeYes:
		return true
	case nativeNo:
		return false
	}
	ask := func(ctx context.Context, node interface {
		Do(context.Context, ...any) *redis.Cmd
	}) (bool, error) {
		info, err := node.Do(ctx, "COMMAND", "INFO", name).Slice()
		return err == nil && len(info) == 1 && info[0] != nil, err
	}
	has := func(ctx context.Context, node *redis.Client) (bool, error) { return ask(ctx, node) }
	var all bool
	var err error
	switch c := l.rdb.(type) {
	case *redis.Ring:
		all, err = everyNode(ctx, c.ForEachShard, has)
	case *redis.ClusterClient:
		all, err = everyNode(ctx, c.ForEachMaster, has)
	default:
		all, err = ask(ctx, l.rdb)
	}
	if err != nil {
		return false
	}
	answer := nativeNo
	if all {
		answer = nativeYes
	}
	state.CompareAndSwap(nativeUnknown, answer)
	return all
}

// everyNode reports whether has holds on every node forEach visits.
func everyNode(ctx context.Context, forEach func(context.Context, func(context.Context, *redis.Client) error) error,
	has func(context.Context, *redis.Client) (bool, error)) (bool, error) {
	var missing atomic.Bool
	err := forEach(ctx, func(ctx context.Context, node *redis.Client) error {
		ok, err := has(ctx, node)
		if !ok {
			missing.Store(true) // the callbacks run concurrently
		}
		return err
	})
	return !missing.Load(), err
}

// throttleArgs expresses limit as CL.THROTTLE's max_burst, count and period
// in whole seconds, with exactly limit's emission interval Period/Rate:
// 3 per 1500ms becomes 6 per 3 seconds. ok is false when that needs more
// than CL.THROTTLE accepts.
//
// CL.THROTTLE's interval is Period/Rate in nanoseconds rounded down, and
// gcra.lua computes with that same interval in integer nanoseconds, so the
// two paths answer alike for any interval, 7 per second (142857142ns) as
// well as 4. A Period that is not a whole number of microseconds stays on
// the script, which takes its Period in microseconds.
func throttleArgs(limit Limit) (maxBurst, count, period int64, ok bool) {
	if limit.Period%time.Microsecond != 0 {
		return 0, 0, 0, false
	}
	p := int64(limit.Period)
	g := gcd(p, int64(time.Second))
	scale := int64(time.Second) / g
	period = p / g
	count = int64(limit.Rate) * scale
	if count/scale != int64(limit.Rate) || count > period*int64(time.Second) {
		return 0, 0, 0, false // overflow, or faster than 1 per nanosecond
	}
	return int64(limit.burst()) - 1, count, period, true
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// nativeKey is the store key of key's CL.THROTTLE state.
func nativeKey(key string) string { return storeKey(key, GCRA) + ":ns" }

// throttle decides one request with CL.THROTTLE.
func (l *Limiter) throttle(ctx context.Context, key string, limit Limit, n int) (reply []int64, err error) {
	maxBurst, count, period, _ := throttleArgs(limit)
	reply, err = l.rdb.Do(ctx, "CL.THROTTLE", nativeKey(key), maxBurst, count, period, n).Int64Slice()
	if err != nil {
		return nil, err
	}
	if len(reply) != 5 {
		return nil, fmt.Errorf("ratelimit: CL.THROTTLE replied %d values, want 5", len(reply))
	}
	// redis-cell's limited flag and seconds, into the scripts' allowed flag
	// and microseconds.
	reply[0] = 1 - reply[0]
	for _, i := range []int{3, 4} {
		if reply[i] > 0 {
			reply[i] *= int64(time.Second / time.Microsecond)
		}
	}
	return reply, nil
}

// nativeFor reports whether this request goes to CL.THROTTLE.
func (l *Limiter) nativeFor(ctx context.Context, limit Limit) bool {
	if _, _, _, ok := throttleArgs(limit); !ok {
		return false
	}
	return l.Native(ctx)
}
