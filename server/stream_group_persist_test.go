package server

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/store"
	"github.com/redis/go-redis/v9"
)

// Consumer groups in the AOF and the replication stream: what XREADGROUP,
// XCLAIM and XAUTOCLAIM propagate (compared byte for byte with Redis's
// stream), and that a reload or a replica ends up with the same groups.

// groupCommands exercise every propagated form: XCLAIMs of deliveries
// (several in a MULTI), NOACK's XGROUP SETID and CREATECONSUMER, XCLAIM's
// LASTID, the XCLAIMs that drop deleted entries, and the commands logged
// as they came.
var groupCommands = [][]any{
	{"xadd", "s", "1-0", "f", "1"},
	{"xadd", "s", "2-0", "f", "2"},
	{"xadd", "s", "3-0", "f", "3"},
	{"xadd", "s", "4-0", "f", "4"},
	{"xadd", "s", "5-0", "f", "5"},
	{"xgroup", "create", "s", "g", "0"},
	{"xgroup", "create", "s", "h", "$"},
	{"xgroup", "create", "m", "g", "$", "mkstream"},
	{"xreadgroup", "group", "g", "alice", "count", "2", "streams", "s", ">"},
	{"xreadgroup", "group", "g", "bob", "count", "1", "streams", "s", ">"},
	{"xreadgroup", "group", "g", "alice", "streams", "s", "0"}, // history: nothing propagated
	{"xreadgroup", "group", "g", "carol", "noack", "count", "1", "streams", "s", ">"},
	{"xreadgroup", "group", "g", "dave", "streams", "s", ">"}, // nothing new: nothing
	{"xack", "s", "g", "1-0", "9-9"},
	{"xack", "s", "g", "9-9"}, // acknowledged nothing: nothing
	{"xclaim", "s", "g", "erin", "0", "2-0", "3-0", "retrycount", "5"},
	{"xclaim", "s", "g", "erin", "0", "9-9", "lastid", "5-0"}, // only LASTID: XGROUP SETID
	{"xgroup", "setid", "s", "h", "2-0", "entriesread", "2"},
	{"xreadgroup", "group", "h", "frank", "streams", "s", ">"},
	{"xdel", "s", "3-0", "4-0"},
	{"xautoclaim", "s", "h", "gina", "0", "0", "count", "2"},
	{"xclaim", "s", "h", "gina", "0", "4-0", "5-0", "justid"}, // 4-0 gone: dropped
	{"xgroup", "createconsumer", "s", "g", "hal"},
	{"xgroup", "delconsumer", "s", "g", "carol"},
	{"xgroup", "destroy", "m", "g"},
	{"xgroup", "create", "e", "g", "$", "mkstream"}, // an empty stream with no last ID, and a group
}

// thirteenDigits are the unix-ms times a stream carries (TIME of the
// XCLAIMs), which differ between two runs.
var thirteenDigits = regexp.MustCompile(`\$13\r\n\d{13}\r\n`)

