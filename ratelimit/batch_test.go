package ratelimit

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// roundTrips counts the scripts a client runs (EVALSHA, and EVAL after a
// NOSCRIPT), as a go-redis hook.
type roundTrips struct{ n atomic.Int64 }

func (c *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if name := cmd.Name(); name == "evalsha" || name == "eval" {
			c.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

func (c *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// counted returns a client of newClient whose commands are counted.
func counted(newClient func() redis.UniversalClient) (redis.UniversalClient, *roundTrips) {
	rdb := newClient()
	var c roundTrips
	rdb.AddHook(&c)
	return rdb, &c
}

// TestBatchingSavesRoundTrips sends 1000 requests of a hot key, one per
// millisecond, with and without batches of 10.
func TestBatchingSavesRoundTrips(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newClient func() redis.UniversalClient) {
		limit := PerHour(5000)
		run := func(opts ...Option) (allowed int, trips int64) {
			clock := newFakeClock()
			rdb, trips0 := counted(newClient)
			opts = append(opts, WithClock(clock.Now))
			l := storeLimiter(t, rdb, opts...)
			key := "rate:user:hot" + time.Now().String()
			for range 1000 {
				res, err := l.Allow(context.Background(), key, limit)
				if err != nil {
					t.Fatal(err)
				}
				if res.Allowed {
					allowed++
				}
				clock.Advance(time.Millisecond)
			}
			return allowed, trips0.n.Load()
		}
		allowedPlain, plain := run()
		allowedBatched, batched := run(WithBatching(10, 100*time.Millisecond))
		t.Logf("1000 requests of a hot key: %d round trips unbatched, %d with batches of 10 (%.0f%% saved)",
			plain, batched, 100*(1-float64(batched)/float64(plain)))
		if allowedPlain != 1000 || allowedBatched != 1000 {
			t.Errorf("allowed %d and %d of 1000 under a limit of 5000", allowedPlain, allowedBatched)
		}
		// 9 requests before the key counts as hot, then one reservation per 10.
		// (The first run paid the one NOSCRIPT; the script is cached since.)
		if want := int64(9 + 100); batched != want {
			t.Errorf("batched run took %d round trips, want %d", batched, want)
		}
	})
}

// TestBatchingStaysExactNearTheLimit: when the clock does not move, every
// reserved unit is spent, and reservations that no longer fit fall back to
// single requests, so three batching replicas still admit exactly L.
func TestBatchingStaysExactNearTheLimit(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newClient func() redis.UniversalClient) {
		const L = 100
		clock := newFakeClock()
		for _, algo := range []Algorithm{GCRA, TokenBucket, FixedWindow, SlidingLog, SlidingWindow} {
			t.Run(algo.String(), func(t *testing.T) {
				var replicas []Allower
				for range 3 {
					replicas = append(replicas, storeLimiter(t, newClient(), WithAlgorithm(algo), WithClock(clock.Now),
						WithBatching(8, 100*time.Millisecond)))
				}
				if got := hammer(t, replicas, "rate:user:batched", Limit{Rate: L, Period: time.Hour}, 2*L); got != L {
					t.Errorf("admitted %d, want exactly %d", got, L)
				}
			})
		}
	})
}

// TestBatchingErrorBoundIsTight builds the worst case of the documented
// bound: three replicas reserve batches just before a fixed window ends and
// spend them in the next one, which then admits L + replicas × (size − 1).
func TestBatchingErrorBoundIsTight(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newClient func() redis.UniversalClient) {
		const L, replicas, size = 60, 3, 10
		clock := newFakeClock()
		start := clock.Now()
		limit := Limit{Rate: L, Period: time.Second}
		var lims []*Limiter
		for range replicas {
			lims = append(lims, storeLimiter(t, newClient(), WithAlgorithm(FixedWindow), WithClock(clock.Now),
				WithBatching(size, 100*time.Millisecond)))
		}
		send := func(perReplica int) (allowed int) {
			for range perReplica {
				for _, l := range lims {
					res, err := l.Allow(context.Background(), "rate:user:bound", limit)
					if err != nil {
						t.Fatal(err)
					}
					if res.Allowed {
						allowed++
					}
				}
			}
			return allowed
		}
		send(1) // opens the window [0, 1s) with 3 requests
		clock.Set(start.Add(950 * time.Millisecond))
		// Each replica: 9 single requests, then the key is hot and the 10th
		// reserves a batch of 10, spending 1. The store has counted 3+3×19 = 60.
		if got := send(size); got != replicas*size {
			t.Fatalf("late in the window: allowed %d, want %d", got, replicas*size)
		}
		clock.Set(start.Add(time.Second)) // a new window; the batches live until 1.05s
		got := send(100)
		t.Logf("window after the reservations admitted %d (limit %d, bound %d)", got, L, L+replicas*(size-1))
		if want := L + replicas*(size-1); got != want {
			t.Errorf("window after the reservations admitted %d, want the bound %d", got, want)
		}
	})
}
