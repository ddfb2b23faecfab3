package ratelimit

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server/servertest"
	"github.com/redis/go-redis/v9"
)

// cellSeconds rounds a script's duration as CL.THROTTLE reports it: whole
// seconds, plus one for a remainder of at least a millisecond.
func cellSeconds(d time.Duration) time.Duration {
	if d < 0 {
		return d
	}
	s := d / time.Second
	if d%time.Second >= time.Millisecond {
		s++
	}
	return s * time.Second
}

// TestNativeAndScriptAgree replays one schedule of requests through a
// Limiter on CL.THROTTLE and through gcra.lua on floodgate, both on
// floodgate's manual clock (the script reads the same clock through TIME),
// and through Local: every answer agrees, durations compared in
// CL.THROTTLE's whole seconds. Most limits have an emission interval that is
// not a whole number of microseconds, where the script once kept its TAT in
// µs doubles and answered one less Remaining than the command.
//
// gcra.lua on real Redis takes the schedule's times as the caller's clock,
// but its keys expire on Redis's own clock: it replays the schedule in
// minutes, against limits whose every key lives 100 seconds or more, so
// that no key expires while the test runs.
func TestNativeAndScriptAgree(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	limits := []Limit{
		PerSecond(4),
		{Rate: 30, Period: time.Minute, Burst: 16}, // redis-cell's README: 15 30 60
		{Rate: 3, Period: 1500 * time.Millisecond, Burst: 2},
		{Rate: 1000, Period: time.Second, Burst: 10},
		{Rate: 1, Period: time.Hour, Burst: 1},
		{Rate: 125, Period: 100 * time.Millisecond, Burst: 50}, // 800µs
		// Fractional intervals in µs: 142857142.86ns, 333333333.33ns, ...
		{Rate: 7, Period: time.Second, Burst: 3},
		{Rate: 7, Period: time.Second, Burst: 20},
		{Rate: 3, Period: time.Second, Burst: 9},
		{Rate: 9, Period: time.Minute, Burst: 4},
		{Rate: 6, Period: 100 * time.Millisecond, Burst: 12},
		{Rate: 30, Period: 7 * time.Second, Burst: 60},
		{Rate: 999, Period: time.Second, Burst: 1000},
		{Rate: 5, Period: time.Microsecond, Burst: 3},            // 200ns
		{Rate: 11, Period: 1234567 * time.Microsecond, Burst: 5}, // 112233363.63ns
	}
	slowLimits := []Limit{ // intervals of 100 seconds or more
		{Rate: 7, Period: 20 * time.Minute, Burst: 3}, // 171428571428.57ns
		{Rate: 7, Period: 20 * time.Minute, Burst: 20},
		{Rate: 7, Period: 13 * time.Minute, Burst: 5},
		{Rate: 13, Period: 40 * time.Minute, Burst: 9},
		{Rate: 11, Period: 30 * time.Minute, Burst: 5},
		{Rate: 9, Period: 30 * time.Minute, Burst: 4}, // 200s: whole
		{Rate: 1, Period: 24 * time.Hour, Burst: 2},
	}
	s := servertest.RunT(t, servertest.WithManualClock(t0))
	newClient := clientsOf(t, s.Addr())
	native := storeLimiter(t, newClient())
	script := storeLimiter(t, newClient(), WithScriptOnly())
	ctx := context.Background()
	if !native.Native(ctx) || script.Native(ctx) {
		t.Fatalf("Native: %v and %v, want true and false", native.Native(ctx), script.Native(ctx))
	}
	var now time.Time
	clock := func() time.Time { return now }
	onRedis := storeLimiter(t, clientsOf(t, redistest.Start(t).Addr)(), WithClock(clock))

	type other struct {
		name string
		l    Allower
	}
	for _, run := range []struct {
		unit   time.Duration
		limits []Limit
		others []other
	}{
		{time.Millisecond, limits, []other{{"floodgate's script", script}, {"Local", NewLocal(GCRA, clock)}}},
		{time.Minute, slowLimits, []other{{"floodgate's script", script}, {"Redis's script", onRedis}, {"Local", NewLocal(GCRA, clock)}}},
	} {
		for i, limit := range run.limits {
			if _, _, _, ok := throttleArgs(limit); !ok {
				t.Fatalf("%v: not on the native path", limit)
			}
			key := fmt.Sprintf("rate:agree:%v:%d", run.unit, i)
			for j, req := range agreeSchedule {
				now = t0.Add(req.at * run.unit)
				s.SetTime(now)
				got, err := native.AllowN(ctx, key+":native", limit, req.cost)
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range run.others {
					want, err := o.l.AllowN(ctx, key+":script", limit, req.cost)
					if err != nil {
						t.Fatal(err)
					}
					want.RetryAfter, want.ResetAfter = cellSeconds(want.RetryAfter), cellSeconds(want.ResetAfter)
					if got != want {
						t.Errorf("%v, request %d (at %d × %v, cost %d):\n native %+v\n %s %+v", limit, j, int64(req.at), run.unit, req.cost, got, o.name, want)
					}
				}
			}
		}
	}
}

