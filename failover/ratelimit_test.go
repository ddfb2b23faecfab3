package failover

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/ratelimit"
)

// TestRatelimitSentinelURL: the ratelimit library's redis+sentinel:// store
// URL against a real redis-sentinel over a floodgate master and replica:
// the limiter finds the master through Sentinel, and after the master is
// killed and Sentinel promotes the replica it decides on the new master,
// from the state replicated before the kill.
func TestRatelimitSentinelURL(t *testing.T) {
	needSentinel(t)
	ctx := context.Background()
	master := floodgate(t)
	replica := floodgate(t, "replicaof 127.0.0.1 "+strconv.Itoa(master.port))
	redistest.Eventually(t, "the replica synced", func() bool { return replica.replicaOf(master) })
	sent := startSentinel(t, master)
	redistest.Eventually(t, "Sentinel to see the master and its replica", func() bool {
		return masterAddr(sent) == master.addr && sentinelReplicas(sent)[replica.addr] == "slave ok"
	})
	rdb, err := ratelimit.NewStoreClient("redis+sentinel://"+sent.addr+"?master_name=fg", ratelimit.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	limiter := ratelimit.NewLimiter(rdb)
	if info, err := limiter.Check(ctx); err != nil || info.Mode != "standalone" {
		t.Fatalf("Check through Sentinel: %+v %v", info, err)
	}
	// A slow refill (one request every 36 s), so that the failover's
	// seconds give none back.
	limit := ratelimit.Limit{Rate: 100, Period: time.Hour, Burst: 100}
	key := ratelimit.UserKey("42")
	res, err := limiter.Allow(ctx, key, limit)
	if err != nil || !res.Allowed || res.Remaining != 99 {
		t.Fatalf("first decision: %+v %v", res, err)
	}
	redistest.Eventually(t, "the decision to reach the replica", func() bool { return caughtUp(master, replica) })

	master.kill()
	redistest.Eventually(t, "Sentinel to promote the replica", func() bool {
		return masterAddr(sent) == replica.addr && replica.info("replication")["role"] == "master"
	})
	// The failover client finds the new master on its next dial; decisions
	// in between fail (fail-closed).
	redistest.Eventually(t, "a decision on the new master", func() bool {
		res, err = limiter.Allow(ctx, key, limit)
		return err == nil
	})
	if !res.Allowed || res.Remaining != 98 {
		t.Errorf("decision on the promoted replica: %+v, want the second of the window (98 remaining)", res)
	}
}
