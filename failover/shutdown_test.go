package failover

import (
	"context"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// nodeOf starts a floodgate or a redis-server node with lines.
func nodeOf(t *testing.T, kind string, lines ...string) *node {
	t.Helper()
	if kind == "floodgate" {
		return floodgate(t, lines...)
	}
	return newNode(t, "redis-server", append([]string{`save ""`, "repl-diskless-sync-delay 0"}, lines...)...)
}

// replicaOfNode starts a replica of master: floodgate or redis-server.
func replicaOfNode(t *testing.T, kind string, master *node) *node {
	t.Helper()
	return nodeOf(t, kind, "replicaof 127.0.0.1 "+strconv.Itoa(master.port))
}

// signal sends sig to the node's process.
func (n *node) signal(sig syscall.Signal) {
	n.t.Helper()
	if err := n.cmd.Process.Signal(sig); err != nil {
		n.t.Fatal(err)
	}
}

// waitExit waits for the node's process to exit and returns its code.
func (n *node) waitExit() int {
	n.t.Helper()
	redistest.Eventually(n.t, n.addr+" to exit", func() bool {
		select {
		case <-n.exited:
			return true
		default:
			return false
		}
	})
	code := n.cmd.ProcessState.ExitCode()
	n.cmd = nil
	return code
}

// shuttingDown reports whether INFO shows a shutdown waiting for replicas.
func (n *node) shuttingDown() bool {
	_, ok := n.info("server")["shutdown_in_milliseconds"]
	return ok
}

// logged counts the lines of the node's log that contain text.
func (n *node) logged(text string) int { return strings.Count(n.logText(), text) }

// TestShutdownWaitsForReplicas: SHUTDOWN on a master whose replica is
// stopped (SIGSTOP) waits, as Redis 7.0 (the same steps run on a
// redis-server master, each master with a floodgate and a redis-server
// replica): the caller is blocked, INFO shows shutdown_in_milliseconds,
// reads are served and writes held by the pause; SHUTDOWN ABORT ends the
// wait (the caller gets Redis's error, the held write runs); a second
// SHUTDOWN ends as soon as the resumed replica has acknowledged the whole
// stream, before shutdown-timeout, and the replica holds every write.
func TestShutdownWaitsForReplicas(t *testing.T) {
	for _, tc := range []struct{ master, replica string }{
		{"floodgate", "floodgate"}, {"floodgate", "redis-server"}, {"redis-server", "floodgate"}, {"redis-server", "redis-server"},
	} {
		t.Run(tc.master+"-to-"+tc.replica, func(t *testing.T) {
			ctx := context.Background()
			master := nodeOf(t, tc.master, "shutdown-timeout 120")
			replica := replicaOfNode(t, tc.replica, master)
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("the master's log:\n%s", master.logText())
				}
			})
			master.client.Set(ctx, "before", "1", 0)
			redistest.Eventually(t, "the replica to catch up", func() bool { return caughtUp(master, replica) })
			replica.signal(syscall.SIGSTOP)
			t.Cleanup(func() {
				if replica.cmd != nil {
					replica.cmd.Process.Signal(syscall.SIGCONT)
				}
			})
			master.client.Set(ctx, "last", "1", 0)

			// Each SHUTDOWN on a connection of its own: Redis 7.0.15 does not
			// reset a client unblocked by SHUTDOWN ABORT, and its next
			// command on that connection fails an assertion (networking.c
			// 'c->argc == 0') and crashes the server.
			shut := make(chan error, 1)
			shutdown := func() {
				caller := redis.NewClient(&redis.Options{Addr: master.addr, MaxRetries: -1, ReadTimeout: -1})
				t.Cleanup(func() { caller.Close() })
				go func() { shut <- caller.Do(ctx, "SHUTDOWN").Err() }()
			}
			shutdown()
			redistest.Eventually(t, "the shutdown to wait for the replica", master.shuttingDown)
			if n := master.logged("Waiting for replicas before shutting down."); n != 1 {
				t.Fatalf("%d waiting lines in the log:\n%s", n, master.logText())
			}
			if got := master.client.Get(ctx, "last").Val(); got != "1" {
				t.Errorf("GET during the wait: %q", got)
			}
			writer := redis.NewClient(&redis.Options{Addr: master.addr, MaxRetries: -1, ReadTimeout: -1})
			defer writer.Close()
			held := make(chan error, 1)
			go func() { held <- writer.Set(ctx, "held", "v", 0).Err() }()
			redistest.Eventually(t, "the write to be held by the pause", func() bool {
				return master.info("clients")["blocked_clients"] == "2"
			})
			select {
			case err := <-shut:
				t.Fatalf("SHUTDOWN answered during the wait: %v", err)
			default:
			}

			if err := master.client.Do(ctx, "SHUTDOWN", "ABORT").Err(); err != nil {
				t.Fatalf("SHUTDOWN ABORT: %v", err)
			}
			if err := <-shut; err == nil || err.Error() != "ERR Errors trying to SHUTDOWN. Check logs." {
				t.Fatalf("the aborted SHUTDOWN answered %v", err)
			}
			if err := <-held; err != nil {
				t.Fatalf("the held SET after the abort: %v", err)
			}
			if master.shuttingDown() || master.logged("Shutdown manually aborted.") != 1 {
				t.Fatalf("after the abort: shutdown_in_milliseconds %v, log:\n%s", master.shuttingDown(), master.logText())
			}
			if err := master.client.Do(ctx, "SHUTDOWN", "ABORT").Err(); err == nil || err.Error() != "ERR No shutdown in progress." {
				t.Fatalf("a second SHUTDOWN ABORT: %v", err)
			}

			shutdown()
			redistest.Eventually(t, "the second shutdown to wait", master.shuttingDown)
			replica.signal(syscall.SIGCONT)
			if code := master.waitExit(); code != 0 {
				t.Fatalf("the master exited %d:\n%s", code, master.logText())
			}
			log := master.logText()
			if !strings.Contains(log, "1 of 1 replicas are in sync when shutting down.") || strings.Contains(log, "Lagging replica") {
				t.Fatalf("the shutdown did not end with the replica in sync:\n%s", log)
			}
			for key, want := range map[string]string{"before": "1", "last": "1", "held": "v"} {
				if got := replica.client.Get(ctx, key).Val(); got != want {
					t.Errorf("%s on the replica after the master's exit: %q, want %q", key, got, want)
				}
			}
		})
	}
}

