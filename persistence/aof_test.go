package persistence

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// workload writes every type, TTLs, several databases, a script, a
// transaction and the commands whose replay must be rewritten (relative
// TTLs, float increments, random pops, expired keys).
func workload(t testing.TB, p *proc, throttle, lists bool) {
	t.Helper()
	ctx := context.Background()
	cmds := [][]any{
		{"set", "s1", "hello"},
		{"set", "n", "42"},
		{"incr", "n"},
		{"set", "ttl", "v", "ex", "1000"},
		{"setex", "sx", "500", "v"},
		{"set", "px", "v", "px", "800000"},
		{"incrbyfloat", "f", "1.5"},
		{"incrbyfloat", "f", "0.1"},
		{"sadd", "set", "a", "b", "c", "d"},
		{"spop", "set"},
		{"sadd", "iset", "1", "2", "3"},
		{"zadd", "z", "1", "a", "2.5", "b", "-inf", "c"},
		{"hset", "h", "f1", "v1", "f2", "v2"},
		{"hincrbyfloat", "h", "f3", "0.1"},
		{"expire", "h", "3000"},
		{"pexpire", "z", "4000000"},
		{"set", "gone", "v"},
		{"pexpireat", "gone", "1"},
		{"set", "getex", "v"},
		{"getex", "getex", "ex", "700"},
		{"eval", "redis.call('set', KEYS[1], 'from-script') redis.call('incr', 'n') redis.call('expire', KEYS[1], 900) return 1", "1", "scripted"},
		{"append", "s1", " world"},
	}
	for i := 0; i < 200; i++ {
		cmds = append(cmds, []any{"sadd", "bigset", "member-" + strconv.Itoa(i)}, []any{"zadd", "bigz", strconv.Itoa(i), "m" + strconv.Itoa(i)}, []any{"hset", "bigh", "f" + strconv.Itoa(i), strconv.Itoa(i)})
	}
	if lists {
		cmds = append(cmds, []any{"rpush", "list", "a", "b", "c"}, []any{"lpop", "list"})
		for i := 0; i < 200; i++ {
			cmds = append(cmds, []any{"rpush", "biglist", strconv.Itoa(i)})
		}
	}
	if throttle {
		cmds = append(cmds, []any{"cl.throttle", "limit", "5", "10", "60"}, []any{"cl.throttle", "limit", "5", "10", "60"})
	}
	for _, c := range cmds {
		p.do(c...)
	}
	pipe := p.client.TxPipeline()
	pipe.Set(ctx, "m1", "1", 0)
	pipe.Incr(ctx, "m1")
	pipe.SAdd(ctx, "mset", "x")
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	c5 := redis.NewClient(&redis.Options{Addr: p.addr, DB: 5})
	defer c5.Close()
	c5.Set(ctx, "in-db-5", "five", time.Hour)
	c5.Incr(ctx, "counter5")
}

// TestRedisLoadsFloodgateAOF: floodgate's AOF directory, after a workload
// with a rewrite in the middle, passes redis-check-aof and loads into
// redis-server 7.0 with the same keys, values and expiry times.
func TestRedisLoadsFloodgateAOF(t *testing.T) {
	t.Parallel() // its own processes, directories and ports
	for _, preamble := range []string{"yes", "no"} {
		t.Run("aof-use-rdb-preamble "+preamble, func(t *testing.T) { redisLoadsFloodgateAOF(t, preamble) })
	}
}

func redisLoadsFloodgateAOF(t *testing.T, preamble string) {
	dir := t.TempDir()
	fg, ok := startFloodgate(t, dir, "--aof-use-rdb-preamble", preamble)
	if !ok {
		t.Fatalf("floodgate did not start:\n%s", fg.logText())
	}
	workload(t, fg, false, true)
	fg.do("bgrewriteaof")
	redistest.Eventually(t, "the rewrite ends", func() bool {
		return strings.Contains(fg.client.Info(context.Background(), "persistence").Val(), "aof_rewrite_in_progress:0")
	})
	fg.do("set", "after-rewrite", "1")
	fg.do("cl.throttle", "limit", "5", "10", "60")
	want := keyspace(t, fg)
	fg.shutdown()

	if _, err := exec.LookPath("redis-check-aof"); err == nil {
		out, err := exec.Command("redis-check-aof", filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest")).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "All AOF files and manifest are valid") {
			t.Fatalf("redis-check-aof: %v\n%s", err, out)
		}
	}
	rs, ok := startRedis(t, dir)
	if !ok {
		t.Fatalf("redis-server refused floodgate's AOF:\n%s", rs.logText())
	}
	diffKeyspaces(t, "redis-server loading floodgate's AOF", keyspace(t, rs), want)
}

// TestFloodgateLoadsRedisAOF: the other way round, Redis's AOF directory
// after a workload and a rewrite, with bases as RDB and as commands.
func TestFloodgateLoadsRedisAOF(t *testing.T) {
	t.Parallel() // its own processes, directories and ports
	for _, preamble := range []string{"yes", "no"} {
		t.Run("aof-use-rdb-preamble "+preamble, func(t *testing.T) { floodgateLoadsRedisAOF(t, preamble) })
	}
}

