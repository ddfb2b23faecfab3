package server

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// BenchmarkPersistence1M compares floodgate with redis-server on 1,000,000
// keys: the latency a client sending INCRs sees while a BGSAVE runs (the
// longest wait and the p99; for Redis also the fork time it reports), then
// SAVE and loading at start. Run with -benchtime=1x; numbers in
// BENCHMARKS.md.
//
//	go test ./server -run '^$' -bench Persistence1M -benchtime=1x
func BenchmarkPersistence1M(b *testing.B) {
	keys := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("PERSIST_KEYS")); err == nil {
		keys = v
	}
	b.Run("floodgate", func(b *testing.B) {
		dir := b.TempDir()
		srv := New(Config{Addr: "127.0.0.1:0", Dir: dir})
		if err := srv.Start(); err != nil {
			b.Fatal(err)
		}
		defer srv.Close()
		persistenceBench(b, srv.Addr(), keys, func() time.Duration {
			var hold time.Duration
			srv.Do(func() { hold = srv.persist.lastMaxHold })
			b.ReportMetric(float64(hold.Microseconds()), "max-step-us")
			start := time.Now()
			fresh := New(Config{Addr: "127.0.0.1:0", Dir: dir})
			if err := fresh.LoadRDB(); err != nil {
				b.Fatal(err)
			}
			return time.Since(start)
		})
	})
	b.Run("redis", func(b *testing.B) {
		dir := b.TempDir()
		srv, err := redistest.Launch(dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Stop()
		persistenceBench(b, srv.Addr, keys, func() time.Duration {
			srv.Stop()
			if err := srv.Start(); err != nil {
				b.Fatal(err)
			}
			logs, _ := filepath.Glob(filepath.Join(dir, "redis-*.log"))
			slices.Sort(logs)
			text, _ := os.ReadFile(logs[len(logs)-1])
			m := regexp.MustCompile(`DB loaded from disk: ([0-9.]+) seconds`).FindSubmatch(text)
			if m == nil {
				b.Fatalf("no load time in %s", logs[len(logs)-1])
			}
			sec, _ := strconv.ParseFloat(string(m[1]), 64)
			return time.Duration(sec * float64(time.Second))
		})
	})
}

func persistenceBench(b *testing.B, addr string, keys int, load func() time.Duration) {
	ctx := context.Background()
	c := redis.NewClient(patient(&redis.Options{Addr: addr, Protocol: 2}))
	defer c.Close()
	for i := 0; i < keys; i += 10000 {
		pipe := c.Pipeline()
		for j := i; j < min(i+10000, keys); j++ {
			if j%2 == 0 {
				pipe.Set(ctx, "counter:"+strconv.Itoa(j), j, 0)
			} else {
				pipe.Set(ctx, "counter:"+strconv.Itoa(j), j, time.Hour)
			}
		}
		if _, err := pipe.Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()

	// One client sends INCRs back to back and records every latency.
	loader := redis.NewClient(patient(&redis.Options{Addr: addr, Protocol: 2}))
	defer loader.Close()
	var stop atomic.Bool
	type sample struct {
		at  time.Time
		lat time.Duration
	}
	samples := make([]sample, 0, 1<<20)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; !stop.Load(); i++ {
			start := time.Now()
			loader.Incr(ctx, "counter:"+strconv.Itoa(i*7919%keys))
			samples = append(samples, sample{start, time.Since(start)})
		}
	}()
	time.Sleep(300 * time.Millisecond) // a baseline before the save
	saveStart := time.Now()
	if err := c.BgSave(ctx).Err(); err != nil {
		b.Fatal(err)
	}
	for strings.Contains(c.Info(ctx, "persistence").Val(), "rdb_bgsave_in_progress:1") {
		time.Sleep(5 * time.Millisecond)
	}
	saveEnd := time.Now()
	time.Sleep(100 * time.Millisecond)
	stop.Store(true)
	<-done

	var during, before []time.Duration
	for _, s := range samples {
		switch {
		case s.at.Before(saveStart):
			before = append(before, s.lat)
		case s.at.Before(saveEnd):
			during = append(during, s.lat)
		}
	}
	slices.Sort(during)
	slices.Sort(before)
	pct := func(l []time.Duration, p float64) float64 {
		if len(l) == 0 {
			return 0
		}
		return float64(l[int(float64(len(l)-1)*p)].Microseconds())
	}
	b.ReportMetric(float64(saveEnd.Sub(saveStart).Milliseconds()), "bgsave-ms")
	b.ReportMetric(pct(during, 1)/1000, "max-pause-ms")
	b.ReportMetric(pct(during, 0.99), "p99-us")
	b.ReportMetric(pct(during, 0.5), "p50-us")
	b.ReportMetric(pct(before, 0.99), "p99-before-us")
	b.ReportMetric(float64(len(during)), "incrs-during")
	info := c.Info(ctx, "stats").Val()
	if m := regexp.MustCompile(`latest_fork_usec:(\d+)`).FindStringSubmatch(info); m != nil {
		fork, _ := strconv.ParseFloat(m[1], 64)
		b.ReportMetric(fork, "fork-us")
	}

	start := time.Now()
	if err := c.Save(ctx).Err(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds()), "save-ms")
	b.ReportMetric(float64(load().Milliseconds()), "load-ms")
}
