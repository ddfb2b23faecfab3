package server

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// Libraries long enough for LZF (rdbcompression), and a short one, so
// that both of the RDB string forms are crossed. One function each: Redis
// lists a library's functions in its dict's order.
var rdbLibraries = []string{
	"#!lua name=rdblib\nredis.register_function('rdb_set', function(keys, args) return redis.call('set', keys[1], args[1]) end)\n",
	"#!lua name=rolib\nredis.register_function{function_name='rdb_get', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes'}, description='" + strings.Repeat("d", 40) + "'}",
	"#!lua name=other\nredis.register_function('answer', function() return 42 end)",
}

// functionState is what a server's libraries look like from outside.
func functionState(t *testing.T, c *redis.Client) []any {
	t.Helper()
	ctx := context.Background()
	var out []any
	for _, lib := range []string{"rdblib", "rolib", "other"} {
		list, err := c.Do(ctx, "FUNCTION", "LIST", "LIBRARYNAME", lib, "WITHCODE").Result()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, list)
	}
	set, err := c.Do(ctx, "FCALL", "rdb_set", 1, "k", "v").Result()
	if err != nil {
		t.Fatal(err)
	}
	get, _ := c.Do(ctx, "FCALL_RO", "rdb_get", 1, "k").Result()
	answer, _ := c.Do(ctx, "FCALL", "answer", 0).Result()
	return append(out, set, get, answer)
}

