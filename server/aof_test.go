package server

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/aof"
	"github.com/floodgate/floodgate/store"
	"github.com/redis/go-redis/v9"
)

// loggedCommands reads back the commands in dir's incr files.
func loggedCommands(t *testing.T, dir string) []string {
	t.Helper()
	m, err := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	man, err := aof.ParseManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fi := range man.Incrs {
		f, err := os.Open(filepath.Join(dir, "appendonlydir", fi.Name))
		if err != nil {
			t.Fatal(err)
		}
		l := aof.Loader{Apply: func(args [][]byte) error {
			got = append(got, string(bytes.Join(args, []byte(" "))))
			return nil
		}}
		// The loader applies MULTI blocks at EXEC without MULTI/EXEC
		// themselves; count them separately through the raw bytes.
		res := l.Load(f)
		f.Close()
		if res.Status != aof.Loaded {
			t.Fatalf("%s: %+v", fi.Name, res)
		}
	}
	return got
}

// TestAOFPropagation: what each kind of command is logged as, on a manual
// clock so the absolute times are known.
func TestAOFPropagation(t *testing.T) {
	dir := t.TempDir()
	clock := store.NewManualClock(time.UnixMilli(1700000000000))
	// No active expiry: on a busy machine its cron could delete g between
	// the clock's jump and Close, and the test is of the lazy DEL.
	srv := startServer(t, Config{Dir: dir, Clock: clock, ActiveExpiryInterval: time.Hour,
		AOF: AOFConfig{Enabled: true, Fsync: "always"}})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	for _, cmd := range [][]any{
		{"set", "a", "1"},
		{"get", "nosuch"},             // a read: nothing
		{"set", "a", "1", "nx"},       // changed nothing: nothing
		{"expire", "a", "100"},        // PEXPIREAT
		{"set", "b", "v", "ex", "10"}, // SET PXAT
		{"setex", "c", "5", "v"},      // SET PXAT
		{"getex", "b", "persist"},     // PERSIST
		{"incrbyfloat", "f", "0.5"},   // SET KEEPTTL
		{"pexpireat", "f", "1"},       // in the past: DEL
		{"eval", "redis.call('incr', 'x') redis.call('incr', 'y') return 1", "0"}, // MULTI/EXEC of its effects
		{"eval", "redis.call('incr', 'x') return 1", "0"},                         // one effect: no MULTI
		{"cl.throttle", "t", "0", "1", "60"},                                      // the key's state
		{"increx", "i", "ex", "10"},                                               // SET PXAT: the resolved expiry
		{"increx", "i", "ubound", "1"},                                            // skipped: nothing
		{"increx", "i", "byfloat", "0.25", "persist"},                             // SET, no TTL
		{"increx", "j", "exat", "1"},                                              // in the past: DEL
		{"multi"}, {"increx", "m", "px", "500000"}, {"exec"},                      // in MULTI: the effect
		{"eval", "return redis.call('increx', 'e', 'byint', 5, 'ex', 20)", "0"}, // from a script: the effect
		{"gcra", "g", "0", "1", "1.5"},                                          // the key's state, as CL.THROTTLE
	} {
		c.Do(ctx, cmd...)
	}
	clock.Add(6 * time.Second)
	t.Log(c.Get(ctx, "c").Err(), c.Do(ctx, "dbsize").Val(), c.Do(ctx, "pttl", "c").Val()) // expired on access: DEL
	c.Get(ctx, "c")                                                                       // expired on access: DEL
	srv.Close()
	want := []string{
		"SELECT 0",
		"set a 1",
		"PEXPIREAT a 1700000100000",
		"SET b v PXAT 1700000010000",
		"SET c v PXAT 1700000005000",
		"PERSIST b",
		"SET f 0.5 KEEPTTL",
		"DEL f",
		"incr x", "incr y",
		"incr x",
		"SET t 1700000060000000000 PXAT 1700000060000",
		"SET i 1 PXAT 1700000010000",
		"SET i 1.25",
		"DEL j",
		"SET m 1 PXAT 1700000500000",
		"SET e 5 PXAT 1700000020000",
		"SET g 1700000001500000000 PXAT 1700000001500",
		"DEL c",
	}
	got := loggedCommands(t, dir)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("logged:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof"))
	if n := bytes.Count(raw, []byte("MULTI")); n != 1 {
		t.Errorf("%d MULTIs logged, want 1 (the two-write script)", n)
	}
}

