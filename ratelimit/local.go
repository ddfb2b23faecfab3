package ratelimit

import (
	"context"
	"sort"
	"sync"
	"time"
)

// Local is an in-memory limiter with the same algorithms and the same
// answers as the store scripts, for one process. A Limiter uses it as the
// FailOpenLocal fallback. On its own it shows the problem a shared store
// solves: N replicas with a Local each admit N × the limit.
type Local struct {
	algo  Algorithm
	clock func() time.Time

	mu     sync.Mutex
	states map[string]*localState
	ops    int
}

// localState is the in-memory twin of one store key; each algorithm uses
// the fields named after its script's hash fields.
type localState struct {
	n, e    int64   // fixed windows: count, window end
	w, c, p int64   // sliding window: window index, current and previous counts
	t, ts   int64   // token bucket: tokens × period, last update
	tat     int64   // GCRA: theoretical arrival time, in nanoseconds
	log     []int64 // sliding log: admitted request times, oldest first
	expires int64   // when the state is empty again and may be dropped
}

// NewLocal returns an empty Local using algorithm a and clock now; a nil
// clock means time.Now.
func NewLocal(a Algorithm, now func() time.Time) *Local {
	if now == nil {
		now = time.Now
	}
	return &Local{algo: a, clock: now, states: make(map[string]*localState)}
}

// AllowN decides a request of cost n for key under limit, like
// Limiter.AllowN. ctx is unused; it is there so that Local and Limiter fit
// the same Allower interface.
func (m *Local) AllowN(_ context.Context, key string, limit Limit, n int) (Result, error) {
	if !limit.valid() {
		return Result{}, ErrInvalidLimit
	}
	if n < 0 {
		return Result{}, ErrInvalidCost
	}
	now := m.clock().UnixMicro()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	s := m.states[key]
	if s == nil {
		s = &localState{}
		m.states[key] = s
	}
	a := args{now: now, rate: int64(limit.Rate), period: limit.Period.Microseconds(), burst: int64(limit.burst()), cost: int64(n)}
	var r reply
	switch m.algo {
	case GCRA:
		r = s.gcra(a)
	case TokenBucket:
		r = s.tokenBucket(a)
	case FixedWindow:
		r = s.fixedWindow(a, false)
	case FixedWindowIncrFirst:
		r = s.fixedWindow(a, true)
	case SlidingLog:
		r = s.slidingLog(a)
	case SlidingWindow:
		r = s.slidingWindow(a)
	}
	return r.result(), nil
}

// sweep drops expired states every 1024 calls, so that a Local serving
// many short-lived identities does not grow without bound.
func (m *Local) sweep(now int64) {
	m.ops++
	if m.ops%1024 != 0 {
		return
	}
	for k, s := range m.states {
		if s.expires <= now {
			delete(m.states, k)
		}
	}
}

// args are a script's ARGV, in microseconds.
type args struct{ now, rate, period, burst, cost int64 }

// reply is a script's reply: allowed, limit, remaining, retry and reset µs.
type reply [5]int64

