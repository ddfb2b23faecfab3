package server

import (
	"bufio"
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// portOf is the port of a host:port address.
func portOf(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return port
}

// waitFailedOver waits until oldMaster is a replica of newMaster (port)
// with its link up and its failover state cleared, newMaster a master.
func waitFailedOver(t *testing.T, oldMaster, newMaster *redis.Client, newPort string) {
	t.Helper()
	redistest.Eventually(t, "the failover to complete", func() bool {
		return replicationInfo(oldMaster, "replication", "role") == "slave" &&
			replicationInfo(oldMaster, "replication", "master_port") == newPort &&
			replicationInfo(oldMaster, "replication", "master_link_status") == "up" &&
			replicationInfo(oldMaster, "replication", "master_failover_state") == "no-failover" &&
			replicationInfo(newMaster, "replication", "role") == "master"
	})
}

// TestFailoverWithRedis: FAILOVER from a floodgate master to a Redis 7.0
// replica, and from a Redis master to a floodgate replica: the target
// becomes the master (PSYNC FAILOVER), the old master continues from it
// with a partial resync (no full one), and the data is the same.
func TestFailoverWithRedis(t *testing.T) {
	parallel(t)
	ctx := context.Background()
	t.Run("floodgate master", func(t *testing.T) {
		srv, master := startReplicationMaster(t)
		fillEveryType(t, master, "k", 200)
		redisSrv := redistest.Start(t, "--replicaof", "127.0.0.1", portOf(srv.Addr()))
		replica := redis.NewClient(patient(&redis.Options{Addr: redisSrv.Addr, Protocol: 2, DisableIdentity: true}))
		t.Cleanup(func() { replica.Close() })
		waitCaughtUp(t, master, replica)
		if err := master.Do(ctx, "failover").Err(); err != nil {
			t.Fatalf("FAILOVER: %v", err)
		}
		waitFailedOver(t, master, replica, strconv.Itoa(redisSrv.Port))
		if full, partial := replicationInfo(replica, "stats", "sync_full"), replicationInfo(replica, "stats", "sync_partial_ok"); full != "0" || partial != "1" {
			t.Errorf("the new Redis master: sync_full %s sync_partial_ok %s, want 0 and 1", full, partial)
		}
		replica.Set(ctx, "after-failover", "1", 0)
		waitCaughtUp(t, replica, master)
		compareKeyspaces(t, replica, master)
	})
	t.Run("Redis master", func(t *testing.T) {
		redisSrv := redistest.Start(t, "--repl-diskless-sync-delay", "0")
		master := redis.NewClient(patient(&redis.Options{Addr: redisSrv.Addr, Protocol: 2, DisableIdentity: true}))
		t.Cleanup(func() { master.Close() })
		fillEveryType(t, master, "k", 200)
		srv, replica := startReplicationMaster(t)
		replica.Do(ctx, "replicaof", "127.0.0.1", strconv.Itoa(redisSrv.Port))
		waitCaughtUp(t, master, replica)
		if err := master.Do(ctx, "failover").Err(); err != nil {
			t.Fatalf("FAILOVER: %v", err)
		}
		waitFailedOver(t, master, replica, portOf(srv.Addr()))
		if full, partial := replicationInfo(replica, "stats", "sync_full"), replicationInfo(replica, "stats", "sync_partial_ok"); full != "0" || partial != "1" {
			t.Errorf("the new floodgate master: sync_full %s sync_partial_ok %s, want 0 and 1", full, partial)
		}
		replica.Set(ctx, "after-failover", "1", 0)
		waitCaughtUp(t, replica, master)
		compareKeyspaces(t, replica, master)
	})
}

// silentReplica attaches a replica that announces listening port port
// and never acknowledges anything, so no failover to it can start.
func silentReplica(t *testing.T, addr string, port int) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(testDeadline))
	f := &fakeReplica{conn: conn, r: bufio.NewReader(conn)}
	// As a replica, one request at a time: PSYNC with a reply still
	// unsent is refused.
	f.send(t, "REPLCONF", "listening-port", strconv.Itoa(port))
	if line := f.line(t); line != "+OK" {
		t.Fatalf("REPLCONF: %q", line)
	}
	f.send(t, "PSYNC", "?", "-1")
}

