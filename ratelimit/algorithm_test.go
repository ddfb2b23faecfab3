package ratelimit

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// step is one request at offset at from the start of a case, with the
// expected answer. Durations are exact: the scripts and Local compute in
// whole microseconds.
type step struct {
	at        time.Duration
	n         int
	allowed   bool
	remaining int
	retry     time.Duration
	reset     time.Duration
}

const ms = time.Millisecond

var fourPerSecond = Limit{Rate: 4, Period: time.Second, Burst: 4}

// bucketSteps are shared by GCRA and TokenBucket: the two algorithms admit
// the same requests and report the same numbers.
var bucketSteps = []step{
	{0, 1, true, 3, -1, 250 * ms},
	{0, 2, true, 1, -1, 750 * ms},
	{0, 2, false, 1, 250 * ms, 750 * ms}, // one token short: wait one emission interval
	{0, 1, true, 0, -1, time.Second},
	{100 * ms, 1, false, 0, 150 * ms, 900 * ms},
	{250 * ms, 1, true, 0, -1, time.Second},  // refilled exactly one token
	{250 * ms, 5, false, 0, -1, time.Second}, // above burst: never
	{10 * time.Second, 0, true, 4, -1, 0},
}

var algorithmCases = []struct {
	algo  Algorithm
	limit Limit
	steps []step
}{
	{GCRA, fourPerSecond, bucketSteps},
	{TokenBucket, fourPerSecond, bucketSteps},
	{GCRA, Limit{Rate: 4, Period: time.Second, Burst: 2}, []step{
		{0, 2, true, 0, -1, 500 * ms},
		{0, 1, false, 0, 250 * ms, 500 * ms},
		{250 * ms, 1, true, 0, -1, 500 * ms},
	}},
	{TokenBucket, Limit{Rate: 4, Period: time.Second, Burst: 2}, []step{
		{0, 2, true, 0, -1, 500 * ms},
		{0, 1, false, 0, 250 * ms, 500 * ms},
		{250 * ms, 1, true, 0, -1, 500 * ms},
	}},
	{FixedWindow, fourPerSecond, []step{
		{0, 1, true, 3, -1, time.Second}, // the window opens at the first request
		{0, 2, true, 1, -1, time.Second},
		{100 * ms, 2, false, 1, 900 * ms, 900 * ms}, // rejected: not counted
		{100 * ms, 1, true, 0, -1, 900 * ms},
		{500 * ms, 1, false, 0, 500 * ms, 500 * ms},
		{500 * ms, 5, false, 0, -1, 500 * ms},
		{time.Second, 1, true, 3, -1, time.Second}, // a new window
		{1500 * ms, 0, true, 3, -1, 500 * ms},
		{5 * time.Second, 0, true, 4, -1, 0},
	}},
	{FixedWindowIncrFirst, fourPerSecond, []step{
		{0, 1, true, 3, -1, time.Second},
		{0, 2, true, 1, -1, time.Second},
		{100 * ms, 2, false, 0, 900 * ms, 900 * ms}, // counted: 5 of 4
		{100 * ms, 1, false, 0, 900 * ms, 900 * ms}, // would have fitted, but 5 are counted
		{500 * ms, 0, false, 0, 500 * ms, 500 * ms},
		{time.Second, 1, true, 3, -1, time.Second},
		{5 * time.Second, 0, true, 4, -1, 0},
	}},
	{SlidingLog, fourPerSecond, []step{
		{0, 1, true, 3, -1, time.Second},
		{200 * ms, 2, true, 1, -1, time.Second},
		{400 * ms, 2, false, 1, 600 * ms, 800 * ms}, // room once the entry at 0 leaves
		{400 * ms, 1, true, 0, -1, time.Second},
		{999 * ms, 1, false, 0, 1 * ms, 401 * ms},
		{time.Second, 1, true, 0, -1, time.Second}, // the entry at 0 left
		{time.Second, 5, false, 0, -1, time.Second},
		{1300 * ms, 2, true, 0, -1, time.Second}, // both entries at 200ms left
		{10 * time.Second, 0, true, 4, -1, 0},
	}},
	{SlidingWindow, fourPerSecond, []step{
		{0, 1, true, 3, -1, 2 * time.Second},
		{0, 2, true, 1, -1, 2 * time.Second},
		// 3 counted, 2 asked: wait for the next window, until the 3
		// weigh at most 2: 3 × (1 − 333334/1e6) ≤ 2.
		{500 * ms, 2, false, 1, 833334 * time.Microsecond, 1500 * ms},
		{1250 * ms, 1, true, 0, -1, 1750 * ms}, // 3 × 0.75 + 1 ≤ 4
		{1250 * ms, 1, false, 0, 83334 * time.Microsecond, 1750 * ms},
		{1250 * ms, 4, false, 0, 1750 * ms, 1750 * ms},
		{1250 * ms, 5, false, 0, -1, 1750 * ms},
		{2500 * ms, 0, true, 3, -1, 500 * ms}, // 1 × 0.5 still weighs
		{10 * time.Second, 0, true, 4, -1, 0},
	}},
}

