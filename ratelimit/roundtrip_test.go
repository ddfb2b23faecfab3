package ratelimit

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

// wire records every round trip a client makes: a command, or a pipeline
// (its commands joined by "+").
type wire struct {
	mu    sync.Mutex
	trips []string
}

func (w *wire) DialHook(next redis.DialHook) redis.DialHook { return next }

func (w *wire) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		w.add(cmd.Name())
		return next(ctx, cmd)
	}
}

func (w *wire) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		names := make([]string, len(cmds))
		for i, c := range cmds {
			names[i] = c.Name()
		}
		w.add(strings.Join(names, "+"))
		return next(ctx, cmds)
	}
}

func (w *wire) add(trip string) {
	w.mu.Lock()
	w.trips = append(w.trips, trip)
	w.mu.Unlock()
}

func (w *wire) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.trips
	w.trips = nil
	return t
}

// TestOneRoundTripPerDecision: once the store has answered (Check), every
// decision is one round trip: EVALSHA (never SCRIPT EXISTS before it), or
// CL.THROTTLE, or INCREX+PTTL in one pipeline where the store has them.
// After the store loses its scripts, one decision takes EVALSHA then EVAL,
// and the next is back to one.
func TestOneRoundTripPerDecision(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newClient func() redis.UniversalClient) {
		ctx := context.Background()
		for _, a := range Algorithms {
			rdb := newClient()
			var w wire
			rdb.AddHook(&w)
			l := storeLimiter(t, rdb, WithAlgorithm(a))
			if _, err := l.Check(ctx); err != nil {
				t.Fatal(err)
			}
			w.take()
			for i := range 5 {
				if _, err := l.Allow(ctx, fmt.Sprint("trip:", a, i%2), PerMinute(100)); err != nil {
					t.Fatal(err)
				}
			}
			trips := w.take()
			want := "evalsha"
			switch {
			case l.Native(ctx):
				want = "cl.throttle"
			case l.HasIncrEx(ctx):
				want = "increx+pttl"
			}
			w.take()
			if len(trips) != 5 {
				t.Errorf("%s: 5 decisions took %d round trips %q, want 5", a, len(trips), trips)
			}
			for _, trip := range trips {
				if trip != want {
					t.Errorf("%s: round trip %q, want %q", a, trip, want)
				}
			}
			if want != "evalsha" {
				continue
			}
			if err := rdb.ScriptFlush(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			w.take()
			for range 2 {
				if _, err := l.Allow(ctx, "trip:flushed", PerMinute(100)); err != nil {
					t.Fatal(err)
				}
			}
			if got := strings.Join(w.take(), " "); got != "evalsha eval evalsha" {
				t.Errorf("%s after SCRIPT FLUSH: %q, want \"evalsha eval evalsha\"", a, got)
			}
		}
	})
}
