package persistence

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// BenchmarkRDB1M compares the floodgate binary with redis-server, each a
// process of its own, on 1,000,000 keys (PERSIST_KEYS to change it): the
// latency a client sending INCRs back to back sees while a BGSAVE runs
// (longest, p999, p99, p50, and the pause to begin: Redis's fork,
// floodgate's BeginSnapshot, both as latest_fork_usec), then SAVE, then
// the load at start (each server's own "DB loaded from disk" log line).
// Run with -benchtime=1x; numbers in BENCHMARKS.md.
//
//	go test ./persistence -run '^$' -bench RDB1M -benchtime=1x
func BenchmarkRDB1M(b *testing.B) {
	keys := redistest.PersistKeys()
	servers := []struct{ name, bin string }{{"floodgate", floodgateBin}, {"redis", "redis-server"}}
	for _, sv := range servers {
		b.Run(sv.name, func(b *testing.B) {
			dir := b.TempDir()
			start := func(extra ...string) *proc {
				p, ok := startProc(b, filepath.Join(dir, fmt.Sprintf("%s-%d.log", sv.name, time.Now().UnixNano())), sv.bin,
					append([]string{"--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"}, extra...)...)
				if !ok {
					b.Fatalf("%s did not start:\n%s", sv.name, p.logText())
				}
				return p
			}
			var extra []string
			if t := os.Getenv("PERSIST_TRACE"); t != "" && sv.name == "floodgate" {
				extra = []string{"--trace", t, "--cpuprofile", t + ".cpu"} // go tool trace FILE
			}
			p := start(extra...)
			rdbBench(b, p, keys)
			if os.Getenv("PERSIST_LOG") != "" {
				b.Log(p.logText())
			}
			p.shutdown()
			p = start()
			m := regexp.MustCompile(`DB loaded from disk: ([0-9.]+) seconds`).FindStringSubmatch(p.logText())
			if m == nil {
				b.Fatalf("no load time in the log:\n%s", p.logText())
			}
			sec, _ := strconv.ParseFloat(m[1], 64)
			b.ReportMetric(sec*1000, "load-ms")
			if n := p.client.DBSize(context.Background()).Val(); n != int64(keys) {
				b.Fatalf("%d keys loaded, want %d", n, keys)
			}
		})
	}
}

func rdbBench(b *testing.B, p *proc, keys int) {
	ctx := context.Background()
	// Patient clients: on a busy machine a SAVE of 1,000,000 keys can take
	// longer than go-redis's 3 s.
	c := redis.NewClient(&redis.Options{Addr: p.addr, MaxRetries: -1, ReadTimeout: time.Minute})
	defer c.Close()
	if err := redistest.FillCounters(ctx, c, keys); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()

	// One client sends INCRs back to back and records every latency.
	loader := redis.NewClient(&redis.Options{Addr: p.addr, MaxRetries: -1, ReadTimeout: time.Minute})
	defer loader.Close()
	probe := redistest.StartLatencyProbe(redistest.IncrCounters(ctx, loader, keys))
	time.Sleep(300 * time.Millisecond) // a baseline before the save
	saveStart := time.Now()
	if err := c.BgSave(ctx).Err(); err != nil {
		b.Fatal(err)
	}
	for strings.Contains(c.Info(ctx, "persistence").Val(), "rdb_bgsave_in_progress:1") {
		time.Sleep(2 * time.Millisecond)
	}
	saveEnd := time.Now()
	time.Sleep(100 * time.Millisecond)
	probe.Stop()
	before, during := probe.Split(saveStart, saveEnd)
	pct := redistest.Percentile
	b.ReportMetric(float64(saveEnd.Sub(saveStart).Milliseconds()), "bgsave-ms")
	b.ReportMetric(pct(during, 1), "max-us")
	b.ReportMetric(pct(during, 0.999), "p999-us")
	b.ReportMetric(pct(during, 0.99), "p99-us")
	b.ReportMetric(pct(during, 0.5), "p50-us")
	b.ReportMetric(pct(before, 0.99), "p99-before-us")
	b.ReportMetric(float64(len(during)), "incrs-during")
	if fork, ok := redistest.ForkUsec(ctx, c); ok {
		b.ReportMetric(fork, "fork-us")
	}

	start := time.Now()
	if err := c.Save(ctx).Err(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds()), "save-ms")
}
