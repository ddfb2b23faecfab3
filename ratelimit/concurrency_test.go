package ratelimit

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// hammer sends attempts requests of cost 1 for key to each replica, from 64
// goroutines spread over the replicas, and returns how many were allowed.
func hammer(t *testing.T, replicas []Allower, key string, limit Limit, attempts int) int {
	t.Helper()
	const goroutines = 64
	var allowed atomic.Int64
	tried := make([]atomic.Int64, len(replicas))
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			r := g % len(replicas)
			lim := replicas[r]
			for tried[r].Add(1) <= int64(attempts) {
				res, err := lim.AllowN(context.Background(), key, limit, 1)
				if err != nil {
					t.Error(err)
					return
				}
				if res.Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return int(allowed.Load())
}

// TestSharedLimitIsExact is the point of a shared store: 64 goroutines on
// three gateway replicas, each with its own connection pool, admit exactly
// the limit. The window is an hour (and the bucket refills one request per
// 36s), so nothing rolls or refills while the test runs.
func TestSharedLimitIsExact(t *testing.T) {
	const L = 100
	limit := Limit{Rate: L, Period: time.Hour, Burst: L}
	for _, b := range backends {
		checkSharedLimit(t, b.name, b.start(t), L, limit)
	}
}

// checkSharedLimit hammers one key through three replicas, each with its
// own client from newClient, for every algorithm, and wants exactly L.
func checkSharedLimit(t *testing.T, name string, newClient func() redis.UniversalClient, L int, limit Limit) {
	for _, algo := range Algorithms {
		t.Run(name+"/"+algo.String(), func(t *testing.T) {
			var replicas []Allower
			for range 3 {
				replicas = append(replicas, storeLimiter(t, newClient(), WithAlgorithm(algo)))
			}
			if got := hammer(t, replicas, "rate:user:exact", limit, 2*L); got != L {
				t.Errorf("3 replicas sharing the store admitted %d, want exactly %d", got, L)
			}
		})
	}
}

// TestLocalCountersMultiplyTheLimit shows the problem the shared store
// solves: three replicas each counting in memory admit three times the limit.
func TestLocalCountersMultiplyTheLimit(t *testing.T) {
	const L, replicas = 100, 3
	limit := Limit{Rate: L, Period: time.Hour, Burst: L}
	for _, algo := range Algorithms {
		t.Run(algo.String(), func(t *testing.T) {
			var locals []Allower
			for range replicas {
				locals = append(locals, NewLocal(algo, nil))
			}
			if got := hammer(t, locals, "rate:user:local", limit, 2*L); got != replicas*L {
				t.Errorf("%d local counters admitted %d, want %d (N × L)", replicas, got, replicas*L)
			}
		})
	}
}