// agreeSchedule is TestNativeAndScriptAgree's requests: offsets (in the
// run's unit) and costs. Bursts, a request larger than any burst, peeks,
// refills, and times near multiples of 1/3 and 1/7 of a thousand units.
var agreeSchedule = []struct {
	at   time.Duration
	cost int
}{
	{0, 1}, {0, 1}, {0, 2}, {0, 0}, {0, 50}, {0, 1}, {1, 1}, {2, 1}, {100, 1}, {250, 1}, {250, 3},
	{333, 1}, {334, 1}, {429, 1}, {500, 1}, {500, 0}, {571, 2}, {999, 1}, {1000, 1}, {1000, 0},
	{1500, 2}, {2000, 7}, {2143, 1}, {3000, 1}, {3000, 1}, {3001, 4}, {6667, 1}, {6667, 0},
	{60000, 0}, {60000, 17}, {61000, 16}, {61050, 0}, {7200000, 1}, {7200000, 1},
}

// TestNativeDetection: floodgate has CL.THROTTLE, Redis does not; a Limiter
// with its own clock or another algorithm never uses it; a failed question
// is asked again.
func TestNativeDetection(t *testing.T) {
	ctx := context.Background()
	fg := clientsOf(t, servertest.RunT(t).Addr())
	if l := NewLimiter(fg()); !l.Native(ctx) {
		t.Error("floodgate: not native")
	}
	if l := NewLimiter(fg(), WithClock(time.Now)); l.Native(ctx) {
		t.Error("with WithClock: native")
	}
	if l := NewLimiter(fg(), WithAlgorithm(TokenBucket)); l.Native(ctx) {
		t.Error("token bucket: native")
	}
	rdb := clientsOf(t, redistest.Start(t).Addr)()
	l := storeLimiter(t, rdb)
	if l.Native(ctx) {
		t.Error("Redis: native")
	}
	if res, err := l.Allow(ctx, "k", PerSecond(2)); err != nil || !res.Allowed || res.Remaining != 1 {
		t.Errorf("Redis, by script: %+v %v", res, err)
	}

	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	t.Cleanup(func() { down.Close() })
	l = NewLimiter(down)
	if l.Native(ctx) || l.native.Load() != nativeUnknown {
		t.Errorf("unreachable store: native %v, state %d", l.Native(ctx), l.native.Load())
	}
}

func TestThrottleArgs(t *testing.T) {
	for _, tc := range []struct {
		limit                   Limit
		maxBurst, count, period int64
		ok                      bool
	}{
		{PerSecond(4), 3, 4, 1, true},
		{PerMinute(30), 29, 30, 60, true},
		{Limit{Rate: 3, Period: 1500 * time.Millisecond, Burst: 2}, 1, 6, 3, true},
		{Limit{Rate: 1, Period: time.Millisecond}, 0, 1000, 1, true},
		{Limit{Rate: 1000, Period: time.Second, Burst: 10}, 9, 1000, 1, true},
		{Limit{Rate: 1, Period: 2500 * time.Microsecond}, 0, 400, 1, true},
		{Limit{Rate: 3, Period: time.Second}, 2, 3, 1, true},             // 333333.33µs
		{Limit{Rate: 5, Period: time.Microsecond}, 4, 5000000, 1, true},  // 0.2µs
		{Limit{Rate: 1, Period: 1500 * time.Nanosecond}, 0, 0, 0, false}, // the script takes whole µs
		{Limit{Rate: 1 << 20, Period: (1 << 20) * time.Hour, Burst: 1}, 0, 1 << 20, 3600 << 20, true},
	} {
		b, c, p, ok := throttleArgs(tc.limit)
		if ok != tc.ok || (ok && (b != tc.maxBurst || c != tc.count || p != tc.period)) {
			t.Errorf("throttleArgs(%v) = %d %d %d %v, want %d %d %d %v", tc.limit, b, c, p, ok, tc.maxBurst, tc.count, tc.period, tc.ok)
		}
	}
}

// TestNativeRedisCell runs a Limiter on Redis with the redis-cell module
// when CELL_SO names one (scripts/redis-cell-diff.sh says how to build it):
// the Limiter takes the native path there too, and a burst is admitted and
// then refused as the script would.
func TestNativeRedisCell(t *testing.T) {
	so := os.Getenv("CELL_SO")
	if so == "" {
		t.Skip("CELL_SO is not set")
	}
	r := redistest.StartWith(t, func(int, string) []string { return []string{"--loadmodule", so} })
	l := storeLimiter(t, clientsOf(t, r.Addr)())
	ctx := context.Background()
	if !l.Native(ctx) {
		t.Fatal("Redis with redis-cell: not native")
	}
	limit := Limit{Rate: 1, Period: time.Hour, Burst: 3}
	for i, want := range []Result{
		{Allowed: true, Limit: 3, Remaining: 2, RetryAfter: -1, ResetAfter: time.Hour},
		{Allowed: true, Limit: 3, Remaining: 1, RetryAfter: -1, ResetAfter: 2 * time.Hour},
		{Allowed: true, Limit: 3, Remaining: 0, RetryAfter: -1, ResetAfter: 3 * time.Hour},
		{Allowed: false, Limit: 3, Remaining: 0, RetryAfter: time.Hour, ResetAfter: 3 * time.Hour},
	} {
		got, err := l.Allow(ctx, "cell", limit)
		if err != nil || got != want {
			t.Fatalf("request %d: %+v %v, want %+v", i, got, err, want)
		}
	}
}