func floodgateLoadsRedisAOF(t *testing.T, preamble string) {
	dir := t.TempDir()
	rs, ok := startRedis(t, dir, "--aof-use-rdb-preamble", preamble)
	if !ok {
		t.Fatalf("redis-server did not start:\n%s", rs.logText())
	}
	// Package rdb does not read Redis's list encodings yet: lists only
	// when the base is commands.
	workload(t, rs, false, preamble == "no")
	rs.do("bgrewriteaof")
	redistest.Eventually(t, "the rewrite ends", func() bool {
		return strings.Contains(rs.client.Info(context.Background(), "persistence").Val(), "aof_rewrite_in_progress:0")
	})
	rs.do("set", "after-rewrite", "1")
	want := keyspace(t, rs)
	rs.shutdown()

	fg, ok := startFloodgate(t, dir)
	if !ok {
		t.Fatalf("floodgate refused Redis's AOF:\n%s", fg.logText())
	}
	diffKeyspaces(t, "floodgate loading Redis's AOF", keyspace(t, fg), want)
	// And floodgate goes on appending to Redis's last incr file.
	fg.do("set", "by-floodgate", "1")
	want = keyspace(t, fg)
	fg.kill()
	fg2, ok := startFloodgate(t, dir)
	if !ok {
		t.Fatalf("restart:\n%s", fg2.logText())
	}
	diffKeyspaces(t, "floodgate after appending to Redis's AOF", keyspace(t, fg2), want)
}

// TestCleanShutdownLosesNothing: with appendfsync no, a SHUTDOWN still
// writes and fsyncs everything acknowledged.
func TestCleanShutdownLosesNothing(t *testing.T) {
	t.Parallel() // its own processes, directories and ports
	dir := t.TempDir()
	fg, ok := startFloodgate(t, dir, "--appendfsync", "no")
	if !ok {
		t.Fatal(fg.logText())
	}
	workload(t, fg, true, true)
	for i := 0; i < 1000; i++ {
		fg.do("incr", "counter")
	}
	want := keyspace(t, fg)
	fg.shutdown()
	fg2, ok := startFloodgate(t, dir)
	if !ok {
		t.Fatal(fg2.logText())
	}
	diffKeyspaces(t, "after SHUTDOWN", keyspace(t, fg2), want)
}

// TestKillUnderLoad: clients INCR their own counters as fast as they can;
// the server is killed with SIGKILL and restarted from its files. Every
// acknowledged increment must be there: floodgate writes the AOF before it
// sends a round's replies (and, with always, fsyncs it), so a process
// crash loses nothing acknowledged. (everysec's one-second window is about
// the kernel losing its page cache, which SIGKILL does not do.) Nothing
// that was never sent appears either.
func TestKillUnderLoad(t *testing.T) {
	t.Parallel() // its own processes, directories and ports
	for _, policy := range []string{"everysec", "always"} {
		t.Run(policy, func(t *testing.T) {
			dir := t.TempDir()
			fg, ok := startFloodgate(t, dir, "--appendfsync", policy)
			if !ok {
				t.Fatal(fg.logText())
			}
			const clients = 4
			var acked, sent [clients]atomic.Int64
			var total atomic.Int64
			var wg sync.WaitGroup
			for i := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c := redis.NewClient(&redis.Options{Addr: fg.addr, MaxRetries: -1, PoolSize: 1})
					defer c.Close()
					key := "counter:" + strconv.Itoa(i)
					for {
						sent[i].Add(1)
						n, err := c.Incr(context.Background(), key).Result()
						if err != nil {
							return // the server is gone
						}
						acked[i].Store(n)
						total.Add(1)
					}
				}()
			}
			// Kill once a good number of increments is in, some of them
			// written by the background fsync's ticks.
			redistest.Eventually(t, "load runs", func() bool {
				return total.Load() >= 20000 && strings.Contains(fg.client.Info(context.Background(), "persistence").Val(), "aof_current_size")
			})
			fg.kill()
			wg.Wait()
			fg2, ok := startFloodgate(t, dir, "--appendfsync", policy)
			if !ok {
				t.Fatalf("restart after SIGKILL:\n%s", fg2.logText())
			}
			for i := range clients {
				got, _ := strconv.ParseInt(fmt.Sprint(fg2.do("get", "counter:"+strconv.Itoa(i))), 10, 64)
				if got < acked[i].Load() || got > sent[i].Load() {
					t.Errorf("counter:%d = %d after the restart; acknowledged %d, sent %d", i, got, acked[i].Load(), sent[i].Load())
				}
			}
			t.Logf("%s: %d increments acknowledged before SIGKILL, all found after the restart", policy, total.Load())
		})
	}
}