func TestStreamGroupReplicationStreamMatchesRedis(t *testing.T) {
	ctx := context.Background()
	redisSrv := redistest.Start(t)
	rc := redis.NewClient(patient(&redis.Options{Addr: redisSrv.Addr, Protocol: 2, DisableIdentity: true}))
	t.Cleanup(func() { rc.Close() })
	_, fc := startReplicationMaster(t)
	streams := map[string][]byte{}
	for name, c := range map[string]*redis.Client{"redis": rc, "floodgate": fc} {
		f, conn := streamWatcher(t, c)
		addr := c.Options().Addr
		for _, cmd := range groupCommands {
			conn.Do(ctx, cmd...)
		}
		// Blocked XREADGROUPs served by an XADD (one with NOACK, for a
		// consumer it creates), and one failed by the group's destruction.
		blocked := redis.NewClient(patient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, PoolSize: 1}))
		t.Cleanup(func() { blocked.Close() })
		for _, w := range []struct{ read, unblock []any }{
			{[]any{"xreadgroup", "group", "h", "ivy", "block", "0", "streams", "s", ">"}, []any{"xadd", "s", "6-0", "f", "6"}},
			{[]any{"xreadgroup", "group", "h", "jo", "noack", "block", "0", "streams", "s", ">"}, []any{"xadd", "s", "7-0", "f", "7"}},
			{[]any{"xreadgroup", "group", "h", "ivy", "block", "0", "streams", "s", ">"}, []any{"xgroup", "destroy", "s", "h"}},
		} {
			done := make(chan error, 1)
			go func() { done <- blocked.Do(ctx, w.read...).Err() }()
			redistest.Eventually(t, "the XREADGROUP to block", func() bool {
				return strings.Contains(conn.Info(ctx, "clients").Val(), "blocked_clients:1")
			})
			conn.Do(ctx, w.unblock...)
			<-done
		}
		streams[name] = thirteenDigits.ReplaceAll(f.streamUntilEnd(t, conn), []byte("$13\r\n<time>\r\n"))
	}
	if !bytes.Equal(streams["floodgate"], streams["redis"]) {
		t.Errorf("stream differs:\nfloodgate %q\nredis     %q", streams["floodgate"], streams["redis"])
	}
	for _, form := range []string{"XCLAIM", "SETID", "CREATECONSUMER", "MULTI", "LASTID"} {
		if !bytes.Contains(streams["redis"], []byte(form)) {
			t.Errorf("Redis's stream has no %s: the commands no longer cover it", form)
		}
	}
}

// replicaOnly are the fields a replica, or a reload of the AOF, holds
// otherwise than the server that ran the commands, as Redis's do: the
// consumers' seen-time (set when the XCLAIM or XGROUP CREATECONSUMER is
// replayed), and a group's entries-read and lag (the replayed XCLAIM's
// LASTID moves the last ID and leaves the counter unknown).
var replicaOnly = regexp.MustCompile(`(seen-time|entries-read|lag) [^ ]+`)

// replicatedState is XINFO STREAM FULL without replicaOnly.
func replicatedState(t *testing.T, c *redis.Client, key string) string {
	t.Helper()
	full, err := c.Do(context.Background(), "xinfo", "stream", key, "full").Result()
	if err != nil {
		t.Fatalf("XINFO STREAM %s FULL: %v", key, err)
	}
	return replicaOnly.ReplaceAllString(fmt.Sprint(full), "$1 _")
}

// TestStreamGroupAOFReload: the AOF a run of group commands leaves, and
// the base a rewrite writes of it, load back into the same groups: the
// same PELs, delivery times and counts, consumers and last IDs.
func TestStreamGroupAOFReload(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	clock := store.NewManualClock(time.UnixMilli(1700000000000))
	cfg := Config{Dir: dir, Clock: clock, AOF: AOFConfig{Enabled: true, Fsync: "always"}}
	srv := startServer(t, cfg)
	c := newRedisClient(t, srv)
	for i, cmd := range groupCommands {
		if err := c.Do(ctx, cmd...).Err(); err != nil && err != redis.Nil {
			t.Fatalf("%v: %v", cmd, err)
		}
		clock.Add(time.Duration(i+1) * time.Second) // every delivery at its own time
	}
	state := func() string { return replicatedState(t, c, "s") + "\n" + replicatedState(t, c, "e") }
	want := state()
	srv.Close()
	for _, step := range []string{"the incr file", "a rewrite"} {
		srv = startServer(t, cfg)
		c = newRedisClient(t, srv)
		if got := state(); got != want {
			t.Fatalf("after loading %s:\n%s\nwant:\n%s", step, got, want)
		}
		if err := c.Do(ctx, "bgrewriteaof").Err(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the rewrite", func() bool {
			info := c.Info(ctx, "persistence").Val()
			return strings.Contains(info, "aof_rewrites:1") && strings.Contains(info, "aof_rewrite_in_progress:0")
		})
		srv.Close()
	}
}

