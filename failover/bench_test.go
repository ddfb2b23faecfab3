package failover

import (
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// masterNode starts a master of kind "floodgate" or "redis" (a
// redis-server 7.0), persistence off, diskless sync at once.
func masterNode(b testing.TB, kind string, lines ...string) *node {
	if kind == "floodgate" {
		return floodgate(b, lines...)
	}
	return newNode(b, "redis-server", append([]string{`save ""`, "appendonly no", "repl-diskless-sync-delay 0"}, lines...)...)
}

// BenchmarkFullSync1M: a master holding 1,000,000 counters (PERSIST_KEYS)
// gets a redis-server 7.0 replica (the same replica for both masters, so
// only the master differs) while one client PINGs the master back to back:
// the time from REPLICAOF to master_link_status:up, the longest PING and
// its p99 meanwhile (the master's pause: Redis's fork, floodgate's
// snapshot steps), and latest_fork_usec. floodgate and Redis take turns,
// BENCH_REPS reps (3); the figures are the medians:
//
//	go test ./failover -run '^$' -bench FullSync1M -benchtime=1x
func BenchmarkFullSync1M(b *testing.B) {
	reps := 3
	if n, err := strconv.Atoi(os.Getenv("BENCH_REPS")); err == nil {
		reps = n
	}
	figures := map[string][]float64{}
	for rep := range reps {
		for _, kind := range []string{"floodgate", "redis"} {
			for unit, v := range fullSyncOnce(b, kind) {
				figures[kind+"-"+unit] = append(figures[kind+"-"+unit], v)
			}
			b.Logf("rep %d %s done", rep, kind)
		}
	}
	for name, vs := range figures {
		slices.Sort(vs)
		b.Logf("%s: %v", name, vs)
		b.ReportMetric(vs[len(vs)/2], name)
	}
}

// fullSyncOnce is one rep of BenchmarkFullSync1M for a master of kind.
func fullSyncOnce(b *testing.B, kind string) map[string]float64 {
	keys := redistest.PersistKeys()
	ctx := context.Background()
	master := masterNode(b, kind)
	defer master.kill()
	c := redis.NewClient(&redis.Options{Addr: master.addr, MaxRetries: -1, ReadTimeout: time.Minute})
	defer c.Close()
	if err := redistest.FillCounters(ctx, c, keys); err != nil {
		b.Fatal(err)
	}
	replica := newNode(b, "redis-server", `save ""`, "appendonly no")
	defer replica.kill()
	pinger := redis.NewClient(&redis.Options{Addr: master.addr, MaxRetries: -1, ReadTimeout: time.Minute, PoolSize: 1})
	defer pinger.Close()
	probe := redistest.StartLatencyProbe(func(int) { pinger.Ping(ctx) })
	start := time.Now()
	if err := replica.client.Do(ctx, "replicaof", "127.0.0.1", strconv.Itoa(master.port)).Err(); err != nil {
		b.Fatal(err)
	}
	for replica.info("replication")["master_link_status"] != "up" {
		time.Sleep(time.Millisecond) // a benchmark's polling interval
	}
	up := time.Now()
	probe.Stop()
	_, during := probe.Split(start, up)
	out := map[string]float64{
		"link-up-ms":  float64(up.Sub(start).Milliseconds()),
		"max-ping-us": redistest.Percentile(during, 1),
		"p99-ping-us": redistest.Percentile(during, 0.99),
	}
	if fork, ok := redistest.ForkUsec(ctx, c); ok {
		out["fork-us"] = fork
	}
	if n := replica.client.DBSize(ctx).Val(); n < int64(keys) {
		b.Fatalf("the replica holds %d keys, want %d", n, keys)
	}
	return out
}

// BenchmarkFailoverLoss: limiter decisions (INCR of one counter per
// request, as a fixed window admits) run from 8 clients against a master
// with one replica, watched by a real redis-sentinel; the master is
// SIGKILLed under the load and Sentinel promotes the replica. A decision
// is admitted when its INCR answered (and, with WAIT, when WAIT 1 0 then
// answered 1); lost-admitted is how many admitted decisions the promoted
// replica's counter lacks. With WAIT it must be 0; without, at most the
// replication lag at the kill (lag-bytes, from the master's view of the
// replica's ACKs). "stalled" stops the replica (SIGSTOP) for 200 ms
// before the kill, as a replica far behind.
//
//	go test ./failover -run '^$' -bench FailoverLoss -benchtime=1x
func BenchmarkFailoverLoss(b *testing.B) {
	for _, kind := range []string{"floodgate", "redis"} {
		for _, wait := range []bool{false, true} {
			for _, stall := range []bool{false, true} {
				name := kind + map[bool]string{false: "/nowait", true: "/wait"}[wait] + map[bool]string{false: "/live", true: "/stalled"}[stall]
				b.Run(name, func(b *testing.B) { failoverLoss(b, kind, wait, stall) })
			}
		}
	}
}

func failoverLoss(b *testing.B, kind string, wait, stall bool) {
	ctx := context.Background()
	master := masterNode(b, kind)
	var replica *node
	mof := "replicaof 127.0.0.1 " + strconv.Itoa(master.port)
	if kind == "floodgate" {
		replica = floodgate(b, mof)
	} else {
		replica = newNode(b, "redis-server", `save ""`, "appendonly no", mof)
	}
	for !replica.replicaOf(master) {
		time.Sleep(10 * time.Millisecond) // a benchmark's polling interval
	}
	sent := startSentinel(b, master)
	defer sent.kill()
	for masterAddr(sent) != master.addr {
		time.Sleep(10 * time.Millisecond)
	}
	var admitted atomic.Int64
	stop := make(chan struct{})
	var done sync.WaitGroup
	for range 8 {
		done.Add(1)
		go func() {
			defer done.Done()
			c := redis.NewClient(&redis.Options{Addr: master.addr, MaxRetries: -1, PoolSize: 1})
			defer c.Close()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := c.Incr(ctx, "window").Err(); err != nil {
					return // the master is gone
				}
				if wait {
					if n, err := c.Do(ctx, "wait", "1", "0").Int64(); err != nil || n < 1 {
						return
					}
				}
				admitted.Add(1)
			}
		}()
	}
	for admitted.Load() < 20000 {
		time.Sleep(time.Millisecond)
	}
	b.ResetTimer()
	if stall {
		replica.cmd.Process.Signal(syscall.SIGSTOP)
		time.Sleep(200 * time.Millisecond) // the stall being measured
	}
	lag := replicaLag(master)
	master.kill()
	if stall {
		replica.cmd.Process.Signal(syscall.SIGCONT)
	}
	close(stop)
	done.Wait()
	killed := time.Now()
	for masterAddr(sent) != replica.addr || replica.info("replication")["role"] != "master" {
		time.Sleep(10 * time.Millisecond)
	}
	b.ReportMetric(float64(time.Since(killed).Milliseconds()), "promotion-ms")
	got, err := replica.client.Get(ctx, "window").Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		b.Fatal(err)
	}
	b.ReportMetric(float64(admitted.Load()), "admitted")
	b.ReportMetric(float64(max(admitted.Load()-got, 0)), "lost-admitted")
	b.ReportMetric(float64(lag), "lag-bytes")
	if wait && got < admitted.Load() {
		b.Errorf("with WAIT 1 0, %d admitted decisions lost", admitted.Load()-got)
	}
	replica.kill()
}

// replicaLag is the master's offset less its one replica's acknowledged
// one (INFO's slave0 offset=), or -1.
func replicaLag(master *node) int64 {
	r := master.info("replication")
	mo, err := strconv.ParseInt(r["master_repl_offset"], 10, 64)
	_, after, ok := strings.Cut(r["slave0"], "offset=")
	if err != nil || !ok {
		return -1
	}
	ro, _ := strconv.ParseInt(strings.SplitN(after, ",", 2)[0], 10, 64)
	return mo - ro
}
