package ratelimit

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// FailurePolicy decides requests while the store fails: when a call errors or
// takes longer than the timeout. Whatever the policy, the Limiter keeps
// probing the store (one request per probe interval) and returns to it by
// itself once it answers.
type FailurePolicy int

const (
	// FailOpenLocal, the default, decides with an in-memory limiter of the
	// same algorithm on each replica, with the limit divided by the expected
	// number of replicas (WithReplicas). An outage of the store then neither
	// stops all traffic nor lifts all limits; this is what the sources
	// recommend for most APIs.
	FailOpenLocal FailurePolicy = iota
	// FailOpen allows every request: availability over protection.
	FailOpen
	// FailClosed denies every request: protection over availability. The
	// denial's RetryAfter is the probe interval.
	FailClosed
)

// State is the health of a Limiter's store as the Limiter sees it.
type State int

const (
	// Healthy means requests are decided by the store.
	Healthy State = iota
	// Degraded means the store failed and the FailurePolicy decides.
	Degraded
)

// String returns "healthy" or "degraded".
func (s State) String() string {
	if s == Degraded {
		return "degraded"
	}
	return "healthy"
}

// WithFailurePolicy sets what a Limiter answers while its store fails.
func WithFailurePolicy(p FailurePolicy) Option { return func(l *Limiter) { l.policy = p } }

// WithReplicas tells the Limiter how many replicas share the limit, so that
// FailOpenLocal gives each replica 1/replicas of it (at least 1 request).
func WithReplicas(n int) Option {
	return func(l *Limiter) { l.replicas = max(1, n) }
}

// WithProbeInterval sets how often a degraded Limiter tries the store again;
// the default is one second. Between probes no request waits for a dead store.
func WithProbeInterval(d time.Duration) Option { return func(l *Limiter) { l.probe = d } }

// OnStateChange registers fn to be called on every switch between Healthy and
// Degraded, with the store error that caused a switch to Degraded. fn runs on
// the request's goroutine and should return quickly.
func OnStateChange(fn func(from, to State, err error)) Option {
	return func(l *Limiter) { l.onChange = fn }
}

// State reports whether l currently decides with the store.
func (l *Limiter) State() State {
	if l.health.degraded.Load() {
		return Degraded
	}
	return Healthy
}

// fallback answers a request by the failure policy.
func (l *Limiter) fallback(key string, limit Limit, n int) Result {
	capacity := limit.capacity(l.algo)
	switch l.policy {
	case FailOpen:
		return Result{Allowed: true, Limit: capacity, Remaining: max(0, capacity-n), RetryAfter: -1}
	case FailClosed:
		return Result{Limit: capacity, RetryAfter: l.probe, ResetAfter: l.probe}
	}
	share := Limit{
		Rate:   max(1, limit.Rate/l.replicas),
		Period: limit.Period,
		Burst:  max(1, limit.burst()/l.replicas),
	}
	res, _ := l.local.AllowN(context.Background(), key, share, n)
	return res
}

// health tracks whether the store answers. The healthy path reads one atomic;
// the mutex guards probing, which only happens while degraded.
type health struct {
	degraded atomic.Bool

	mu        sync.Mutex
	probing   bool
	nextProbe time.Time
}

// shouldTry reports whether this request should go to the store: always when
// healthy, and for a single request per probe interval when degraded.
func (h *health) shouldTry(interval time.Duration) bool {
	if !h.degraded.Load() {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.probing || time.Now().Before(h.nextProbe) {
		return false
	}
	h.probing = true
	h.nextProbe = time.Now().Add(interval)
	return true
}

// succeeded records an answer from the store.
func (h *health) succeeded(hook func(from, to State, err error)) {
	if !h.degraded.Load() {
		return
	}
	h.mu.Lock()
	h.probing = false
	h.mu.Unlock()
	if h.degraded.CompareAndSwap(true, false) && hook != nil {
		hook(Degraded, Healthy, nil)
	}
}

// failed records a store failure; the next probe waits a full interval.
func (h *health) failed(err error, interval time.Duration, hook func(from, to State, err error)) {
	h.mu.Lock()
	h.probing = false
	h.nextProbe = time.Now().Add(interval)
	h.mu.Unlock()
	if h.degraded.CompareAndSwap(false, true) && hook != nil {
		hook(Healthy, Degraded, err)
	}
}

// abandon releases a probe whose caller gave up before the store answered.
func (h *health) abandon() {
	h.mu.Lock()
	h.probing = false
	h.mu.Unlock()
}