// TestStreamGroupsReachFloodgateReplica runs the Tcl suite's replication
// cases of stream-cgroups (external:skip there) with a floodgate replica
// of a floodgate master: the group's last ID reaches the replica (with
// and without NOACK), and XCLAIM and XAUTOCLAIM of deleted entries drop
// them from the replica's PEL too.
func TestStreamGroupsReachFloodgateReplica(t *testing.T) {
	ctx := context.Background()
	msrv, master := startReplicationMaster(t)
	_, replica := startReplicationMaster(t)
	_, mport, _ := net.SplitHostPort(msrv.Addr())
	attach := func() {
		t.Helper()
		if err := replica.Do(ctx, "replicaof", "127.0.0.1", mport).Err(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the replica's link", func() bool {
			return replicationInfo(replica, "replication", "master_link_status") == "up"
		})
	}
	for _, noack := range []bool{false, true} {
		attach()
		master.Del(ctx, "stream")
		for i := 1; i <= 3; i++ {
			master.XAdd(ctx, &redis.XAddArgs{Stream: "stream", ID: fmt.Sprintf("%d-0", i), Values: []string{"a", fmt.Sprint(i)}})
		}
		master.XGroupCreate(ctx, "stream", "mygroup", "0")
		for range 2 {
			res, err := master.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "mygroup", Consumer: "myconsumer", Streams: []string{"stream", ">"}, Count: 1, NoAck: noack}).Result()
			if err != nil {
				t.Fatal(err)
			}
			if !noack {
				if n := master.XAck(ctx, "stream", "mygroup", res[0].Messages[0].ID).Val(); n != 1 {
					t.Fatalf("XACK = %d", n)
				}
			}
		}
		waitCaughtUp(t, master, replica)
		if got, want := replicatedState(t, replica, "stream"), replicatedState(t, master, "stream"); got != want {
			t.Errorf("replica's groups:\n%s\nmaster's:\n%s", got, want)
		}
		replica.Do(ctx, "replicaof", "no", "one")
		res, err := replica.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "mygroup", Consumer: "myconsumer", Streams: []string{"stream", ">"}, Count: 1}).Result()
		if err != nil || len(res) != 1 || res[0].Messages[0].ID != "3-0" {
			t.Errorf("NOACK=%v: the promoted replica reads %v %v, want 3-0", noack, res, err)
		}
	}
	for _, autoclaim := range []bool{false, true} {
		attach()
		master.Del(ctx, "x")
		for i := 1; i <= 5; i++ {
			master.XAdd(ctx, &redis.XAddArgs{Stream: "x", ID: fmt.Sprintf("%d-0", i), Values: []string{"f", "v"}})
		}
		master.XGroupCreate(ctx, "x", "grp", "0")
		master.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "grp", Consumer: "Alice", Streams: []string{"x", ">"}})
		waitCaughtUp(t, master, replica)
		if n := len(replica.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: "x", Group: "grp", Start: "-", End: "+", Count: 10, Consumer: "Alice"}).Val()); n != 5 {
			t.Fatalf("the replica's PEL of Alice holds %d entries, want 5", n)
		}
		master.XDel(ctx, "x", "2-0", "4-0")
		left := 1
		if autoclaim {
			got := fmt.Sprint(master.Do(ctx, "xautoclaim", "x", "grp", "Bob", "0", "0-0").Val())
			if want := "[0-0 [[1-0 [f v]] [3-0 [f v]] [5-0 [f v]]] [2-0 4-0]]"; got != want {
				t.Fatalf("XAUTOCLAIM = %s, want %s", got, want)
			}
			left = 0
		} else {
			got := fmt.Sprint(master.Do(ctx, "xclaim", "x", "grp", "Bob", "0", "1-0", "2-0", "3-0", "4-0").Val())
			if want := "[[1-0 [f v]] [3-0 [f v]]]"; got != want {
				t.Fatalf("XCLAIM = %s, want %s", got, want)
			}
		}
		waitCaughtUp(t, master, replica)
		if n := len(replica.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: "x", Group: "grp", Start: "-", End: "+", Count: 10, Consumer: "Alice"}).Val()); n != left {
			t.Errorf("autoclaim=%v: the replica's PEL of Alice holds %d entries, want %d", autoclaim, n, left)
		}
		if got, want := replicatedState(t, replica, "x"), replicatedState(t, master, "x"); got != want {
			t.Errorf("replica's groups:\n%s\nmaster's:\n%s", got, want)
		}
	}
}