// prepareAOF writes a small AOF with floodgate and returns the directory
// and the path of its incr file.
func prepareAOF(t *testing.T) (dir, incr string) {
	dir = t.TempDir()
	fg, ok := startFloodgate(t, dir, "--aof-use-rdb-preamble", "no")
	if !ok {
		t.Fatal(fg.logText())
	}
	fg.do("set", "a", "1")
	fg.do("set", "b", "2")
	fg.shutdown()
	return dir, filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof")
}

func appendFile(t *testing.T, path, data string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
}

func copyDir(t *testing.T, from string) string {
	to := t.TempDir()
	if out, err := exec.Command("cp", "-a", from+"/appendonlydir", to).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	return to
}

// TestDamagedAOF: a truncated or corrupt file, given to floodgate and to
// redis-server 7.0 side by side: both start (with the valid prefix and the
// same warning) or both refuse with the same error line.
func TestDamagedAOF(t *testing.T) {
	t.Parallel() // its own processes, directories and ports
	for _, tc := range []struct {
		name     string
		tail     string
		args     []string
		starts   bool
		logLine  string
		wantKeys int64
	}{
		{"truncated, aof-load-truncated yes", "*3\r\n$3\r\nset\r\n$1\r\nc\r\n$2\r\n3", nil, true, "!!! Warning: short read while loading the AOF file appendonly.aof.1.incr.aof!!!", 2},
		{"truncated MULTI", "*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nset\r\n$1\r\nc\r\n$1\r\n3\r\n", nil, true, "Revert incomplete MULTI/EXEC transaction in AOF file appendonly.aof.1.incr.aof", 2},
		{"truncated, aof-load-truncated no", "*3\r\n$3\r\nset\r\n$1\r\nc", []string{"--aof-load-truncated", "no"}, false, "Unexpected end of file reading the append only file appendonly.aof.1.incr.aof. You can: 1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. 2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.", 0},
		{"garbage", "garbage\r\n", nil, false, "Bad file format reading the append only file appendonly.aof.1.incr.aof: make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>", 0},
		{"unknown command", "*1\r\n$7\r\nNOSUCHX\r\n", nil, false, "Unknown command 'NOSUCHX' reading the append only file appendonly.aof.1.incr.aof", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, incr := prepareAOF(t)
			appendFile(t, incr, tc.tail)
			redisDir := copyDir(t, dir)
			for _, srv := range []struct {
				name  string
				start func(testing.TB, string, ...string) (*proc, bool)
				dir   string
			}{{"floodgate", startFloodgate, dir}, {"redis-server", startRedis, redisDir}} {
				p, ok := srv.start(t, srv.dir, tc.args...)
				if ok != tc.starts {
					t.Fatalf("%s started: %v, want %v\n%s", srv.name, ok, tc.starts, p.logText())
				}
				if !strings.Contains(p.logText(), tc.logLine) {
					t.Errorf("%s's log lacks %q:\n%s", srv.name, tc.logLine, p.logText())
				}
				if ok {
					if n := p.client.DBSize(context.Background()).Val(); n != tc.wantKeys {
						t.Errorf("%s holds %d keys, want %d", srv.name, n, tc.wantKeys)
					}
				}
			}
		})
	}
}

// TestCorruptManifest: Redis's manifest errors stop floodgate too.
func TestCorruptManifest(t *testing.T) {
	t.Parallel() // its own processes, directories and ports
	dir, _ := prepareAOF(t)
	manifest := filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest")
	if err := os.WriteFile(manifest, []byte("file appendonly.aof.1.incr.aof seq 1 type x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, ok := startFloodgate(t, dir)
	if ok {
		t.Fatal("floodgate started with a corrupt manifest")
	}
	for _, line := range []string{"*** FATAL AOF MANIFEST FILE ERROR ***", "Reading the manifest file, at line 1", "Unknown AOF file type"} {
		if !strings.Contains(p.logText(), line) {
			t.Errorf("log lacks %q:\n%s", line, p.logText())
		}
	}
}

// TestOldStyleAOF: a Redis 6 appendonly.aof in dir is adopted as the base
// of a new AOF directory, as Redis 7.0 upgrades it.
func TestOldStyleAOF(t *testing.T) {
	t.Parallel() // its own processes, directories and ports
	dir := t.TempDir()
	old := "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$3\r\nold\r\n$5\r\nstyle\r\n"
	if err := os.WriteFile(filepath.Join(dir, "appendonly.aof"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	p, ok := startFloodgate(t, dir)
	if !ok {
		t.Fatal(p.logText())
	}
	if v := p.do("get", "old"); v != "style" {
		t.Fatalf("old = %v", v)
	}
	if !strings.Contains(p.logText(), "Successfully migrated an old-style AOF file (appendonly.aof) into the AOF directory (appendonlydir).") {
		t.Errorf("log: %s", p.logText())
	}
	manifest, _ := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	if want := "file appendonly.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"; string(manifest) != want {
		t.Errorf("manifest %q, want %q", manifest, want)
	}
}