// TestAOFTurnedOnAtRunTime: CONFIG SET appendonly yes writes a base of
// what is there and logs what follows; a new server loads both.
func TestAOFTurnedOnAtRunTime(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, Config{Dir: dir})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	c.Set(ctx, "before", "1", 0)
	c.ZAdd(ctx, "z", redis.Z{Score: 1.5, Member: "m"})
	if err := c.ConfigSet(ctx, "appendonly", "yes").Err(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the rewrite", func() bool {
		info := c.Info(ctx, "persistence").Val()
		return strings.Contains(info, "aof_rewrites:1") && strings.Contains(info, "aof_enabled:1")
	})
	c.Set(ctx, "after", "2", time.Hour)
	srv.Close()
	manifest, _ := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	if want := "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"; string(manifest) != want {
		t.Fatalf("manifest %q, want %q", manifest, want)
	}
	srv2 := startServer(t, Config{Dir: dir, AOF: AOFConfig{Enabled: true}})
	c2 := newRedisClient(t, srv2)
	if v := c2.MGet(ctx, "before", "after").Val(); v[0] != "1" || v[1] != "2" {
		t.Fatalf("MGET = %v", v)
	}
	if s := c2.ZScore(ctx, "z", "m").Val(); s != 1.5 {
		t.Fatalf("score %v", s)
	}
	if ttl := c2.TTL(ctx, "after").Val(); ttl <= 0 {
		t.Fatalf("TTL %v", ttl)
	}
}

// TestBGRewriteAOFInExec: inside EXEC a BGREWRITEAOF is scheduled, as
// Redis's bgrewriteaofCommand (server.in_exec), and the cron starts it.
func TestBGRewriteAOFInExec(t *testing.T) {
	parallel(t)
	srv := startServer(t, Config{Dir: t.TempDir(), AOF: AOFConfig{Enabled: true}})
	conn := dialConn(t, srv)
	conn.Write([]byte("MULTI\r\nBGREWRITEAOF\r\nBGREWRITEAOF\r\nEXEC\r\n"))
	want := "+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n+Background append only file rewriting scheduled\r\n+Background append only file rewriting scheduled\r\n"
	if got := readN(t, conn, len(want)); got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	c := newRedisClient(t, srv)
	waitFor(t, "the scheduled rewrite", func() bool {
		info := c.Info(context.Background(), "persistence").Val()
		return strings.Contains(info, "aof_rewrites:1") && strings.Contains(info, "aof_rewrite_scheduled:0")
	})
}

// TestBGRewriteAOFAndBGSAVE: the rewrite and BGSAVE share the one
// snapshot, as Redis's share the one child: a second rewrite is refused
// while one runs, BGSAVE is refused (or scheduled) during a rewrite, and a
// rewrite asked for during a BGSAVE is scheduled and runs after it.
func TestBGRewriteAOFAndBGSAVE(t *testing.T) {
	parallel(t)
	srv := startServer(t, Config{Dir: t.TempDir(), AOF: AOFConfig{Enabled: true}})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	c.Set(ctx, "k", "v", 0)
	info := func() string { return c.Info(ctx, "persistence").Val() }

	srv.lock <- struct{}{}
	err1, err2 := srv.startRewrite(), srv.startRewrite()
	errSave := srv.startBgsave()
	<-srv.lock
	if err1 != nil || err2 == nil || err2.Error() != errRewriteInProgress || errSave != errChildActive {
		t.Fatalf("rewrite, rewrite, bgsave = %v, %v, %v", err1, err2, errSave)
	}
	waitFor(t, "the rewrite", func() bool { return strings.Contains(info(), "aof_rewrites:1") })

	srv.lock <- struct{}{}
	errSave = srv.startBgsave()
	err1 = srv.startRewrite()
	<-srv.lock
	if errSave != nil || err1 != errRewriteScheduled {
		t.Fatalf("bgsave, rewrite = %v, %v", errSave, err1)
	}
	waitFor(t, "the scheduled rewrite after the BGSAVE", func() bool {
		i := info()
		return strings.Contains(i, "aof_rewrites:2") && strings.Contains(i, "aof_rewrite_scheduled:0") && strings.Contains(i, "rdb_saves:1")
	})
}