// TestAlgorithmsOverTime replays each case against every backend and
// against Local, under a clock the test moves, and checks exact numbers.
func TestAlgorithmsOverTime(t *testing.T) {
	type target struct {
		name string
		make func(*testing.T, Algorithm, *fakeClock) Allower
	}
	targets := []target{{"local", func(_ *testing.T, a Algorithm, c *fakeClock) Allower { return NewLocal(a, c.Now) }}}
	for _, b := range backends {
		newClient := b.start(t)
		targets = append(targets, target{b.name, func(t *testing.T, a Algorithm, c *fakeClock) Allower {
			return storeLimiter(t, newClient(), WithAlgorithm(a), WithClock(c.Now))
		}})
	}
	for _, tg := range targets {
		replaySteps(t, tg.name, tg.make)
	}
}

// replaySteps runs every case of algorithmCases as a subtest of t, against
// the Allower that make returns for the case's algorithm and clock.
func replaySteps(t *testing.T, name string, make func(*testing.T, Algorithm, *fakeClock) Allower) {
	for i, tc := range algorithmCases {
		t.Run(fmt.Sprintf("%s/%s/%d", name, tc.algo, i), func(t *testing.T) {
			clock := newFakeClock()
			start := clock.Now()
			lim := make(t, tc.algo, clock)
			key := fmt.Sprintf("rate:test:%s:%d", tc.algo, i)
			for j, s := range tc.steps {
				clock.Set(start.Add(s.at))
				got, err := lim.AllowN(context.Background(), key, tc.limit, s.n)
				if err != nil {
					t.Fatalf("step %d: %v", j, err)
				}
				want := Result{Allowed: s.allowed, Limit: tc.limit.capacity(tc.algo), Remaining: s.remaining, RetryAfter: s.retry, ResetAfter: s.reset}
				if got != want {
					t.Errorf("step %d (at %v, n=%d):\n got %+v\nwant %+v", j, s.at, s.n, got, want)
				}
			}
		})
	}
}

func TestInvalidArguments(t *testing.T) {
	l := NewLocal(GCRA, nil)
	for _, tc := range []struct {
		limit Limit
		n     int
		want  error
	}{
		{Limit{}, 1, ErrInvalidLimit},
		{Limit{Rate: 1, Period: time.Nanosecond}, 1, ErrInvalidLimit},
		{Limit{Rate: 1, Period: time.Second, Burst: -1}, 1, ErrInvalidLimit},
		{PerSecond(1), -1, ErrInvalidCost},
	} {
		if _, err := l.AllowN(context.Background(), "k", tc.limit, tc.n); err != tc.want {
			t.Errorf("AllowN(%v, %d) = %v, want %v", tc.limit, tc.n, err, tc.want)
		}
		if _, err := NewLimiter(nil).AllowN(context.Background(), "k", tc.limit, tc.n); err != tc.want {
			t.Errorf("Limiter.AllowN(%v, %d) = %v, want %v", tc.limit, tc.n, err, tc.want)
		}
	}
}

// TestLaggingClockKeepsState: with caller clocks, a replica 10ms behind
// another, just across a window edge, must see the state the other wrote
// rather than an empty limiter.
func TestLaggingClockKeepsState(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newClient func() redis.UniversalClient) {
		ahead, behind := newFakeClock(), newFakeClock()
		ahead.Advance(time.Second)
		behind.Advance(990 * ms)
		for _, algo := range Algorithms {
			// One Local read through either clock stands for one shared store.
			clock := ahead
			shared := NewLocal(algo, func() time.Time { return clock.Now() })
			check := func(name string, first, second Allower, between func()) {
				key := "rate:user:lag:" + algo.String()
				if res, _ := first.AllowN(context.Background(), key, fourPerSecond, 4); !res.Allowed {
					t.Fatalf("%s/%s: the first 4 were denied", name, algo)
				}
				between()
				if res, _ := second.AllowN(context.Background(), key, fourPerSecond, 1); res.Allowed {
					t.Errorf("%s/%s: the lagging replica got a fifth request: %+v", name, algo, res)
				}
			}
			check("local", shared, shared, func() { clock = behind })
			check("store",
				storeLimiter(t, newClient(), WithAlgorithm(algo), WithClock(ahead.Now)),
				storeLimiter(t, newClient(), WithAlgorithm(algo), WithClock(behind.Now)),
				func() {})
		}
	})
}
