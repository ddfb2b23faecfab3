// Package ratelimit limits request rates with counters kept in any store that
// speaks the Redis protocol: a single node, a go-redis Ring sharded by key, or
// a Redis Cluster. Each algorithm is one Lua script run atomically in the
// store, so any number of gateway replicas share one global limit instead of
// each granting its own (N replicas × limit).
//
// Time comes from the store (redis.call('TIME')) unless WithClock supplies it.
// When the store fails or is slow, a FailurePolicy decides the answer and the
// Limiter recovers on its own; see FailurePolicy and WithBatching for the
// trade-offs that remain.
package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Limit is a rate: Rate requests per Period. Burst is the most requests that
// may be spent at once by the token bucket and GCRA; zero means Rate. The
// window algorithms ignore Burst.
type Limit struct {
	Rate   int
	Period time.Duration
	Burst  int
}

// PerSecond returns a Limit of rate requests per second with a burst of rate.
func PerSecond(rate int) Limit { return Limit{Rate: rate, Period: time.Second, Burst: rate} }

// PerMinute returns a Limit of rate requests per minute with a burst of rate.
func PerMinute(rate int) Limit { return Limit{Rate: rate, Period: time.Minute, Burst: rate} }

// PerHour returns a Limit of rate requests per hour with a burst of rate.
func PerHour(rate int) Limit { return Limit{Rate: rate, Period: time.Hour, Burst: rate} }

// String formats l as "10/1s" or "10/1s burst 20".
func (l Limit) String() string {
	s := fmt.Sprintf("%d/%s", l.Rate, l.Period)
	if l.Burst != 0 && l.Burst != l.Rate {
		s += fmt.Sprintf(" burst %d", l.Burst)
	}
	return s
}

// ParseLimit parses the form String writes: "100/1m", "10/1s burst 20"
// (the period is a time.ParseDuration string).
func ParseLimit(s string) (Limit, error) {
	bad := func() (Limit, error) {
		return Limit{}, fmt.Errorf("ratelimit: bad limit %q, want like 100/1m or 10/1s burst 20", s)
	}
	rate, rest, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return bad()
	}
	period, burst, hasBurst := strings.Cut(rest, " burst ")
	var l Limit
	var err error
	if l.Rate, err = strconv.Atoi(rate); err != nil {
		return bad()
	}
	if l.Period, err = time.ParseDuration(period); err != nil {
		return bad()
	}
	if hasBurst {
		if l.Burst, err = strconv.Atoi(strings.TrimSpace(burst)); err != nil {
			return bad()
		}
	}
	if !l.valid() {
		return bad()
	}
	return l, nil
}

// burst returns the effective burst: Burst, or Rate when Burst is zero.
func (l Limit) burst() int {
	if l.Burst > 0 {
		return l.Burst
	}
	return l.Rate
}

// capacity is the most a fresh limiter of algorithm a allows at once: the
// Limit field of a Result.
func (l Limit) capacity(a Algorithm) int {
	if a == TokenBucket || a == GCRA {
		return l.burst()
	}
	return l.Rate
}

func (l Limit) valid() bool {
	// Periods are sent to the store in whole microseconds.
	return l.Rate > 0 && l.Period >= time.Microsecond && l.Burst >= 0
}

// Algorithm selects how a Limiter counts.
type Algorithm int

const (
	// GCRA is the generic cell rate algorithm with the semantics and reply
	// fields of redis-cell's CL.THROTTLE: one key holding a timestamp, smooth
	// refill, bursts of up to Burst. Rejections do not count.
	GCRA Algorithm = iota
	// TokenBucket holds up to Burst tokens refilled at Rate per Period, in a
	// hash. It admits exactly what GCRA admits; it exists for readers who
	// think in tokens. Rejections do not count.
	TokenBucket
	// FixedWindow counts requests in a window that opens at the first request
	// and lasts Period, checking before incrementing: rejected requests do not
	// count. Up to 2×Rate can pass around a window edge.
	FixedWindow
	// FixedWindowIncrFirst is FixedWindow incrementing before checking:
	// rejected requests count too, so a client that keeps retrying stays
	// locked out until its window ends.
	FixedWindowIncrFirst
	// SlidingLog keeps one sorted-set entry per admitted request and admits
	// exactly Rate in any Period. Memory grows with Rate.
	SlidingLog
	// SlidingWindow weighs the previous fixed window's count by its overlap
	// with the sliding window: constant memory, a close approximation of
	// SlidingLog that assumes requests were spread evenly.
	SlidingWindow
)