func (r reply) result() Result {
	return Result{Allowed: r[0] == 1, Limit: int(r[1]), Remaining: int(r[2]), RetryAfter: micros(r[3]), ResetAfter: micros(r[4])}
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

func (s *localState) fixedWindow(a args, incrFirst bool) reply {
	n, e := int64(0), a.now+a.period
	if s.e > a.now {
		n, e = s.n, s.e
	}
	live := n > 0
	resetAfter := func() int64 {
		if live {
			return e - a.now
		}
		return 0
	}
	retry := int64(-1)
	if a.cost <= a.rate {
		retry = e - a.now
	}
	if incrFirst {
		if a.cost > 0 {
			n += a.cost
			s.n, s.e, s.expires, live = n, e, e, true
		}
		if n > a.rate {
			return reply{0, a.rate, 0, retry, resetAfter()}
		}
		return reply{1, a.rate, a.rate - n, -1, resetAfter()}
	}
	if n+a.cost > a.rate {
		return reply{0, a.rate, a.rate - n, retry, resetAfter()}
	}
	if a.cost > 0 {
		s.n, s.e, s.expires, live = n+a.cost, e, e, true
	}
	return reply{1, a.rate, a.rate - n - a.cost, -1, resetAfter()}
}

func (s *localState) slidingLog(a args) reply {
	// Entries at or before now-period have left the window.
	drop := sort.Search(len(s.log), func(i int) bool { return s.log[i] > a.now-a.period })
	s.log = s.log[drop:]
	n := int64(len(s.log))
	resetAfter := int64(0)
	if n > 0 {
		resetAfter = s.log[n-1] + a.period - a.now
	}
	if n+a.cost > a.rate {
		retry := int64(-1)
		if a.cost <= a.rate {
			retry = s.log[n+a.cost-a.rate-1] + a.period - a.now
		}
		return reply{0, a.rate, a.rate - n, retry, resetAfter}
	}
	if a.cost == 0 {
		return reply{1, a.rate, a.rate - n, -1, resetAfter}
	}
	for range a.cost {
		s.log = append(s.log, a.now)
	}
	s.expires = a.now + a.period
	return reply{1, a.rate, a.rate - n - a.cost, -1, a.period}
}

func (s *localState) slidingWindow(a args) reply {
	window := a.now / a.period
	elapsed := a.now - window*a.period
	if s.w > window {
		window, elapsed = s.w, 0 // as in the script: a lagging clock
	}
	var cur, prev int64
	switch s.w {
	case window:
		cur, prev = s.c, s.p
	case window - 1:
		prev = s.c
	}
	firstFit := func(p, c, at int64) (int64, bool) {
		room := a.rate - c - a.cost
		if room < 0 {
			return 0, false
		}
		if p == 0 {
			return at, true
		}
		return max(at, a.period-room*a.period/p), true
	}
	resetAfter := func() int64 {
		switch {
		case cur > 0:
			return 2*a.period - elapsed
		case prev > 0:
			return a.period - elapsed
		}
		return 0
	}
	weighted := prev * (a.period - elapsed)
	used := cur + ceilDiv(weighted, a.period)
	if weighted+(cur+a.cost)*a.period > a.rate*a.period {
		retry := int64(-1)
		if a.cost <= a.rate {
			if e, ok := firstFit(prev, cur, elapsed); ok && e < a.period {
				retry = e - elapsed
			} else {
				e, _ := firstFit(cur, 0, 0)
				retry = a.period - elapsed + e
			}
		}
		return reply{0, a.rate, max(0, a.rate-used), retry, resetAfter()}
	}
	if a.cost > 0 {
		cur += a.cost
		s.w, s.c, s.p = window, cur, prev
		s.expires = (window + 2) * a.period
	}
	return reply{1, a.rate, max(0, a.rate-used-a.cost), -1, resetAfter()}
}

func (s *localState) tokenBucket(a args) reply {
	capacity := a.burst * a.period
	tokens, last := capacity, a.now
	if s.expires > 0 {
		tokens, last = s.t, s.ts
		if a.now > last {
			tokens = min(capacity, tokens+(a.now-last)*a.rate)
			last = a.now
		}
	}
	need := a.cost * a.period
	if need > tokens {
		retry := int64(-1)
		if a.cost <= a.burst {
			retry = ceilDiv(need-tokens, a.rate)
		}
		return reply{0, a.burst, tokens / a.period, retry, ceilDiv(capacity-tokens, a.rate)}
	}
	if a.cost > 0 {
		tokens -= need
		s.t, s.ts = tokens, last
		s.expires = last + ceilDiv(capacity-tokens, a.rate)
	}
	return reply{1, a.burst, tokens / a.period, -1, ceilDiv(capacity-tokens, a.rate)}
}

func (s *localState) gcra(a args) reply {
	// In integer nanoseconds, as gcra.lua and CL.THROTTLE compute.
	q := a.period / a.rate
	interval := max(q*1000+(a.period-q*a.rate)*1000/a.rate, 1)
	tolerance := interval * a.burst
	now := a.now * 1000
	var backlog int64
	if s.expires > a.now {
		backlog = max(0, s.tat-now)
	}
	whole := func(ns int64) int64 { return max(0, ns) / interval }
	ahead := backlog + interval*a.cost
	if ahead > tolerance {
		retry := int64(-1)
		if a.cost <= a.burst {
			retry = ceilDiv(ahead-tolerance, 1000)
		}
		return reply{0, a.burst, whole(tolerance - backlog), retry, ceilDiv(backlog, 1000)}
	}
	if a.cost > 0 {
		s.tat = now + ahead
		s.expires = ceilDiv(s.tat, 1000)
	}
	return reply{1, a.burst, whole(tolerance - ahead), -1, ceilDiv(ahead, 1000)}
}
