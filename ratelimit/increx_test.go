package ratelimit

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server/servertest"
)

// TestIncrExAndScriptAgree replays one schedule of requests through a
// fixed-window Limiter on INCREX and through fixed_window.lua, both on
// floodgate's manual clock (the script reads it through TIME): every
// Result agrees, RetryAfter and ResetAfter included. The schedule has
// requests at a window's last millisecond and at its end, costs over the
// rate, peeks, and windows that open long after the last one closed.
func TestIncrExAndScriptAgree(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	limits := []Limit{
		PerSecond(4),
		PerMinute(30),
		{Rate: 3, Period: 1500 * time.Millisecond},
		{Rate: 1, Period: 2 * time.Millisecond},
		{Rate: 1000, Period: time.Second},
		{Rate: 10, Period: 250 * time.Millisecond},
		{Rate: 2, Period: time.Hour},
	}
	s := servertest.RunT(t, servertest.WithManualClock(t0))
	newClient := clientsOf(t, s.Addr())
	native := storeLimiter(t, newClient(), WithAlgorithm(FixedWindow))
	script := storeLimiter(t, newClient(), WithAlgorithm(FixedWindow), WithScriptOnly())
	ctx := context.Background()
	if !native.HasIncrEx(ctx) || script.HasIncrEx(ctx) {
		t.Fatalf("HasIncrEx: %v and %v, want true and false", native.HasIncrEx(ctx), script.HasIncrEx(ctx))
	}
	decided := 0
	for i, limit := range limits {
		key := fmt.Sprintf("rate:fw:%d", i)
		for j, req := range agreeSchedule {
			now := t0.Add(req.at * time.Millisecond)
			s.SetTime(now)
			got, err := native.AllowN(ctx, key+":native", limit, req.cost)
			if err != nil {
				t.Fatal(err)
			}
			want, err := script.AllowN(ctx, key+":script", limit, req.cost)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%v, request %d (at %dms, cost %d):\n INCREX %+v\n script %+v", limit, j, int64(req.at), req.cost, got, want)
			}
			if req.cost > 0 {
				decided++
			}
		}
	}
	// The native path did decide: its keys are INCREX's counters.
	stats := newClient().Info(ctx, "commandstats").Val()
	if want := fmt.Sprintf("cmdstat_increx:calls=%d,", decided); !strings.Contains(stats, want) {
		t.Errorf("commandstats has no %q:\n%s", want, stats)
	}
}

// TestIncrExDetection: floodgate has INCREX, Redis 7.0 does not, so there
// the fixed window runs its script; WithClock and the other algorithms
// never use INCREX.
func TestIncrExDetection(t *testing.T) {
	ctx := context.Background()
	fg := clientsOf(t, servertest.RunT(t).Addr())
	if l := NewLimiter(fg(), WithAlgorithm(FixedWindow)); !l.HasIncrEx(ctx) {
		t.Error("floodgate: no INCREX")
	}
	if l := NewLimiter(fg(), WithAlgorithm(FixedWindow), WithClock(time.Now)); l.HasIncrEx(ctx) {
		t.Error("with WithClock: INCREX")
	}
	if l := NewLimiter(fg(), WithAlgorithm(FixedWindowIncrFirst)); l.HasIncrEx(ctx) {
		t.Error("increment-first window: INCREX")
	}
	l := storeLimiter(t, clientsOf(t, redistest.Start(t).Addr)(), WithAlgorithm(FixedWindow))
	if l.HasIncrEx(ctx) {
		t.Error("Redis 7.0: INCREX")
	}
	for i, want := range []bool{true, true, false} {
		if res, err := l.Allow(ctx, "k", PerMinute(2)); err != nil || res.Allowed != want {
			t.Errorf("Redis, by script, request %d: %+v %v", i, res, err)
		}
	}
}