var algorithmNames = [...]string{
	GCRA:                 "gcra",
	TokenBucket:          "token_bucket",
	FixedWindow:          "fixed_window",
	FixedWindowIncrFirst: "fixed_window_incr_first",
	SlidingLog:           "sliding_log",
	SlidingWindow:        "sliding_window",
}

// Algorithms lists every Algorithm, for tests and benchmarks that cover all.
var Algorithms = []Algorithm{GCRA, TokenBucket, FixedWindow, FixedWindowIncrFirst, SlidingLog, SlidingWindow}

// String returns the algorithm's name, which is also its key suffix.
func (a Algorithm) String() string {
	if a < 0 || int(a) >= len(algorithmNames) {
		return "Algorithm(" + strconv.Itoa(int(a)) + ")"
	}
	return algorithmNames[a]
}

// Result is the answer to one request.
type Result struct {
	// Allowed reports whether the request may proceed. A request of cost n
	// is all or nothing.
	Allowed bool
	// Limit is the most requests a fresh limiter admits at once: Rate for
	// the window algorithms, Burst for GCRA and TokenBucket (CL.THROTTLE's
	// limit).
	Limit int
	// Remaining is how many more requests of cost 1 would be allowed right
	// now, after this one.
	Remaining int
	// RetryAfter is how long to wait before the same request would be
	// allowed. It is -1 when the request was allowed, and also when it can
	// never be allowed because its cost exceeds Limit.
	RetryAfter time.Duration
	// ResetAfter is how long until the limiter is back to its fresh state,
	// with Remaining equal to Limit, if no more requests arrive.
	ResetAfter time.Duration
	// Degraded reports that the store did not answer and the
	// FailurePolicy decided.
	Degraded bool
	// Unavailable reports a denial because the store could not be asked
	// (FailClosed): an outage, not overuse. HTTP answers it with 503.
	Unavailable bool
}

// Errors returned by a Limiter. Store failures are not among them: the
// FailurePolicy answers those.
var (
	ErrInvalidLimit = errors.New("ratelimit: limit needs Rate > 0, Period >= 1µs and Burst >= 0")
	ErrInvalidCost  = errors.New("ratelimit: cost must not be negative")
)

// Limiter decides requests against counters in a Redis-protocol store. It is
// safe for concurrent use; replicas that share a store share their limits.
type Limiter struct {
	rdb         redis.UniversalClient
	algo        Algorithm
	script      *redis.Script
	clock       func() time.Time
	timeout     time.Duration
	coldTimeout time.Duration
	log         *slog.Logger
	stats       counters
	// warm is whether the last store call succeeded: a connection is then
	// pooled and the script loaded, and the short timeout applies.
	warm     atomic.Bool
	policy   FailurePolicy
	replicas int
	probe    time.Duration
	onChange func(from, to State, err error)
	local    *Local

	// ctxDeadlines is whether the client itself stops at the timeout.
	ctxDeadlines bool

	// memberPrefix and calls make sliding-log members unique across
	// replicas and calls.
	memberPrefix string
	calls        atomic.Uint64

	health health
	batch  *batcher

	// native is whether the store has CL.THROTTLE (native.go), increx
	// whether it has INCREX (increx.go).
	native atomic.Int32
	increx atomic.Int32
}

// Option configures a Limiter.
type Option func(*Limiter)

