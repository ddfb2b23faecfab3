package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// BenchmarkRewrite1M measures what a BGREWRITEAOF of 1,000,000 keys costs
// a client sending INCRs back to back meanwhile: the longest wait and the
// p99, floodgate beside redis-server (whose pause is its fork; it reports
// the fork time too), and how long BGREWRITEAOF takes to answer. Run with
// -benchtime=1x; numbers in BENCHMARKS.md.
//
//	go test ./server -run '^$' -bench Rewrite1M -benchtime=1x
func BenchmarkRewrite1M(b *testing.B) {
	keys := redistest.PersistKeys()
	for _, preamble := range []string{"yes", "no"} {
		b.Run("floodgate/preamble="+preamble, func(b *testing.B) {
			srv := New(Config{Addr: "127.0.0.1:0", Dir: b.TempDir(), AOF: AOFConfig{Enabled: true, NoRDBPreamble: preamble == "no"}})
			if err := srv.Start(); err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			rewriteBench(b, srv.Addr(), keys)
		})
		b.Run("redis/preamble="+preamble, func(b *testing.B) {
			srv, err := redistest.Launch(b.TempDir(), func(int, string) []string {
				return []string{"--appendonly", "yes", "--aof-use-rdb-preamble", preamble}
			})
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Stop()
			rewriteBench(b, srv.Addr, keys)
		})
	}
}

func rewriteBench(b *testing.B, addr string, keys int) {
	ctx := context.Background()
	c := redis.NewClient(patient(&redis.Options{Addr: addr, Protocol: 2}))
	defer c.Close()
	if err := redistest.FillCounters(ctx, c, keys); err != nil {
		b.Fatal(err)
	}
	rewriting := func() bool {
		return strings.Contains(c.Info(ctx, "persistence").Val(), "aof_rewrite_in_progress:1")
	}
	for rewriting() { // the rewrite the AOF's growth may have started
		time.Sleep(5 * time.Millisecond)
	}
	b.ResetTimer()

	loader := redis.NewClient(patient(&redis.Options{Addr: addr, Protocol: 2}))
	defer loader.Close()
	probe := redistest.StartLatencyProbe(redistest.IncrCounters(ctx, loader, keys))
	time.Sleep(300 * time.Millisecond) // a baseline before the rewrite
	rewriteStart := time.Now()
	if err := c.BgRewriteAOF(ctx).Err(); err != nil {
		b.Fatal(err)
	}
	// The reply comes once the rewrite has started: the pause it costs
	// everyone (a deep copy, a snapshot's begin, a fork) plus a round trip.
	b.ReportMetric(float64(time.Since(rewriteStart).Microseconds())/1000, "start-reply-ms")
	for rewriting() {
		time.Sleep(5 * time.Millisecond)
	}
	rewriteEnd := time.Now()
	time.Sleep(100 * time.Millisecond)
	probe.Stop()
	before, during := probe.Split(rewriteStart, rewriteEnd)
	pct := redistest.Percentile
	b.ReportMetric(float64(rewriteEnd.Sub(rewriteStart).Milliseconds()), "rewrite-ms")
	b.ReportMetric(pct(during, 1)/1000, "max-pause-ms")
	b.ReportMetric(pct(during, 0.99), "p99-us")
	b.ReportMetric(pct(during, 0.5), "p50-us")
	b.ReportMetric(pct(before, 0.99), "p99-before-us")
	b.ReportMetric(float64(len(during)), "incrs-during")
	if fork, ok := redistest.ForkUsec(ctx, c); ok {
		b.ReportMetric(fork, "fork-us")
	}
}
