package server

import (
	"context"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/floodgate/floodgate/internal/redistest"
)

// BenchmarkActiveExpiry1M fills 1,000,000 keys, gives them all the same
// expiry one second after the fill (on a loaded machine the fill itself
// takes seconds, so a plain EX 1 would expire keys while filling), and
// measures, without touching them again, how long after that moment DBSIZE
// is 0 and how much memory is left. The same fill runs against a real redis-server when one
// is on PATH, for comparison (its memory from INFO used_memory).
//
//	go test -run '^$' -bench ActiveExpiry1M -benchtime 1x ./server/
func BenchmarkActiveExpiry1M(b *testing.B) {
	const keys = 1_000_000
	b.Run("floodgate", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			srv := New(Config{Addr: "127.0.0.1:0"})
			if err := srv.Start(); err != nil {
				b.Fatal(err)
			}
			rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
			base := heapInUse()
			at := fill(b, rdb, keys)
			full := heapInUse()
			took := waitEmpty(b, rdb, at)
			after := heapInUse()
			b.ReportMetric(took.Seconds(), "s-to-empty")
			b.ReportMetric(float64(full-base)/(1<<20), "MB-full")
			b.ReportMetric(float64(int64(after)-int64(base))/(1<<20), "MB-left")
			rdb.Close()
			srv.Close()
		}
	})
	b.Run("redis", func(b *testing.B) {
		addr, stop := startRedisForBench(b)
		defer stop()
		for i := 0; i < b.N; i++ {
			rdb := redis.NewClient(&redis.Options{Addr: addr})
			base := redisUsedMemory(b, rdb)
			at := fill(b, rdb, keys)
			full := redisUsedMemory(b, rdb)
			took := waitEmpty(b, rdb, at)
			after := redisUsedMemory(b, rdb)
			b.ReportMetric(took.Seconds(), "s-to-empty")
			b.ReportMetric(float64(full-base)/(1<<20), "MB-full")
			b.ReportMetric(float64(int64(after)-int64(base))/(1<<20), "MB-left")
			rdb.Close()
		}
	})
}

// fill sets n counters and then gives them all one expiry time, which it
// returns.
func fill(b *testing.B, rdb *redis.Client, n int) time.Time {
	ctx := context.Background()
	const batch = 10000
	start := time.Now()
	each := func(do func(pipe redis.Pipeliner, key string)) {
		for i := 0; i < n; i += batch {
			pipe := rdb.Pipeline()
			for j := i; j < i+batch && j < n; j++ {
				do(pipe, "rate:ip:"+strconv.Itoa(j))
			}
			if _, err := pipe.Exec(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	each(func(pipe redis.Pipeliner, key string) { pipe.Set(ctx, key, "1", 0) })
	// Setting the TTLs takes about as long as the fill did; leave a wide
	// margin, since on a shared machine the second pass may be slower.
	at := time.Now().Add(2*time.Since(start) + time.Second)
	each(func(pipe redis.Pipeliner, key string) { pipe.PExpireAt(ctx, key, at) })
	if time.Now().After(at) {
		b.Fatal("setting the TTLs took longer than the margin: rerun on a quieter machine")
	}
	return at
}

// waitEmpty polls DBSIZE until it is 0 and returns how long after the keys'
// expiry time that was.
func waitEmpty(b *testing.B, rdb *redis.Client, expireAt time.Time) time.Duration {
	start := expireAt
	deadline := time.Now().Add(60 * time.Second)
	for {
		n, err := rdb.DBSize(context.Background()).Result()
		if err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			if time.Now().Before(start) {
				b.Fatalf("keys gone before their expiry time")
			}
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d keys still present after 60s", n)
		}
		time.Sleep(10 * time.Millisecond) // polling interval
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func redisUsedMemory(b *testing.B, rdb *redis.Client) uint64 {
	info, err := rdb.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, _ := strconv.ParseUint(v, 10, 64)
			return n
		}
	}
	b.Fatal("no used_memory in INFO")
	return 0
}

// startRedisForBench starts a throw-away redis-server, or skips the
// comparison when there is none (benchmarks only; tests never skip it).
func startRedisForBench(b *testing.B) (string, func()) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		b.Skip("redis-server not on PATH: no comparison")
	}
	srv, err := redistest.Launch(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	return srv.Addr, srv.Stop
}
