package failover

import (
	"context"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// limiterLua is a fixed-window limiter as the limiter libraries write it:
// count the request, start the window on the first, answer the count.
const limiterLua = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`

// startSentinel starts one redis-sentinel (quorum 1) monitoring master as
// "fg", with its periods shortened so a failover takes seconds: INFO
// every 100 ms, hellos every 200 ms, and no TILT on a loaded machine
// (a 2 s stall between timer runs would otherwise pause it for 30 s).
func startSentinel(t testing.TB, master *node) *node {
	t.Helper()
	s := newNode(t, "redis-sentinel",
		"sentinel monitor fg 127.0.0.1 "+strconv.Itoa(master.port)+" 1",
		// Long enough that a busy machine does not fail the master over
		// before the test kills it.
		"sentinel down-after-milliseconds fg 2000",
		"sentinel failover-timeout fg 20000",
		"sentinel parallel-syncs fg 1")
	if err := s.client.Do(context.Background(), "sentinel", "debug",
		"info-period", "100", "publish-period", "200", "tilt-trigger", "60000").Err(); err != nil {
		t.Fatalf("SENTINEL DEBUG: %v", err)
	}
	return s
}

// masterAddr is SENTINEL GET-MASTER-ADDR-BY-NAME fg as host:port.
func masterAddr(s *node) string {
	a, err := s.client.Do(context.Background(), "sentinel", "get-master-addr-by-name", "fg").StringSlice()
	if err != nil || len(a) != 2 {
		return ""
	}
	return net.JoinHostPort(a[0], a[1])
}

// sentinelReplicas is SENTINEL REPLICAS fg: each replica's flags and
// master-link-status by address.
func sentinelReplicas(s *node) map[string]string {
	v, err := s.client.Do(context.Background(), "sentinel", "replicas", "fg").Slice()
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, r := range v {
		m := map[string]string{}
		switch fields := r.(type) {
		case []any: // RESP2: field, value, ...
			for i := 0; i+1 < len(fields); i += 2 {
				k, _ := fields[i].(string)
				m[k], _ = fields[i+1].(string)
			}
		case map[any]any: // RESP3
			for k, val := range fields {
				ks, _ := k.(string)
				m[ks], _ = val.(string)
			}
		}
		out[m["ip"]+":"+m["port"]] = m["flags"] + " " + m["master-link-status"]
	}
	return out
}

// limiterLoad runs the limiter script by EVALSHA through a client, a
// request every 2 ms, counting answers and NOSCRIPT errors (any other
// error, such as a refused connection while the master is down, is what
// a failover costs and only counted).
type limiterLoad struct {
	ok, noscript, failed atomic.Int64
	lastNoscript         atomic.Value // string
	stop                 chan struct{}
	stopOnce             sync.Once
	done                 sync.WaitGroup
}

func startLimiterLoad(c redis.Cmdable, sha string) *limiterLoad {
	l := &limiterLoad{stop: make(chan struct{})}
	l.done.Add(1)
	go func() {
		defer l.done.Done()
		tick := time.NewTicker(2 * time.Millisecond) // the load's rate, not a wait
		defer tick.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-tick.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			err := c.EvalSha(ctx, sha, []string{"limiter:user42"}, 600000).Err()
			cancel()
			switch {
			case err == nil:
				l.ok.Add(1)
			case strings.HasPrefix(err.Error(), "NOSCRIPT"):
				l.noscript.Add(1)
				l.lastNoscript.Store(err.Error())
			default:
				l.failed.Add(1)
			}
		}
	}()
	return l
}

// end stops the load and waits for its last request (once; later calls
// return at once).
func (l *limiterLoad) end() {
	l.stopOnce.Do(func() { close(l.stop) })
	l.done.Wait()
}

// commandCalls is a command's calls in INFO commandstats.
func commandCalls(n *node, cmd string) int {
	stat := n.info("commandstats")["cmdstat_"+cmd]
	calls, _, _ := strings.Cut(strings.TrimPrefix(stat, "calls="), ",")
	v, _ := strconv.Atoi(calls)
	return v
}

// TestSentinelFailsOverFloodgate: a real redis-sentinel monitoring a
// floodgate master with two floodgate replicas finds the master and both
// replicas; killing the master makes it promote the replica it may
// (the other has replica-priority 0) with MULTI / SLAVEOF NO ONE /
// CONFIG REWRITE / CLIENT KILL / EXEC and repoint the other; the old
// master, restarted from its unchanged config file, is turned into a
// replica of the new one; and go-redis's failover client runs a limiter
// script by EVALSHA throughout with no NOSCRIPT, on the new master once
// it is promoted.
func TestSentinelFailsOverFloodgate(t *testing.T) {
	needSentinel(t)
	ctx := context.Background()
	master := floodgate(t)
	mof := "replicaof 127.0.0.1 " + strconv.Itoa(master.port)
	r1 := floodgate(t, mof, "replica-announce-ip 127.0.0.1")
	r2 := floodgate(t, mof, "replica-priority 0")
	redistest.Eventually(t, "both replicas synced", func() bool { return r1.replicaOf(master) && r2.replicaOf(master) })

	sent := startSentinel(t, master)
	var seen map[string]string
	defer func() {
		if t.Failed() {
			t.Logf("Sentinel's replicas at the end: %v\nits log:\n%s", seen, sent.logText())
		}
	}()
	redistest.Eventually(t, "Sentinel to see the master and both replicas up", func() bool {
		seen = sentinelReplicas(sent)
		return masterAddr(sent) == master.addr && seen[r1.addr] == "slave ok" && seen[r2.addr] == "slave ok"
	})

	fc := redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName: "fg", SentinelAddrs: []string{sent.addr},
		DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second,
	})
	defer fc.Close()
	sha, err := fc.ScriptLoad(ctx, limiterLua).Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := fc.Set(ctx, "before-failover", "kept", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*node{r1, r2} {
		redistest.Eventually(t, "the limiter script and the key on "+r.addr, func() bool {
			e, _ := r.client.ScriptExists(ctx, sha).Result()
			return len(e) == 1 && e[0] && r.client.Get(ctx, "before-failover").Val() == "kept"
		})
	}
	load := startLimiterLoad(fc, sha)
	defer load.end()
	redistest.Eventually(t, "the limiter to run on the first master", func() bool { return commandCalls(master, "evalsha") >= 20 })

	master.kill()
	redistest.Eventually(t, "Sentinel to promote "+r1.addr, func() bool { return masterAddr(sent) == r1.addr })
	redistest.Eventually(t, r1.addr+" a master and "+r2.addr+" its replica", func() bool {
		return r1.info("replication")["role"] == "master" && r2.replicaOf(r1)
	})
	// CONFIG REWRITE (inside Sentinel's MULTI) recorded both changes.
	if conf := r1.configText(); strings.Contains(conf, "replicaof") {
		t.Errorf("the promoted replica's config still names a master:\n%s", conf)
	}
	if conf := r2.configText(); !strings.Contains(conf, "replicaof 127.0.0.1 "+strconv.Itoa(r1.port)+"\n") {
		t.Errorf("the repointed replica's config does not name the new master:\n%s", conf)
	}
	redistest.Eventually(t, "the limiter to run on the new master", func() bool { return commandCalls(r1, "evalsha") >= 20 })

	master.start()
	redistest.Eventually(t, "the old master to rejoin as a replica of "+r1.addr, func() bool { return master.replicaOf(r1) })
	if conf := master.configText(); !strings.Contains(conf, "replicaof 127.0.0.1 "+strconv.Itoa(r1.port)+"\n") {
		t.Errorf("the old master's config does not name the new master:\n%s", conf)
	}
	redistest.Eventually(t, "Sentinel to list the old master as a replica", func() bool {
		seen = sentinelReplicas(sent)
		return seen[master.addr] == "slave ok" && seen[r2.addr] == "slave ok"
	})
	load.end()

	if n := load.noscript.Load(); n > 0 {
		t.Errorf("%d NOSCRIPT answers through the failover (last: %v)", n, load.lastNoscript.Load())
	}
	if load.ok.Load() == 0 {
		t.Fatal("no limiter request succeeded")
	}
	want := r1.client.Get(ctx, "limiter:user42").Val()
	for _, r := range []*node{r2, master} {
		redistest.Eventually(t, r.addr+" to hold the new master's data", func() bool {
			return r.client.Get(ctx, "limiter:user42").Val() == want && r.client.Get(ctx, "before-failover").Val() == "kept"
		})
	}
	t.Logf("limiter requests: %d answered, %d failed during the failover", load.ok.Load(), load.failed.Load())
}