// TestAOFServedBlockedPop: a pop served to a client blocked in BLPOP is
// logged as the LPOP it did, after the push that served it (the BLPOP
// itself changed nothing when it blocked); a BLPOP served at once is
// logged as an LPOP too, as Redis 7.0 does.
func TestAOFServedBlockedPop(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, Config{Dir: dir, AOF: AOFConfig{Enabled: true}})
	blocked, pusher := newRedisClient(t, srv), newRedisClient(t, srv)
	ctx := context.Background()
	done := make(chan []string)
	go func() { done <- blocked.BLPop(ctx, 0, "l").Val() }()
	waitFor(t, "the BLPOP blocks", func() bool {
		return strings.Contains(pusher.Info(ctx, "clients").Val(), "blocked_clients:1")
	})
	pusher.RPush(ctx, "l", "a", "b", "c")
	if got := <-done; len(got) != 2 || got[1] != "a" {
		t.Fatalf("BLPOP = %v", got)
	}
	pusher.BLPop(ctx, 0, "l")
	srv.Close()
	want := []string{"SELECT 0", "rpush l a b c", "LPOP l", "LPOP l"}
	if got := loggedCommands(t, dir); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("logged:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestAOFTimestamps: with aof-timestamp-enabled yes a "#TS:<unix>"
// annotation goes before the first command of each new second (none
// within one), a base of commands starts with one, and a restart loads
// the files, skipping them.
func TestAOFTimestamps(t *testing.T) {
	dir := t.TempDir()
	clock := store.NewManualClock(time.UnixMilli(1700000000000))
	srv := startServer(t, Config{Dir: dir, Clock: clock, AOF: AOFConfig{Enabled: true, Fsync: "always", Timestamps: true, NoRDBPreamble: true}})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	if v := c.ConfigGet(ctx, "aof-timestamp-enabled").Val(); v["aof-timestamp-enabled"] != "yes" {
		t.Fatalf("CONFIG GET = %v", v)
	}
	c.Set(ctx, "a", "1", 0)
	c.Incr(ctx, "a")
	clock.Add(1500 * time.Millisecond)
	c.Incr(ctx, "a")
	incr, _ := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof"))
	want := "#TS:1700000000\r\n*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nset\r\n$1\r\na\r\n$1\r\n1\r\n*2\r\n$4\r\nincr\r\n$1\r\na\r\n" +
		"#TS:1700000001\r\n*2\r\n$4\r\nincr\r\n$1\r\na\r\n"
	if string(incr) != want {
		t.Fatalf("incr file %q, want %q", incr, want)
	}
	c.Do(ctx, "bgrewriteaof")
	waitFor(t, "the rewrite", func() bool { return strings.Contains(c.Info(ctx, "persistence").Val(), "aof_rewrites:1") })
	base, _ := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.2.base.aof"))
	if !bytes.HasPrefix(base, []byte("#TS:")) {
		t.Fatalf("base %q does not start with #TS", base)
	}
	c.Set(ctx, "b", "2", 0)
	srv.Close()
	srv2 := startServer(t, Config{Dir: dir, AOF: AOFConfig{Enabled: true}})
	if got := newRedisClient(t, srv2).MGet(ctx, "a", "b").Val(); got[0] != "3" || got[1] != "2" {
		t.Fatalf("after a restart MGET a b = %v", got)
	}
}

// TestRewriteUnderWrites: a BGREWRITEAOF of a keyspace that clients keep
// changing while its snapshot is walked (in place, by replacement, by
// deletion, with TTLs) leaves a base and an incr file that load into what
// the server held at shutdown.
func TestRewriteUnderWrites(t *testing.T) {
	parallel(t)
	for _, preamble := range []bool{true, false} {
		t.Run(fmt.Sprintf("rdb preamble %v", preamble), func(t *testing.T) {
			dir := t.TempDir()
			srv := startServer(t, Config{Dir: dir, AOF: AOFConfig{Enabled: true, NoRDBPreamble: !preamble}})
			c := newRedisClient(t, srv)
			ctx := context.Background()
			const n = 5000
			pipe := c.Pipeline()
			for i := range n {
				pipe.Set(ctx, fmt.Sprint("s", i), i, 0)
				pipe.SAdd(ctx, fmt.Sprint("set", i%50), i)
				pipe.RPush(ctx, fmt.Sprint("l", i%50), i)
				pipe.HSet(ctx, fmt.Sprint("h", i%50), fmt.Sprint("f", i), i)
				pipe.ZAdd(ctx, fmt.Sprint("z", i%50), redis.Z{Score: float64(i), Member: fmt.Sprint("m", i)})
			}
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
			// Writes before the snapshot's first step, for certain: the
			// rewrite starts under the lock the test holds.
			srv.lock <- struct{}{}
			if err := srv.startRewrite(); err != nil {
				t.Fatal(err)
			}
			rc := srv.replayClient()
			for i := range 500 {
				for _, args := range [][]string{{"incr", fmt.Sprint("s", i)}, {"del", fmt.Sprint("s", n-1-i)}, {"sadd", fmt.Sprint("set", i%50), "early"},
					{"rpop", fmt.Sprint("l", i%50)}, {"hdel", fmt.Sprint("h", i%50), fmt.Sprint("f", i)}, {"zrem", fmt.Sprint("z", i%50), fmt.Sprint("m", i)},
					{"pexpire", fmt.Sprint("s", i+1000), "3600000"}} {
					srv.replay(rc, byteArgs(args))
				}
			}
			<-srv.lock
			// Then write until the rewrite is over, and at least one round.
			rounds := 0
			for ; rounds == 0 || strings.Contains(c.Info(ctx, "persistence").Val(), "aof_rewrite_in_progress:1"); rounds++ {
				round := rounds
				pipe := c.Pipeline()
				for i := range 200 {
					k := (round*200 + i) * 7 % n
					pipe.Incr(ctx, fmt.Sprint("s", k))
					pipe.SAdd(ctx, fmt.Sprint("set", k%50), "new", round)
					pipe.LPop(ctx, fmt.Sprint("l", k%50))
					pipe.HIncrBy(ctx, fmt.Sprint("h", k%50), "f0", 1)
					pipe.ZIncrBy(ctx, fmt.Sprint("z", k%50), 1, "m0")
					pipe.Del(ctx, fmt.Sprint("s", (k+1)%n))
					pipe.Expire(ctx, fmt.Sprint("s", (k+2)%n), time.Hour)
					pipe.Set(ctx, fmt.Sprint("s", (k+3)%n), 1_000_000+round, 0) // a number: a later round may INCR it
				}
				// A slow rewrite runs enough rounds to empty the lists: LPOP
				// then answers nil, which is no failure.
				cmds, _ := pipe.Exec(ctx)
				for _, cmd := range cmds {
					if err := cmd.Err(); err != nil && err != redis.Nil {
						t.Fatalf("%v: %v", cmd.Args(), err)
					}
				}
			}
			t.Logf("%d rounds of writes during the rewrite", rounds)
			if !strings.Contains(c.Info(ctx, "persistence").Val(), "aof_last_bgrewrite_status:ok") {
				t.Fatal("the rewrite failed")
			}
			want := keyspaceDump(t, c)
			srv.Close()
			srv2 := startServer(t, Config{Dir: dir, AOF: AOFConfig{Enabled: true}})
			got := keyspaceDump(t, newRedisClient(t, srv2))
			if len(got) != len(want) {
				t.Fatalf("%d keys after a restart, want %d", len(got), len(want))
			}
			for k, v := range want {
				if got[k] != v {
					t.Fatalf("key %s = %q after a restart, want %q", k, got[k], v)
				}
			}
		})
	}
}

func byteArgs(args []string) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = []byte(a)
	}
	return out
}

