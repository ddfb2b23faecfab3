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

// needRedis skips t when the redis-server and redis-cli a Cluster or Ring
// of real Redis needs are not installed.
func needRedis(t *testing.T) {
	t.Helper()
	for _, bin := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s not on PATH (apt-get install redis-server): a real Cluster or Ring needs it", bin)
		}
	}
}

// storeURLCases runs every algorithm, on the store's own clock (so that
// CL.THROTTLE and INCREX are used where the store has them), through a
// client made from rawURL, for identities spread over slots and shards:
// each gets exactly its limit, then a denial with a RetryAfter. It returns
// the client, for the caller to find where the keys landed.
func storeURLCases(t *testing.T, rawURL string) redis.UniversalClient {
	t.Helper()
	rdb, err := NewStoreClient(rawURL, StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	ctx := context.Background()
	for _, a := range Algorithms {
		l := storeLimiter(t, rdb, WithAlgorithm(a))
		if _, err := l.Check(ctx); err != nil {
			t.Fatalf("%s: Check: %v", a, err)
		}
		for i := range 20 {
			key := IPKey(fmt.Sprint("10.1.", a, ".", i))
			for n := range 4 {
				res, err := l.Allow(ctx, key, PerHour(3))
				if err != nil {
					t.Fatal(err)
				}
				if want := n < 3; res.Allowed != want || res.Degraded {
					t.Fatalf("%s %s request %d: %+v, want allowed=%v from the store", a, key, n+1, res, want)
				}
				if n == 3 && res.RetryAfter <= 0 {
					t.Errorf("%s %s: denied with RetryAfter %v", a, key, res.RetryAfter)
				}
			}
		}
		// Two rules of one identity, as Middleware names them: one slot.
		for _, rule := range []string{"burst", "hour"} {
			if _, err := l.Allow(ctx, "{"+IPKey("10.2.0.1")+"}:"+rule, PerHour(3)); err != nil {
				t.Fatal(err)
			}
		}
		if s := l.Stats(); s.StoreErrors != 0 || s.FallbackDecisions != 0 {
			t.Errorf("%s: %+v, want every decision from the store", a, s)
		}
	}
	return rdb
}

// TestClusterURL: the redis+cluster:// form against a real 3-master
// Cluster, every algorithm, keys of many slots on every master.
func TestClusterURL(t *testing.T) {
	needRedis(t)
	addrs := startCluster(t)
	rdb := storeURLCases(t, "redis+cluster://"+addrs[0]+"?addr="+addrs[1]+"&addr="+addrs[2])
	cluster, ok := rdb.(*redis.ClusterClient)
	if !ok {
		t.Fatalf("redis+cluster:// made a %T", rdb)
	}
	ctx := context.Background()
	for _, a := range Algorithms {
		var masters atomic.Int32
		err := cluster.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
			keys, err := node.Keys(ctx, "{rate:ip:10.1."+a.String()+".*").Result()
			if len(keys) > 0 {
				masters.Add(1)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := masters.Load(); n != 3 {
			t.Errorf("%s: keys on %d masters, want all 3", a, n)
		}
	}
}

// TestRingURL: the redis+ring:// form over two floodgates, and over a
// floodgate and a redis-server in both orders. Redis has neither
// CL.THROTTLE nor INCREX, so a command only one shard has must not be
// sent to both: the shard that answered COMMAND INFO (shard0, the
// first address) used to decide for all.
func TestRingURL(t *testing.T) {
	floodgate := func(t *testing.T) string { return servertest.RunT(t).Addr() }
	redisServer := func(t *testing.T) string { needRedis(t); return redistest.Start(t).Addr }
	for _, tc := range []struct {
		name          string
		first, second func(t *testing.T) string
	}{
		{"floodgate+floodgate", floodgate, floodgate},
		{"floodgate+redis", floodgate, redisServer},
		{"redis+floodgate", redisServer, floodgate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first, second := tc.first(t), tc.second(t)
			rdb := storeURLCases(t, "redis+ring://"+first+"?addr="+second)
			ring, ok := rdb.(*redis.Ring)
			if !ok {
				t.Fatalf("redis+ring:// made a %T", rdb)
			}
			var shards atomic.Int32
			err := ring.ForEachShard(context.Background(), func(ctx context.Context, node *redis.Client) error {
				keys, err := node.Keys(ctx, "{rate:ip:10.1.*").Result()
				if len(keys) > 0 {
					shards.Add(1)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if n := shards.Load(); n != 2 {
				t.Errorf("keys on %d shards, want both", n)
			}
		})
	}
}