// TestFailoverStates: FAILOVER TO one of two floodgate replicas makes it
// the master and the other is dropped to reconnect; and against a replica
// that never catches up, the states, the refusals while one is under
// way, writes held by the pause, TIMEOUT's abort, FORCE and ABORT.
func TestFailoverStates(t *testing.T) {
	parallel(t)
	ctx := context.Background()
	t.Run("to a named replica", func(t *testing.T) {
		msrv, master := startReplicationMaster(t)
		fillEveryType(t, master, "k", 100)
		rsrv1, r1 := startReplicationMaster(t)
		_, r2 := startReplicationMaster(t)
		for _, r := range []*redis.Client{r1, r2} {
			r.Do(ctx, "replicaof", "127.0.0.1", portOf(msrv.Addr()))
			waitCaughtUp(t, master, r)
		}
		if err := master.Do(ctx, "failover", "to", "127.0.0.1", portOf(rsrv1.Addr()), "timeout", "60000").Err(); err != nil {
			t.Fatalf("FAILOVER TO: %v", err)
		}
		waitFailedOver(t, master, r1, portOf(rsrv1.Addr()))
		if got := replicationInfo(r1, "stats", "sync_full"); got != "0" {
			t.Errorf("the new master's sync_full %s, want 0", got)
		}
		if got := master.Set(ctx, "k", "v", 0).Err(); got == nil || !strings.HasPrefix(got.Error(), "READONLY") {
			t.Errorf("SET on the old master: %v, want READONLY", got)
		}
		r1.Set(ctx, "after", "1", 0)
		waitCaughtUp(t, r1, master)
		compareKeyspaces(t, r1, master)
	})

	t.Run("a replica that never catches up", func(t *testing.T) {
		msrv, master := startReplicationMaster(t)
		master.Set(ctx, "k", "v", 0)
		port := redistest.ReservePort(t) // nothing listens there
		silentReplica(t, msrv.Addr(), port)
		redistest.Eventually(t, "the replica online", func() bool {
			return strings.Contains(replicationInfo(master, "replication", "slave0"), "state=online")
		})
		master.Set(ctx, "k", "after the sync", 0) // past the replica's (never sent) ACK
		target := []any{"failover", "to", "127.0.0.1", port}
		for _, c := range []struct {
			args []any
			want string
		}{
			{[]any{"failover", "to", "127.0.0.1", port + 1}, "ERR FAILOVER target HOST and PORT is not a replica."},
			{[]any{"failover", "to", "127.0.0.2", port}, "ERR FAILOVER target HOST and PORT is not a replica."},
			{[]any{"failover", "force"}, "ERR FAILOVER with force option requires both a timeout and target HOST and IP."},
			{append(append([]any{}, target...), "force"), "ERR FAILOVER with force option requires both a timeout and target HOST and IP."},
			{[]any{"failover", "abort"}, "ERR No failover in progress."},
		} {
			if err := master.Do(ctx, c.args...).Err(); err == nil || err.Error() != c.want {
				t.Errorf("%v: %v, want %q", c.args, err, c.want)
			}
		}

		// TIMEOUT without FORCE: the wait ends, and the write the pause
		// held runs then.
		if err := master.Do(ctx, append(append([]any{}, target...), "timeout", "200")...).Err(); err != nil {
			t.Fatal(err)
		}
		if err := master.Incr(ctx, "k2").Err(); err != nil {
			t.Errorf("INCR held by the failover's pause: %v", err)
		}
		if got := replicationInfo(master, "replication", "master_failover_state"); got != "no-failover" {
			t.Errorf("after the timeout: master_failover_state %q", got)
		}

		// With no timeout it waits until ABORT, refusing what Redis refuses
		// meanwhile and holding writes.
		if err := master.Do(ctx, target...).Err(); err != nil {
			t.Fatal(err)
		}
		if got := replicationInfo(master, "replication", "master_failover_state"); got != "waiting-for-sync" {
			t.Errorf("master_failover_state %q, want waiting-for-sync", got)
		}
		for args, want := range map[string]string{
			"failover":              errFailoverInProgress,
			"replicaof no one":      errReplicaofFailover,
			"replicaof 127.0.0.1 1": errReplicaofFailover,
		} {
			var a []any
			for _, f := range strings.Fields(args) {
				a = append(a, f)
			}
			if err := master.Do(ctx, a...).Err(); err == nil || err.Error() != want {
				t.Errorf("%s during a failover: %v, want %q", args, err, want)
			}
		}
		held := make(chan error, 1)
		writer := dialOver(t, msrv, viaLoop)
		go func() { held <- writer.Incr(ctx, "k2").Err() }()
		redistest.Eventually(t, "the INCR to wait for the pause", func() bool {
			return replicationInfo(master, "clients", "blocked_clients") == "1"
		})
		if got := master.Get(ctx, "k2").Val(); got != "1" {
			t.Errorf("k2 = %q during the pause, want 1", got)
		}
		if err := master.Do(ctx, "failover", "abort").Err(); err != nil {
			t.Fatal(err)
		}
		if err := <-held; err != nil {
			t.Errorf("INCR after ABORT: %v", err)
		}
		if got := master.Get(ctx, "k2").Val(); got != "2" {
			t.Errorf("k2 = %q, want 2", got)
		}

		// FORCE: at the timeout the master becomes a replica of the target
		// anyway; it cannot reach it, so the failover stays in progress
		// until ABORT makes it a master again.
		if err := master.Do(ctx, append(append([]any{}, target...), "force", "timeout", "100")...).Err(); err != nil {
			t.Fatal(err)
		}
		redistest.Eventually(t, "the forced failover to begin", func() bool {
			return replicationInfo(master, "replication", "master_failover_state") == "failover-in-progress" &&
				replicationInfo(master, "replication", "role") == "slave"
		})
		if err := master.Do(ctx, "failover", "abort").Err(); err != nil {
			t.Fatal(err)
		}
		if role, state := replicationInfo(master, "replication", "role"), replicationInfo(master, "replication", "master_failover_state"); role != "master" || state != "no-failover" {
			t.Errorf("after ABORT: role %s, master_failover_state %s", role, state)
		}
		if err := master.Set(ctx, "k3", "v", 0).Err(); err != nil {
			t.Errorf("SET after ABORT: %v", err)
		}
	})
}