func loadLibraries(t *testing.T, c *redis.Client) {
	t.Helper()
	for _, code := range rdbLibraries {
		if err := c.Do(context.Background(), "FUNCTION", "LOAD", code).Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFunctionsRDBWithRedis: redis-server 7.0 loads the libraries of
// floodgate's RDB, and floodgate those of Redis's, each with compression
// on and off.
func TestFunctionsRDBWithRedis(t *testing.T) {
	parallel(t)
	ctx := context.Background()
	for _, compression := range []string{"yes", "no"} {
		// floodgate -> Redis.
		dir := t.TempDir()
		srv := startServer(t, Config{Dir: dir})
		c := newRedisClient(t, srv)
		if err := c.Do(ctx, "CONFIG", "SET", "rdbcompression", compression).Err(); err != nil {
			t.Fatal(err)
		}
		loadLibraries(t, c)
		if err := c.Save(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		file, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
		if err != nil {
			t.Fatal(err)
		}
		want := functionState(t, c)
		rs := redistest.StartWith(t, func(_ int, rdir string) []string {
			if err := os.WriteFile(filepath.Join(rdir, "dump.rdb"), file, 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"--dbfilename", "dump.rdb"}
		})
		rc := redis.NewClient(&redis.Options{Addr: rs.Addr, Protocol: 2})
		defer rc.Close()
		if got := functionState(t, rc); !reflect.DeepEqual(got, want) {
			t.Fatalf("rdbcompression %s: redis-server loaded floodgate's RDB as\n%v\nwant\n%v", compression, got, want)
		}

		// Redis -> floodgate.
		rs2 := redistest.Start(t, "--rdbcompression", compression)
		rc2 := redis.NewClient(&redis.Options{Addr: rs2.Addr, Protocol: 2})
		defer rc2.Close()
		loadLibraries(t, rc2)
		if err := rc2.Save(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		rfile, err := os.ReadFile(filepath.Join(rs2.Dir, "dump.rdb"))
		if err != nil {
			t.Fatal(err)
		}
		dir2 := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir2, "dump.rdb"), rfile, 0o644); err != nil {
			t.Fatal(err)
		}
		want2 := functionState(t, rc2)
		srv2 := startServer(t, Config{Dir: dir2, LoadRDB: true})
		if got := functionState(t, newRedisClient(t, srv2)); !reflect.DeepEqual(got, want2) {
			t.Fatalf("rdbcompression %s: floodgate loaded Redis's RDB as\n%v\nwant\n%v", compression, got, want2)
		}

		// FUNCTION DUMP payloads cross both ways.
		for _, pair := range [][2]*redis.Client{{c, rc2}, {rc2, c}} {
			payload, err := pair[0].Do(ctx, "FUNCTION", "DUMP").Text()
			if err != nil {
				t.Fatal(err)
			}
			if err := pair[1].Do(ctx, "FUNCTION", "RESTORE", payload, "FLUSH").Err(); err != nil {
				t.Fatalf("FUNCTION RESTORE of the other server's dump: %v", err)
			}
		}
	}
}

// TestFunctionsAOF: FUNCTION LOAD, DELETE and FLUSH are logged, and a
// rewrite's base (RDB preamble or commands) holds the libraries: a restart
// from the AOF has them.
func TestFunctionsAOF(t *testing.T) {
	ctx := context.Background()
	for _, preamble := range []string{"yes", "no"} {
		dir := t.TempDir()
		aofCfg := AOFConfig{Enabled: true, NoRDBPreamble: preamble == "no"}
		srv := startServer(t, Config{Dir: dir, AOF: aofCfg})
		c := newRedisClient(t, srv)
		loadLibraries(t, c)
		if err := c.Do(ctx, "FUNCTION", "LOAD", "#!lua name=gone\nredis.register_function('gone', function() return 1 end)").Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.Do(ctx, "FUNCTION", "DELETE", "gone").Err(); err != nil {
			t.Fatal(err)
		}
		want := functionState(t, c)
		restart := func(what string) {
			srv.Close()
			srv = startServer(t, Config{Dir: dir, AOF: aofCfg})
			c = newRedisClient(t, srv)
			if got := functionState(t, c); !reflect.DeepEqual(got, want) {
				t.Fatalf("preamble %s, %s: %v, want %v", preamble, what, got, want)
			}
			if err := c.Do(ctx, "FCALL", "gone", 0).Err(); err == nil || err.Error() != "ERR Function not found" {
				t.Fatalf("preamble %s, %s: FCALL gone: %v", preamble, what, err)
			}
		}
		restart("replayed")
		if err := c.Do(ctx, "BGREWRITEAOF").Err(); err != nil {
			t.Fatal(err)
		}
		redistest.Eventually(t, "the rewrite", func() bool {
			info := c.Info(ctx, "persistence").Val()
			return strings.Contains(info, "aof_rewrite_in_progress:0") && strings.Contains(info, "aof_rewrite_scheduled:0")
		})
		restart("rewritten")
	}
}

// TestFunctionsReplicate: a full sync carries the master's libraries (in
// its RDB) and the stream FUNCTION LOAD, DELETE and FCALL's writes, from
// floodgate to redis-server and from redis-server to floodgate.
func TestFunctionsReplicate(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, master, replica *redis.Client) {
		t.Helper()
		redistest.Eventually(t, "the replica's link to be up", func() bool {
			return replicationInfo(replica, "replication", "master_link_status") == "up"
		})
		redistest.Eventually(t, "the synced library", func() bool {
			return replica.Do(ctx, "FCALL_RO", "rdb_get", 1, "k").Val() == "before"
		})
		if err := master.Do(ctx, "FUNCTION", "LOAD", rdbLibraries[2]).Err(); err != nil {
			t.Fatal(err)
		}
		if err := master.Do(ctx, "FUNCTION", "DELETE", "rdblib").Err(); err != nil {
			t.Fatal(err)
		}
		if err := master.Do(ctx, "FCALL", "rdb_get", 1, "k").Err(); err != nil {
			t.Fatal(err)
		}
		master.Set(ctx, "k", "after", 0)
		redistest.Eventually(t, "the stream's libraries", func() bool {
			return replica.Do(ctx, "FCALL_RO", "rdb_get", 1, "k").Val() == "after" &&
				len(replica.Do(ctx, "FUNCTION", "LIST", "LIBRARYNAME", "other").Val().([]any)) == 1 &&
				len(replica.Do(ctx, "FUNCTION", "LIST", "LIBRARYNAME", "rdblib").Val().([]any)) == 0
		})
	}
	t.Run("redis replica of floodgate", func(t *testing.T) {
		srv, master := startReplicationMaster(t)
		loadLibraries(t, master)
		master.Do(ctx, "FUNCTION", "DELETE", "other")
		master.Do(ctx, "FCALL", "rdb_set", 1, "k", "before")
		_, port, _ := net.SplitHostPort(srv.Addr())
		rs := redistest.Start(t, "--replicaof", "127.0.0.1", port)
		replica := redis.NewClient(patient(&redis.Options{Addr: rs.Addr, Protocol: 2, DisableIdentity: true}))
		t.Cleanup(func() { replica.Close() })
		check(t, master, replica)
	})
	t.Run("floodgate replica of redis", func(t *testing.T) {
		rs := redistest.Start(t, "--repl-diskless-sync-delay", "0")
		master := redis.NewClient(patient(&redis.Options{Addr: rs.Addr, Protocol: 2, DisableIdentity: true}))
		t.Cleanup(func() { master.Close() })
		loadLibraries(t, master)
		master.Do(ctx, "FUNCTION", "DELETE", "other")
		master.Do(ctx, "FCALL", "rdb_set", 1, "k", "before")
		_, replica := startReplicationMaster(t)
		replica.Do(ctx, "FUNCTION", "LOAD", "#!lua name=stale\nredis.register_function('stale', function() return 1 end)")
		if err := replica.Do(ctx, "replicaof", "127.0.0.1", strconv.Itoa(rs.Port)).Err(); err != nil {
			t.Fatal(err)
		}
		check(t, master, replica)
		if n := len(replica.Do(ctx, "FUNCTION", "LIST", "LIBRARYNAME", "stale").Val().([]any)); n != 0 {
			t.Errorf("the replica kept a library of its own through the full sync")
		}
	})
}
