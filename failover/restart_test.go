package failover

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
)

// shutdownSave is SHUTDOWN SAVE, waiting for the process to be gone.
func (n *node) shutdownSave() {
	n.t.Helper()
	n.client.Do(context.Background(), "shutdown", "save") // the reply is the closed connection
	<-n.exited
	n.cmd = nil
}

// caughtUp reports whether replica's link to master is up at master's
// offset.
func caughtUp(master, replica *node) bool {
	return replica.replicaOf(master) && replica.info("replication")["slave_repl_offset"] == master.info("replication")["master_repl_offset"]
}

// acked reports whether n replicas have acknowledged the master's whole
// stream, as its INFO shows them.
func acked(master *node, n int) bool {
	r := master.info("replication")
	for i := range n {
		if !strings.Contains(r["slave"+strconv.Itoa(i)], ",offset="+r["master_repl_offset"]+",") {
			return false
		}
	}
	return r["connected_slaves"] == strconv.Itoa(n)
}

// stat is one field of INFO stats.
func (n *node) stat(field string) string { return n.info("stats")[field] }

// TestRestartsResyncPartially restarts each side of a replication from
// its RDB, as Redis 7.0 does it (loadDataFromDisk): a floodgate master
// restarted with SHUTDOWN SAVE keeps its old replication ID as replid2 up
// to the saved offset, so its floodgate and redis-server replicas both
// continue with a partial resync, and the key that expired while it was
// down reaches them as a DEL; a floodgate replica restarted from its own
// RDB continues from the saved ID and offset too (the master's
// sync_partial_ok counts each, sync_full none).
func TestRestartsResyncPartially(t *testing.T) {
	ctx := context.Background()
	// No PINGs of the master's own between the replicas' catch-up and
	// its shutdown: they would put the replicas behind the saved offset.
	master := floodgate(t, "repl-ping-replica-period 3600")
	mof := "replicaof 127.0.0.1 " + strconv.Itoa(master.port)
	fg := floodgate(t, mof)
	rd := newNode(t, "redis-server", mof, `save ""`)
	for i := range 100 {
		master.client.Set(ctx, "k"+strconv.Itoa(i), i, 0)
	}
	expireAt := time.Now().Add(300 * time.Millisecond)
	master.client.Set(ctx, "expires-while-down", "v", 0)
	master.client.PExpireAt(ctx, "expires-while-down", expireAt)
	redistest.Eventually(t, "both replicas to catch up", func() bool { return caughtUp(master, fg) && caughtUp(master, rd) })
	// And the master to know it (their ACKs): else SHUTDOWN waits for the
	// ACKs, as Redis's does, and the key's time may pass during the wait,
	// so the final save, which leaves expired keys out, would not hold it.
	redistest.Eventually(t, "the master to have both replicas' ACKs", func() bool { return acked(master, 2) })
	oldID := master.info("replication")["master_replid"]
	if full := master.stat("sync_full"); full != "2" {
		t.Fatalf("sync_full %s before the restart", full)
	}

	master.shutdownSave()
	// The key's time passes while the master is down (a deadline, not a
	// sleep): the load skips it and feeds its DEL.
	redistest.Eventually(t, "the key's time to pass", func() bool { return time.Now().After(expireAt) })
	master.start()
	repl := master.info("replication")
	if repl["master_replid2"] != oldID || repl["master_replid"] == oldID {
		t.Errorf("after the restart: replid %s replid2 %s, want a new one and %s", repl["master_replid"], repl["master_replid2"], oldID)
	}
	master.client.Set(ctx, "after-restart", "1", 0)
	redistest.Eventually(t, "both replicas to continue", func() bool { return caughtUp(master, fg) && caughtUp(master, rd) })
	if ok, full := master.stat("sync_partial_ok"), master.stat("sync_full"); ok != "2" || full != "0" {
		t.Errorf("the restarted master: sync_partial_ok %s, sync_full %s; want 2 and 0", ok, full)
	}
	for _, r := range []*node{fg, rd} {
		if got := r.client.Get(ctx, "after-restart").Val(); got != "1" {
			t.Errorf("%s: after-restart = %q", r.name, got)
		}
		// DBSIZE counts a key a replica holds past its time (its reads
		// hide it): the DEL removed it.
		if got, want := r.client.DBSize(ctx).Val(), master.client.DBSize(ctx).Val(); got != want {
			t.Errorf("%s: DBSIZE %d, the master's %d", r.name, got, want)
		}
	}

	// The floodgate replica restarted from its own RDB.
	fg.shutdownSave()
	master.client.Set(ctx, "while-replica-down", "1", 0)
	fg.start()
	redistest.Eventually(t, "the restarted replica to continue", func() bool { return caughtUp(master, fg) })
	if ok, full := master.stat("sync_partial_ok"), master.stat("sync_full"); ok != "3" || full != "0" {
		t.Errorf("the replica restarted from its RDB: sync_partial_ok %s, sync_full %s; want 3 and 0", ok, full)
	}
	if got := fg.client.Get(ctx, "while-replica-down").Val(); got != "1" {
		t.Errorf("while-replica-down = %q on the restarted replica", got)
	}
}

// TestReplicaKilledMidSync: a floodgate replica process killed with
// SIGKILL while it loads its master's RDB is dropped by the master
// (connected_slaves 0), and once started again it syncs in full and
// holds the master's keys.
func TestReplicaKilledMidSync(t *testing.T) {
	ctx := context.Background()
	master := floodgate(t)
	const keys = 20000
	pipe := master.client.Pipeline()
	for i := range keys {
		pipe.Set(ctx, "k:"+strconv.Itoa(i), i, 0)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	// Made a replica once it answers PING: started with replicaof, its
	// start (which waits for +PONG, not -LOADING) could wait out the
	// whole load whenever the sync began first, and the replica was then
	// never seen loading. The load is long (20 s: key-load-delay is in
	// microseconds per key) so the poll sees it; the kill cuts it short.
	r := floodgate(t, "key-load-delay 1000", "loading-process-events-interval-bytes 1024")
	replicaof := func() {
		if err := r.client.Do(ctx, "replicaof", "127.0.0.1", strconv.Itoa(master.port)).Err(); err != nil {
			t.Fatal(err)
		}
	}
	replicaof()
	redistest.Eventually(t, "the replica to be loading the master's RDB", func() bool {
		return r.info("persistence")["loading"] == "1" && r.info("replication")["master_sync_in_progress"] == "1"
	})
	r.kill()
	redistest.Eventually(t, "the master to drop the killed replica", func() bool {
		return master.info("replication")["connected_slaves"] == "0"
	})
	master.client.Set(ctx, "after-kill", "1", 0)
	r.start()
	r.client.ConfigSet(ctx, "key-load-delay", "0") // the file's setting, cut short
	replicaof()
	redistest.Eventually(t, "the restarted replica to catch up", func() bool { return caughtUp(master, r) })
	if got, want := r.client.DBSize(ctx).Val(), int64(keys+1); got != want {
		t.Errorf("DBSIZE %d on the replica, want %d", got, want)
	}
	if full := master.stat("sync_full"); full != "2" {
		t.Errorf("sync_full %s, want 2 (the killed sync and the new one)", full)
	}
}
