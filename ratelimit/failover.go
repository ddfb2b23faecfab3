package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// FailurePolicy decides requests while the store fails: when a call errors or
// takes longer than the timeout. Whatever the policy, the Limiter keeps
// probing the store (one request per probe interval) and returns to it by
// itself once it answers. Every switch is logged once with its cause and
// counted (Stats); nothing falls back silently.
type FailurePolicy int

const (
	// FailClosed, the default, denies every request while the store is
	// down, with Result.Unavailable set so that an HTTP answer can say 503
	// rather than 429: protection over availability. The denial's
	// RetryAfter is the probe interval.
	FailClosed FailurePolicy = iota
	// FailOpen allows every request: availability over protection.
	FailOpen
	// FailOpenLocal decides with an in-memory limiter of the same algorithm
	// on each replica, with the limit divided by the expected number of
	// replicas (WithReplicas). An outage then neither stops all traffic nor
	// lifts all limits, but replicas no longer share one count: choose it
	// knowingly.
	FailOpenLocal
)

var policyNames = [...]string{FailClosed: "closed", FailOpen: "open", FailOpenLocal: "local"}

// String returns "closed", "open" or "local".
func (p FailurePolicy) String() string {
	if p < 0 || int(p) >= len(policyNames) {
		return "FailurePolicy(" + strconv.Itoa(int(p)) + ")"
	}
	return policyNames[p]
}

// ParseFailurePolicy parses the names String returns.
func ParseFailurePolicy(s string) (FailurePolicy, error) {
	for p, name := range policyNames {
		if name == s {
			return FailurePolicy(p), nil
		}
	}
	return 0, fmt.Errorf("ratelimit: unknown failure policy %q, want closed, open or local", s)
}

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
	l.stats.fallbacks.Add(1)
	capacity := limit.capacity(l.algo)
	switch l.policy {
	case FailOpen:
		return Result{Allowed: true, Limit: capacity, Remaining: max(0, capacity-n), RetryAfter: -1, Degraded: true}
	case FailOpenLocal:
		share := Limit{
			Rate:   max(1, limit.Rate/l.replicas),
			Period: limit.Period,
			Burst:  max(1, limit.burst()/l.replicas),
		}
		res, _ := l.local.AllowN(context.Background(), key, share, n)
		res.Degraded = true
		return res
	}
	return Result{Limit: capacity, RetryAfter: l.probe, ResetAfter: l.probe, Degraded: true, Unavailable: true}
}

// Stats are a Limiter's counts since it was made, for metrics.
type Stats struct {
	State State
	// Outages counts switches from Healthy to Degraded, Recoveries the
	// switches back.
	Outages, Recoveries uint64
	// StoreErrors counts store calls that failed or timed out.
	StoreErrors uint64
	// FallbackDecisions counts requests the FailurePolicy answered.
	FallbackDecisions uint64
	// LastCause is Cause of the latest store error, "" if none yet.
	LastCause string
}

type counters struct {
	outages, recoveries, errors, fallbacks atomic.Uint64
	lastCause                              atomic.Pointer[string]
}

// Stats returns l's counts.
func (l *Limiter) Stats() Stats {
	s := Stats{
		State:             l.State(),
		Outages:           l.stats.outages.Load(),
		Recoveries:        l.stats.recoveries.Load(),
		StoreErrors:       l.stats.errors.Load(),
		FallbackDecisions: l.stats.fallbacks.Load(),
	}
	if c := l.stats.lastCause.Load(); c != nil {
		s.LastCause = *c
	}
	return s
}

// WithLogger sets where a Limiter logs its switches between the store and
// the failure policy; the default is slog.Default(). Each switch is one
// record, with the cause, never one per request.
func WithLogger(log *slog.Logger) Option { return func(l *Limiter) { l.log = log } }

// Cause names the kind of a store error for logs and metric labels:
// "timeout", "connection refused", "NOAUTH", "WRONGPASS", "NOPERM",
// "tls", "dns", "network", "closed" or "error".
func Cause(err error) string {
	if err == nil {
		return ""
	}
	var netErr net.Error
	var dnsErr *net.DNSError
	var storeErr redis.Error
	msg := err.Error()
	if errors.As(err, &storeErr) {
		msg = storeErr.Error()
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case strings.HasPrefix(msg, "NOAUTH"), strings.HasPrefix(msg, "WRONGPASS"), strings.HasPrefix(msg, "NOPERM"):
		first, _, _ := strings.Cut(msg, " ")
		return first
	case strings.Contains(msg, "tls:"), strings.Contains(msg, "x509:"):
		return "tls"
	case errors.As(err, &dnsErr):
		return "dns"
	case errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	case errors.Is(err, net.ErrClosed), strings.Contains(msg, "client is closed"):
		return "closed"
	case errors.As(err, &netErr):
		return "network"
	}
	return "error"
}

// storeFailed records a failed store call: counted always, logged and
// reported only when it switches l to Degraded.
func (l *Limiter) storeFailed(err error) {
	l.stats.errors.Add(1)
	cause := Cause(err)
	l.stats.lastCause.Store(&cause)
	l.warm.Store(false)
	if !l.health.failed(l.probe) {
		return
	}
	l.stats.outages.Add(1)
	l.log.Warn("rate-limit store failed; the failure policy decides until it answers again",
		"algorithm", l.algo.String(), "policy", l.policy.String(), "cause", cause, "error", err.Error(),
		"probe_interval", l.probe.String())
	if l.onChange != nil {
		l.onChange(Healthy, Degraded, err)
	}
}

// storeAnswered records a store answer; a switch back is logged and reported.
func (l *Limiter) storeAnswered() {
	if !l.warm.Load() {
		// Read first: a store on every decision would bounce the cache
		// line between cores.
		l.warm.Store(true)
	}
	since, switched := l.health.succeeded()
	if !switched {
		return
	}
	l.stats.recoveries.Add(1)
	l.log.Info("rate-limit store answers again; decisions are the store's",
		"algorithm", l.algo.String(), "degraded_for", time.Since(since).Round(time.Millisecond).String())
	if l.onChange != nil {
		l.onChange(Degraded, Healthy, nil)
	}
}

// health tracks whether the store answers. The healthy path reads one atomic;
// the mutex guards probing, which only happens while degraded.
type health struct {
	degraded atomic.Bool

	mu        sync.Mutex
	probing   bool
	nextProbe time.Time
	since     time.Time
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

// succeeded records an answer from the store and reports whether it ended
// an outage, and since when that had lasted.
func (h *health) succeeded() (since time.Time, switched bool) {
	if !h.degraded.Load() {
		return time.Time{}, false
	}
	h.mu.Lock()
	h.probing = false
	since = h.since
	h.mu.Unlock()
	return since, h.degraded.CompareAndSwap(true, false)
}

// failed records a store failure and reports whether it began an outage;
// the next probe waits a full interval.
func (h *health) failed(interval time.Duration) bool {
	h.mu.Lock()
	h.probing = false
	h.nextProbe = time.Now().Add(interval)
	h.mu.Unlock()
	if !h.degraded.CompareAndSwap(false, true) {
		return false
	}
	h.mu.Lock()
	h.since = time.Now()
	h.mu.Unlock()
	return true
}

// abandon releases a probe whose caller gave up before the store answered.
func (h *health) abandon() {
	h.mu.Lock()
	h.probing = false
	h.mu.Unlock()
}