// WithAlgorithm sets the algorithm; the default is GCRA.
func WithAlgorithm(a Algorithm) Option { return func(l *Limiter) { l.algo = a } }

// WithClock makes the Limiter send its own time to the store instead of
// letting scripts call TIME: for stores that forbid TIME in scripts, and for
// tests that move time by hand. Replicas must then keep their clocks close;
// a clock running behind another is treated as not moving.
func WithClock(now func() time.Time) Option { return func(l *Limiter) { l.clock = now } }

// WithTimeout sets how long a store call may take before the store counts as
// failed; the default is 100ms and zero means no limit. A slow limiter should not become the outage.
// It holds whether or not the client sets ContextTimeoutEnabled; setting it
// lets the client itself stop waiting, which is cheaper.
//
// The timeout applies once the store has answered; see WithColdTimeout for
// the calls before that.
func WithTimeout(d time.Duration) Option { return func(l *Limiter) { l.timeout = d } }

// WithColdTimeout sets how long a store call may take while the Limiter has
// no answer from the store yet: the first call, and each probe after a
// failure. Such a call dials (TCP, TLS, AUTH, HELLO) and loads the script
// (NOSCRIPT, then EVAL), several round trips where a warm call makes one;
// judged by the warm timeout, a first run would fail for no fault of the
// store. The default is 2s; it is never shorter than WithTimeout.
func WithColdTimeout(d time.Duration) Option { return func(l *Limiter) { l.coldTimeout = d } }

// NewLimiter returns a Limiter using rdb. rdb may be a *redis.Client, a
// *redis.Ring or a *redis.ClusterClient: every script touches one key, named
// with a hash tag, so it never crosses shards.
func NewLimiter(rdb redis.UniversalClient, opts ...Option) *Limiter {
	var b [8]byte
	rand.Read(b[:])
	l := &Limiter{
		rdb:          rdb,
		timeout:      100 * time.Millisecond,
		coldTimeout:  2 * time.Second,
		probe:        time.Second,
		replicas:     1,
		memberPrefix: hex.EncodeToString(b[:]),
	}
	for _, opt := range opts {
		opt(l)
	}
	l.script = scripts[l.algo]
	if l.script == nil {
		panic("ratelimit: unknown " + l.algo.String())
	}
	if l.log == nil {
		l.log = slog.Default()
	}
	l.ctxDeadlines = honoursDeadlines(rdb)
	l.local = NewLocal(l.algo, l.clock)
	return l
}

// Algorithm returns the algorithm l counts with.
func (l *Limiter) Algorithm() Algorithm { return l.algo }

// Allow is AllowN with a cost of 1.
func (l *Limiter) Allow(ctx context.Context, key string, limit Limit) (Result, error) {
	return l.AllowN(ctx, key, limit, 1)
}

// AllowN decides a request of cost n for key under limit. The store key is
// key with a hash tag and the algorithm's name: "{rate:ip:1.2.3.4}:gcra".
// Cost 0 reports the current state without spending anything. The error is
// non-nil only for an invalid limit or cost, or when ctx ends first; store
// failures are answered by the FailurePolicy.
func (l *Limiter) AllowN(ctx context.Context, key string, limit Limit, n int) (Result, error) {
	if !limit.valid() {
		return Result{}, ErrInvalidLimit
	}
	if n < 0 {
		return Result{}, ErrInvalidCost
	}
	if l.batch != nil && l.batch.eligible(l.algo, n) {
		return l.batch.allow(ctx, l, key, limit, n)
	}
	return l.allow(ctx, key, limit, n)
}

// allow asks the store unless it is known to be down, and falls back to the
// failure policy when it does not answer.
func (l *Limiter) allow(ctx context.Context, key string, limit Limit, n int) (Result, error) {
	if !l.health.shouldTry(l.probe) {
		return l.fallback(key, limit, n), nil
	}
	res, err := l.eval(ctx, key, limit, n)
	if err == nil {
		l.storeAnswered()
		return res, nil
	}
	if ctx.Err() != nil {
		// The caller gave up; that says nothing about the store.
		l.health.abandon()
		return Result{}, ctx.Err()
	}
	l.storeFailed(err)
	return l.fallback(key, limit, n), nil
}