// laggingReplica starts a floodgate replica of master, stops it (SIGSTOP)
// once it has caught up, and writes a key on master that it lacks.
func laggingReplica(t *testing.T, master *node) *node {
	t.Helper()
	r := replicaOfNode(t, "floodgate", master)
	redistest.Eventually(t, "the replica to catch up", func() bool { return caughtUp(master, r) })
	r.signal(syscall.SIGSTOP)
	t.Cleanup(func() {
		if r.cmd != nil {
			r.cmd.Process.Signal(syscall.SIGCONT)
		}
	})
	master.client.Set(context.Background(), "k", "v", 0)
	return r
}

// TestShutdownOnSignals: SIGTERM waits for a stopped replica as SHUTDOWN
// does (shutdown-on-sigterm default); SHUTDOWN ABORT cancels it and the
// server stays up; with a short shutdown-timeout the wait ends at its time,
// logging the lagging replica as Redis does; shutdown-on-sigint now exits
// at once without waiting.
func TestShutdownOnSignals(t *testing.T) {
	ctx := context.Background()
	master := floodgate(t, "shutdown-timeout 120")
	replica := laggingReplica(t, master)

	master.signal(syscall.SIGTERM)
	redistest.Eventually(t, "SIGTERM's shutdown to wait for the replica", master.shuttingDown)
	if err := master.client.Do(ctx, "SHUTDOWN", "ABORT").Err(); err != nil {
		t.Fatalf("SHUTDOWN ABORT: %v", err)
	}
	if err := master.client.Set(ctx, "after-abort", "1", 0).Err(); err != nil || master.shuttingDown() {
		t.Fatalf("after the abort: SET %v, shutting down %v", err, master.shuttingDown())
	}

	master.client.ConfigSet(ctx, "shutdown-timeout", "1")
	master.signal(syscall.SIGTERM)
	if code := master.waitExit(); code != 0 {
		t.Fatalf("the master exited %d after SIGTERM:\n%s", code, master.logText())
	}
	log := master.logText()
	lagging := "Lagging replica 127.0.0.1:" + strconv.Itoa(replica.port) + " reported offset "
	if strings.Count(log, "Waiting for replicas before shutting down.") != 2 || !strings.Contains(log, lagging) ||
		!strings.Contains(log, "0 of 1 replicas are in sync when shutting down.") {
		t.Fatalf("SIGTERM with shutdown-timeout 1 and a stopped replica logged:\n%s", log)
	}

	now := floodgate(t, "shutdown-on-sigint now")
	laggingReplica(t, now)
	now.signal(syscall.SIGINT)
	if code := now.waitExit(); code != 0 {
		t.Fatalf("exit %d after SIGINT:\n%s", code, now.logText())
	}
	if log := now.logText(); strings.Contains(log, "Waiting for replicas") || !strings.Contains(log, "0 of 1 replicas are in sync") {
		t.Fatalf("shutdown-on-sigint now waited or did not log the lagging replica:\n%s", log)
	}
}
