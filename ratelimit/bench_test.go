package ratelimit

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkAllow measures decisions per second of every algorithm against
// every backend, from 64 goroutines over 1000 keys limited to 100/s,
// so that answers mix allowed and denied.
func BenchmarkAllow(b *testing.B) {
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = IPKey("10.0." + strconv.Itoa(i/256) + "." + strconv.Itoa(i%256))
	}
	for _, be := range backends {
		rdb := be.start(b)()
		for _, algo := range Algorithms {
			b.Run(be.name+"/"+algo.String(), func(b *testing.B) {
				l := storeLimiter(b, rdb, WithAlgorithm(algo))
				var next atomic.Int64
				// Each goroutine mostly waits for a round trip; many of them
				// measure the store's throughput, not one connection's latency.
				b.SetParallelism(32)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						key := keys[next.Add(1)%int64(len(keys))]
						if _, err := l.Allow(context.Background(), key, PerSecond(100)); err != nil {
							b.Error(err)
							return
						}
					}
				})
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
			})
		}
	}
}

// BenchmarkLocal is the in-memory fallback, for scale.
func BenchmarkLocal(b *testing.B) {
	for _, algo := range Algorithms {
		b.Run(algo.String(), func(b *testing.B) {
			m := NewLocal(algo, nil)
			var next atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					m.AllowN(context.Background(), "rate:ip:"+strconv.Itoa(int(next.Add(1)%1000)), PerSecond(100), 1)
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
		})
	}
}

// BenchmarkHotKeyBatching sends one hot key through GCRA with and without
// batches of 10 (100ms) and reports store round trips per decision.
func BenchmarkHotKeyBatching(b *testing.B) {
	newClient := backends[0].start(b)
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"unbatched", nil},
		{"batch10", []Option{WithBatching(10, 100*time.Millisecond)}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			rdb, trips := counted(newClient)
			l := storeLimiter(b, rdb, tc.opts...)
			limit := Limit{Rate: 1 << 30, Period: time.Hour}
			b.SetParallelism(32)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := l.Allow(context.Background(), "rate:apikey:hot", limit); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(trips.n.Load())/float64(b.N), "trips/op")
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
		})
	}
}
