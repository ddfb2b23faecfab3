package ratelimit

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server/servertest"
	"github.com/redis/go-redis/v9"
)

// startCluster starts a Redis Cluster of three masters without replicas and
// waits until every node reports cluster_state:ok.
func startCluster(t *testing.T) []string {
	t.Helper()
	var addrs []string
	for range 3 {
		srv := redistest.StartWith(t, func(port int, dir string) []string {
			return []string{
				"--cluster-enabled", "yes",
				"--cluster-config-file", fmt.Sprintf("%s/nodes-%d.conf", dir, port),
				// The bus port defaults to port+10000, which may be taken
				// or out of range; Redis 7 lets us choose it.
				"--cluster-port", strconv.Itoa(redistest.ReservePort(t)),
			}
		})
		addrs = append(addrs, srv.Addr)
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command("redis-cli", args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	for _, addr := range addrs {
		node := redis.NewClient(&redis.Options{Addr: addr})
		defer node.Close()
		redistest.Eventually(t, addr+" to report cluster_state:ok", func() bool {
			info, err := node.ClusterInfo(context.Background()).Result()
			return err == nil && strings.Contains(info, "cluster_state:ok")
		})
	}
	return addrs
}

// TestCluster runs the exact-numbers cases and the shared-limit test
// through a ClusterClient, and checks that the keys really were spread over
// the three masters while each limiter's key stayed in one slot.
func TestCluster(t *testing.T) {
	addrs := startCluster(t)
	newClient := func() redis.UniversalClient {
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, MaxRetries: -1})
		t.Cleanup(func() { c.Close() })
		return c
	}
	replaySteps(t, "cluster", func(t *testing.T, a Algorithm, c *fakeClock) Allower {
		return storeLimiter(t, newClient(), WithAlgorithm(a), WithClock(c.Now))
	})
	checkSharedLimit(t, "cluster", newClient, 100, Limit{Rate: 100, Period: time.Hour})

	// Many identities, two rules each: keys land on every master, and both
	// rules of one identity in one slot.
	rdb := newClient().(*redis.ClusterClient)
	l := storeLimiter(t, rdb, WithAlgorithm(SlidingWindow))
	ctx := context.Background()
	for i := range 60 {
		for _, rule := range []string{"burst", "hour"} {
			if _, err := l.Allow(ctx, "{"+IPKey(fmt.Sprint("10.0.0.", i))+"}:"+rule, PerHour(10)); err != nil {
				t.Fatal(err)
			}
		}
	}
	var masters atomic.Int32
	err := rdb.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
		keys, err := node.Keys(ctx, "{rate:ip:10.0.0.*").Result()
		if len(keys) > 0 {
			masters.Add(1) // the callbacks run concurrently
		}
		for _, k := range keys {
			tag := k[:strings.IndexByte(k, '}')+1]
			for _, rule := range []string{"burst", "hour"} {
				if n, _ := node.Exists(ctx, tag+":"+rule+":sliding_window").Result(); n != 1 {
					t.Errorf("%s: rule %s not on the same node", tag, rule)
				}
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := masters.Load(); n != 3 {
		t.Errorf("keys on %d masters, want all 3", n)
	}
}

// TestRing runs the shared-limit test through a go-redis Ring over three
// independent servers, sharded by key: redis-servers, and floodgates (the
// way to scale floodgate out, since it has no cluster mode).
func TestRing(t *testing.T) {
	t.Run("redis", func(t *testing.T) { testRing(t, func() string { return redistest.Start(t).Addr }) })
	t.Run("floodgate", func(t *testing.T) { testRing(t, func() string { return servertest.RunT(t).Addr() }) })
}

func testRing(t *testing.T, start func() string) {
	shards := map[string]string{}
	for i := range 3 {
		shards[fmt.Sprint("shard", i)] = start()
	}
	newClient := func() redis.UniversalClient {
		c := redis.NewRing(&redis.RingOptions{Addrs: shards, MaxRetries: -1})
		t.Cleanup(func() { c.Close() })
		return c
	}
	checkSharedLimit(t, "ring", newClient, 100, Limit{Rate: 100, Period: time.Hour})
}