// eval runs the algorithm's script for one request.
func (l *Limiter) eval(ctx context.Context, key string, limit Limit, n int) (Result, error) {
	if timeout := l.callTimeout(); timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	now := ""
	if l.clock != nil {
		now = strconv.FormatInt(l.clock().UnixMicro(), 10)
	}
	member := ""
	if l.algo == SlidingLog {
		member = l.memberPrefix + ":" + strconv.FormatUint(l.calls.Add(1), 36)
	}
	run := func() ([]int64, error) {
		if l.nativeFor(ctx, limit) {
			return l.throttle(ctx, key, limit, n)
		}
		if l.increxFor(ctx, limit, n) {
			return l.incrEx(ctx, key, limit, n)
		}
		return l.script.Run(ctx, l.rdb, []string{storeKey(key, l.algo)},
			now, limit.Rate, limit.Period.Microseconds(), limit.burst(), n, member).Int64Slice()
	}
	var reply []int64
	var err error
	if l.ctxDeadlines {
		reply, err = run()
	} else {
		reply, err = runUntilDone(ctx, run)
	}
	if err != nil {
		return Result{}, err
	}
	if len(reply) != 5 {
		return Result{}, fmt.Errorf("ratelimit: script replied %d values, want 5", len(reply))
	}
	return Result{
		Allowed:    reply[0] == 1,
		Limit:      int(reply[1]),
		Remaining:  int(reply[2]),
		RetryAfter: micros(reply[3]),
		ResetAfter: micros(reply[4]),
	}, nil
}

// callTimeout is the timeout of the next store call: the cold one until the
// store has answered.
func (l *Limiter) callTimeout() time.Duration {
	if l.timeout <= 0 || l.warm.Load() {
		return l.timeout
	}
	return max(l.timeout, l.coldTimeout)
}

// runUntilDone returns run's answer, or ctx's error as soon as ctx ends.
// A go-redis client without ContextTimeoutEnabled ignores deadlines and
// waits for its ReadTimeout (3s by default); a slow store must not hold the
// request that long. The abandoned call finishes in the background, bounded
// by that ReadTimeout; once the Limiter is degraded only probes start one.
func runUntilDone(ctx context.Context, run func() ([]int64, error)) ([]int64, error) {
	type answer struct {
		reply []int64
		err   error
	}
	done := make(chan answer, 1)
	go func() {
		reply, err := run()
		done <- answer{reply, err}
	}()
	select {
	case a := <-done:
		return a.reply, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// honoursDeadlines reports whether rdb stops waiting when a context ends.
func honoursDeadlines(rdb redis.UniversalClient) bool {
	switch c := rdb.(type) {
	case *redis.Client:
		return c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		return c.Options().ContextTimeoutEnabled
	case *redis.Ring:
		return c.Options().ContextTimeoutEnabled
	}
	return false
}

// micros converts a script's duration to a time.Duration, keeping -1 as -1
// (the "never" and "allowed" marker of RetryAfter).
func micros(us int64) time.Duration {
	if us < 0 {
		return -1
	}
	return time.Duration(us) * time.Microsecond
}

// storeKey names the store key of key for algorithm a. Unless the caller's
// key already has a hash tag (as Middleware's "{identity}:rule" keys do), the
// whole key becomes one, so that whatever the algorithm adds to a caller's
// key stays in the same Cluster slot and Ring shard.
func storeKey(key string, a Algorithm) string {
	if open := strings.IndexByte(key, '{'); open >= 0 {
		if end := strings.IndexByte(key[open+1:], '}'); end > 0 {
			return key + ":" + a.String()
		}
	}
	return "{" + key + "}:" + a.String()
}