// TestAOFEvictedKeys: keys maxmemory evicts are logged as DEL, one by one
// (Redis's performEvictions with propagate_no_multi), so a restart does
// not bring them back.
func TestAOFEvictedKeys(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, Config{Dir: dir, AOF: AOFConfig{Enabled: true, Fsync: "always"}})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	value := strings.Repeat("v", 1000)
	pipe := c.Pipeline() // 2,000 fsyncs one round trip at a time took seconds
	for i := range 2000 {
		pipe.Set(ctx, fmt.Sprint("k", i), value, 0)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	used, _ := strconv.ParseInt(regexp.MustCompile(`used_memory:(\d+)`).FindStringSubmatch(c.Info(ctx, "memory").Val())[1], 10, 64)
	c.ConfigSet(ctx, "maxmemory-policy", "allkeys-random")
	c.ConfigSet(ctx, "maxmemory", strconv.FormatInt(used*3/4, 10))
	c.Set(ctx, "trigger", "1", 0)
	c.ConfigSet(ctx, "maxmemory", "0")
	evicted, _ := strconv.Atoi(regexp.MustCompile(`evicted_keys:(\d+)`).FindStringSubmatch(c.Info(ctx, "stats").Val())[1])
	if evicted == 0 {
		t.Fatal("nothing was evicted")
	}
	size := c.DBSize(ctx).Val()
	srv.Close()
	dels := 0
	for _, cmd := range loggedCommands(t, dir) {
		// Any key: allkeys-random may also evict "trigger", before the
		// next command (the CONFIG SET that lifts the limit).
		if strings.HasPrefix(cmd, "DEL ") {
			dels++
		}
	}
	if dels != evicted {
		t.Errorf("%d DELs logged for %d keys evicted", dels, evicted)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof"))
	if bytes.Contains(raw, []byte("MULTI")) {
		t.Errorf("evictions logged in MULTI/EXEC")
	}
	srv2 := startServer(t, Config{Dir: dir, AOF: AOFConfig{Enabled: true}})
	if got := newRedisClient(t, srv2).DBSize(ctx).Val(); got != size {
		t.Errorf("DBSIZE %d after a restart, want %d", got, size)
	}
}
