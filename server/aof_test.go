package server

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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
	srv := startServer(t, Config{Dir: dir, Clock: clock, AOF: AOFConfig{Enabled: true, Fsync: "always"}})
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

// TestBGRewriteAOFInProgress: a second BGREWRITEAOF while one runs gets
// Redis's error (inside one EXEC the first cannot have finished).
func TestBGRewriteAOFInProgress(t *testing.T) {
	srv := startServer(t, Config{Dir: t.TempDir(), AOF: AOFConfig{Enabled: true}})
	conn := dialConn(t, srv)
	conn.Write([]byte("MULTI\r\nBGREWRITEAOF\r\nBGREWRITEAOF\r\nEXEC\r\n"))
	want := "+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n+Background append only file rewriting started\r\n-ERR Background append only file rewriting already in progress\r\n"
	got := make([]byte, 0, len(want))
	buf := make([]byte, 512)
	for len(got) < len(want) {
		n, err := conn.Read(buf)
		if err != nil {
			t.Fatalf("read: %v (got %q)", err, got)
		}
		got = append(got, buf[:n]...)
	}
	if string(got) != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
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
