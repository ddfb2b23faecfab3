package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/rdb"
	"github.com/floodgate/floodgate/store"
	"github.com/redis/go-redis/v9"
)

// loadFile reads an RDB file into a fresh store.
func loadFile(t *testing.T, path string) *store.Store {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := store.New(16, nil)
	if _, err := rdb.Load(f, s, rdb.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	return s
}

func bgsaveDone(t testing.TB, srv *Server) {
	t.Helper()
	waitFor(t, "the background save to finish", func() bool {
		var running bool
		srv.Do(func() { running = srv.persist.bgsave != nil })
		return !running
	})
}

// TestBGSAVEIsPointInTime: writes sent while a background save runs (in
// place, replacing, deleting, creating, expiring, flushing, from scripts)
// do not reach the file, which holds the keyspace as it was at BGSAVE.
func TestBGSAVEIsPointInTime(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, Config{Dir: dir})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	const n = 20000
	srv.Do(func() {
		for i := range n {
			srv.store.DB(i%3).Set([]byte("k"+strconv.Itoa(i)), store.NewInt(int64(i)), 0)
		}
		h := store.NewHash()
		h.Set([]byte("f"), []byte("v"), &store.DefaultEncodings)
		srv.store.DB(0).Set([]byte("hash"), h, 0)
		l := store.NewList()
		for i := range 100 {
			l.PushBack([]byte(strconv.Itoa(i)))
		}
		srv.store.DB(0).Set([]byte("list"), l, 0)
	})
	// Both BGSAVEs in one write, so one read and one batch under the lock:
	// the save cannot end between them, as it could between two round trips
	// on a busy machine. (Not in MULTI: EXEC schedules a BGSAVE, as Redis's
	// in_exec does.)
	var first, second *redis.Cmd
	c.Pipelined(ctx, func(p redis.Pipeliner) error {
		first, second = p.Do(ctx, "BGSAVE"), p.Do(ctx, "BGSAVE")
		return nil
	})
	if err := first.Err(); err != nil {
		t.Fatal(err)
	}
	if err := second.Err(); err == nil || err.Error() != "ERR Background save already in progress" {
		t.Fatalf("second BGSAVE: %v", err)
	}
	// Pace the writes with the saver: each round lets it take a step.
	for i := 0; ; i++ {
		var running bool
		srv.Do(func() { running = srv.persist.bgsave != nil })
		if !running {
			break
		}
		k := "k" + strconv.Itoa(i%n*3%n)
		c.Do(ctx, "INCRBY", k, 1000000)
		c.Do(ctx, "SET", "new"+strconv.Itoa(i), 1)
		c.Do(ctx, "EVAL", "redis.call('HSET', KEYS[1], 'f', ARGV[1]) return redis.call('DEL', KEYS[2])", 2, "hash", "k"+strconv.Itoa((i*7)%n), i)
		c.Do(ctx, "PEXPIRE", "k"+strconv.Itoa((i*11)%n), 1)
		c.Do(ctx, "LPOP", "list")
		c.Do(ctx, "RPUSH", "list", "new")
		if i == 200 {
			c.Do(ctx, "FLUSHDB")
		}
	}
	s := loadFile(t, filepath.Join(dir, "dump.rdb"))
	total := 0
	for d := range 3 {
		total += s.DB(d).Len()
	}
	if total != n+2 {
		t.Fatalf("file holds %d keys, want %d", total, n+2)
	}
	if l := s.DB(0).GetString("list"); l == nil || l.Value().(*store.List).Len() != 100 {
		t.Fatal("list missing or changed")
	} else if first, _ := l.Value().(*store.List).Index(0); string(first) != "0" {
		t.Fatalf("list starts with %q", first)
	}
	for i := range n {
		e := s.DB(i % 3).GetString("k" + strconv.Itoa(i))
		if e == nil || s.DB(i%3).ExpireAt(e) != 0 {
			t.Fatalf("k%d missing or with a TTL", i)
		}
		if v, _ := e.Value().(*store.String).Int(); v != int64(i) {
			t.Fatalf("k%d = %d in the file", i, v)
		}
	}
	if h := s.DB(0).GetString("hash"); h == nil {
		t.Fatal("hash missing")
	} else if v, _ := h.Value().(*store.Hash).Get([]byte("f")); v != "v" {
		t.Fatalf("hash field = %q", v)
	}
	info := c.Info(ctx, "persistence").Val()
	for _, want := range []string{"rdb_bgsave_in_progress:0", "rdb_last_bgsave_status:ok", "rdb_saves:1"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO lacks %s:\n%s", want, info)
		}
	}
	// The snapshot's begin stands for the fork: counted as one, and, as
	// Redis's, cleared by RESETSTAT with the save count.
	if stats := c.Info(ctx, "stats").Val(); !strings.Contains(stats, "total_forks:1\r\n") {
		t.Errorf("INFO stats after one BGSAVE:\n%s", stats)
	}
	c.ConfigResetStat(ctx)
	all := c.Info(ctx, "stats", "persistence").Val()
	for _, want := range []string{"total_forks:0\r\n", "latest_fork_usec:0\r\n", "rdb_saves:0\r\n"} {
		if !strings.Contains(all, want) {
			t.Errorf("INFO after RESETSTAT lacks %q", want)
		}
	}
}

func TestSavePointsAndShutdown(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	srv := startServer(t, Config{Dir: dir, Save: "1 2"})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	c.Set(ctx, "a", 1, 0)
	c.Set(ctx, "b", 2, 0)
	waitFor(t, "a save point's background save", func() bool {
		return strings.Contains(c.Info(ctx, "persistence").Val(), "rdb_saves:1")
	})
	bgsaveDone(t, srv)
	if s := loadFile(t, filepath.Join(dir, "dump.rdb")); s.DB(0).Len() != 2 {
		t.Fatalf("file holds %d keys", s.DB(0).Len())
	}
	if got := c.ConfigGet(ctx, "save").Val()["save"]; got != "1 2" {
		t.Fatalf("CONFIG GET save = %q", got)
	}
	c.Set(ctx, "c", 3, 0)
	if err := c.Do(ctx, "SHUTDOWN").Err(); err != nil && !strings.Contains(err.Error(), "EOF") {
		t.Fatal(err)
	}
	<-srv.Done()
	if s := loadFile(t, filepath.Join(dir, "dump.rdb")); s.DB(0).Len() != 3 {
		t.Fatalf("SHUTDOWN saved %d keys", s.DB(0).Len())
	}
}

// TestBGSAVEFailure: a directory that cannot be written fails the save;
// INFO says so, and with save points set writes are refused (MISCONF).
func TestBGSAVEFailure(t *testing.T) {
	srv := startServer(t, Config{Dir: filepath.Join(t.TempDir(), "missing"), Save: "3600 1"})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	if err := c.Do(ctx, "SAVE").Err(); err == nil || err.Error() != "ERR" {
		t.Fatalf("SAVE: %v", err)
	}
	c.Do(ctx, "BGSAVE")
	bgsaveDone(t, srv)
	if info := c.Info(ctx, "persistence").Val(); !strings.Contains(info, "rdb_last_bgsave_status:err") {
		t.Fatalf("INFO:\n%s", info)
	}
	if err := c.Set(ctx, "k", 1, 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "MISCONF ") {
		t.Fatalf("SET after a failed BGSAVE: %v", err)
	}
	if err := c.Get(ctx, "k").Err(); err == nil || err.Error() != "redis: nil" {
		t.Fatalf("GET: %v", err)
	}
	c.ConfigSet(ctx, "stop-writes-on-bgsave-error", "no")
	if err := c.Set(ctx, "k", 1, 0).Err(); err != nil {
		t.Fatal(err)
	}
}

// TestRedisCliRDB: `redis-cli --rdb` fetches a snapshot that loads.
func TestRedisCliRDB(t *testing.T) {
	if _, err := exec.LookPath("redis-cli"); err != nil {
		t.Skip("redis-cli not installed")
	}
	srv := startServer(t, Config{})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	for i := range 100 {
		c.Set(ctx, fmt.Sprint("key", i), i, 0)
	}
	file := filepath.Join(t.TempDir(), "fetched.rdb")
	_, port, _ := strings.Cut(srv.Addr(), ":")
	if out, err := exec.Command("redis-cli", "-p", port, "--rdb", file).CombinedOutput(); err != nil || !strings.Contains(string(out), "Transfer finished with success") {
		t.Fatalf("redis-cli --rdb: %v\n%s", err, out)
	}
	if s := loadFile(t, file); s.DB(0).Len() != 100 {
		t.Fatalf("fetched %d keys", s.DB(0).Len())
	}
}

// TestRedisLoadsBGSAVE: redis-server 7.0 loads a file floodgate's BGSAVE
// wrote (the snapshot path) and holds the same keys, values and TTLs, and
// redis-check-rdb accepts it.
func TestRedisLoadsBGSAVE(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	srv := startServer(t, Config{Dir: dir})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	want := map[int][]string{} // keys by database
	for db := range 3 {
		c.Do(ctx, "SELECT", db*5)
		for i := range 300 {
			k := fmt.Sprintf("key:%d:%d", db, i)
			switch i % 5 {
			case 0:
				c.Set(ctx, k, i, 0)
			case 1:
				c.Set(ctx, k, strings.Repeat("v", i), 0)
			case 2:
				c.HSet(ctx, k, "f", i, "g", "x")
			case 3:
				c.SAdd(ctx, k, i, i+1, "m")
			case 4:
				c.ZAdd(ctx, k, redis.Z{Score: float64(i) / 3, Member: "a"}, redis.Z{Score: 1, Member: "b"})
			}
			if i%3 == 0 {
				c.Do(ctx, "PEXPIREAT", k, 4102444800000+i)
			}
			want[db*5] = append(want[db*5], k)
		}
	}
	c.Do(ctx, "SELECT", 0)
	c.Do(ctx, "BGSAVE")
	bgsaveDone(t, srv)
	file, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("redis-check-rdb", filepath.Join(dir, "dump.rdb")).CombinedOutput(); err != nil || !strings.Contains(string(out), "RDB looks OK") {
		t.Fatalf("redis-check-rdb: %v\n%s", err, out)
	}
	r := redistest.StartWith(t, func(_ int, rdir string) []string {
		os.WriteFile(filepath.Join(rdir, "dump.rdb"), file, 0o644)
		return []string{"--dbfilename", "dump.rdb"}
	})
	// One client per database on each side and the commands in pipelines:
	// a connection per key made this test's 7,000 round trips, not the
	// comparison, what took its time on a loaded machine.
	for db, keys := range want {
		ours := redis.NewClient(patient(&redis.Options{Addr: srv.Addr(), DB: db}))
		theirs := redis.NewClient(&redis.Options{Addr: r.Addr, DB: db})
		defer ours.Close()
		defer theirs.Close()
		encodings := pipelined(t, ours, func(k string) [][]any { return [][]any{{"OBJECT", "ENCODING", k}} }, keys)
		checks := func(k string) [][]any {
			value := []any{"DUMP", k} // byte for byte where the encoding is deterministic
			if encodings[k][0] == "hashtable" {
				value = []any{"SORT", k, "ALPHA"} // a hashtable's order is the server's own
			}
			return [][]any{{"TYPE", k}, value, {"PEXPIRETIME", k}, {"OBJECT", "ENCODING", k}}
		}
		a, b := pipelined(t, ours, checks, keys), pipelined(t, theirs, checks, keys)
		for _, k := range keys {
			for i, cmd := range checks(k) {
				if a[k][i] != b[k][i] {
					t.Fatalf("db %d %v: floodgate %q, Redis %q", db, cmd, a[k][i], b[k][i])
				}
			}
		}
	}
}

// pipelined sends cmds(k) for every key in one pipeline and returns each
// key's replies as fmt.Sprint shows them (a failed command's as nil).
func pipelined(t *testing.T, c *redis.Client, cmds func(k string) [][]any, keys []string) map[string][]string {
	t.Helper()
	ctx := context.Background()
	pipe := c.Pipeline()
	sent := map[string][]*redis.Cmd{}
	for _, k := range keys {
		for _, cmd := range cmds(k) {
			sent[k] = append(sent[k], pipe.Do(ctx, cmd...))
		}
	}
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		var rerr redis.Error
		if !errors.As(err, &rerr) {
			t.Fatal(err) // the connection's, not a command's
		}
	}
	got := map[string][]string{}
	for k, replies := range sent {
		for _, r := range replies {
			v, _ := r.Result()
			got[k] = append(got[k], fmt.Sprint(v))
		}
	}
	return got
}

// TestBGSAVEUnderConcurrentWrites: clients hammer the keyspace from several
// connections at once, with no pacing, while the saver encodes outside the
// lock; the file holds exactly the keyspace of the instant BGSAVE began
// (every value, byte for byte as DUMP has it, and every TTL). Under -race it
// also shows the saver never reads a value a command is changing.
//
// The writers are busy before BGSAVE starts and stop when it ends, so
// writes meet the save however fast or slow the machine is. The save's
// length is its steps (stepMin keys each at least), each a hand-over of the
// lock that on a loaded machine waits for the OS to run the saver's thread:
// with 30,000 keys (470 steps under -race) the save took 8 s at load 12,
// and the server package passed go test's 10-minute timeout at load 20
// while this test ran; 10,000 keys still make 150 steps under -race.
func TestBGSAVEUnderConcurrentWrites(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	srv := startServer(t, Config{Dir: dir})
	ctx := context.Background()
	const n = 10000
	key := func(i int) string { return "k" + strconv.Itoa(i%n) }
	srv.Do(func() {
		for i := range n {
			db := srv.store.DB(i % 2)
			k := []byte(key(i))
			var at int64
			if i%4 == 0 {
				at = srv.store.Now() + 3_600_000 + int64(i)
			}
			switch i % 7 {
			case 5:
				set := store.NewSet()
				set.Add([]byte(strconv.Itoa(i)), &store.DefaultEncodings)
				set.Add([]byte("7"), &store.DefaultEncodings)
				db.Set(k, set, at)
			case 6:
				z := store.NewZSet()
				z.Add([]byte("m"), float64(i), &store.DefaultEncodings)
				z.Add([]byte("n"), 0.5, &store.DefaultEncodings)
				db.Set(k, z, at)
			case 0, 1:
				db.Set(k, store.NewInt(int64(i)), at)
			case 2:
				db.Set(k, store.NewString([]byte(strings.Repeat("v", i%50))), at)
			case 3:
				h := store.NewHash()
				h.Set([]byte("f"), []byte(strconv.Itoa(i)), &store.DefaultEncodings)
				db.Set(k, h, at)
			case 4:
				l := store.NewList()
				l.PushBack([]byte(strconv.Itoa(i)))
				db.Set(k, l, at)
			}
		}
	})
	stop := make(chan struct{})
	var wg, writing sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		writing.Add(1)
		go func() {
			defer wg.Done()
			c := newRedisClient(t, srv)
			for i := w; ; i += 4 {
				if i == w+4 {
					writing.Done() // its first pipeline went through
				}
				select {
				case <-stop:
					return
				default:
				}
				k, k2 := key(i*7919), key(i*104729+1)
				c.Do(ctx, "SELECT", i%2)
				pipe := c.Pipeline()
				switch i % 13 {
				case 9:
					pipe.SAdd(ctx, k, "member", i)
					pipe.SMembers(ctx, k2)
				case 10:
					pipe.ZAdd(ctx, k, redis.Z{Score: 1, Member: i})
					pipe.ZIncrBy(ctx, k2, 2, "m")
				case 11:
					pipe.ZRangeWithScores(ctx, k, 0, -1)
					pipe.HGetAll(ctx, k2)
				case 12:
					pipe.LRange(ctx, k, 0, -1)
					pipe.SRem(ctx, k2, "7")
				case 0:
					pipe.IncrBy(ctx, k, 1000)
				case 1:
					pipe.Append(ctx, k, "x")
				case 2:
					pipe.HSet(ctx, k, "f", "changed", "g", i)
				case 3:
					pipe.RPush(ctx, k, "new")
					pipe.LPop(ctx, k)
				case 4:
					pipe.Del(ctx, k)
					pipe.Set(ctx, "fresh"+strconv.Itoa(i), i, 0)
				case 5:
					pipe.PExpire(ctx, k, time.Hour)
					pipe.Persist(ctx, k2)
				case 6:
					pipe.Rename(ctx, k, k2)
				case 7:
					pipe.Eval(ctx, "redis.call('INCR', KEYS[1]) redis.call('SET', KEYS[2], 'by-script') return 1", []string{k, k2})
				case 8:
					pipe.Copy(ctx, k, k2, i%2, true)
				}
				pipe.Exec(ctx) // wrong types and missing keys are expected
			}
		}()
	}
	writing.Wait()
	// The state at BGSAVE, taken in the same hold of the lock that starts it.
	want := map[string]string{}
	srv.Do(func() {
		for d := range 2 {
			db := srv.store.DB(d)
			db.Each(func(e *store.Entry) {
				b, err := rdb.Dump(e.Value(), false)
				if err != nil {
					t.Error(err)
				}
				want[fmt.Sprint(d, "/", e.Key(), "/", db.ExpireAt(e))] = string(b)
			})
		}
		if err := srv.startBgsave(); err != nil {
			t.Error(err)
		}
	})
	bgsaveDone(t, srv)
	close(stop)
	wg.Wait()
	s := loadFile(t, filepath.Join(dir, "dump.rdb"))
	got := 0
	for d := range 2 {
		db := s.DB(d)
		db.Each(func(e *store.Entry) {
			got++
			id := fmt.Sprint(d, "/", e.Key(), "/", db.ExpireAt(e))
			b, _ := rdb.Dump(e.Value(), false)
			if w, ok := want[id]; !ok {
				t.Errorf("%s in the file, not in the keyspace at BGSAVE", id)
			} else if w != string(b) {
				t.Errorf("%s = %q in the file, want %q", id, b, w)
			}
		})
	}
	if got != len(want) {
		t.Fatalf("file holds %d keys, want %d", got, len(want))
	}
}

// TestShutdownWhenTheSaveFails: SHUTDOWN does not exit when its save fails
// (Redis's reply, the keyspace still served); FORCE exits anyway, and so
// does NOSAVE.
func TestShutdownWhenTheSaveFails(t *testing.T) {
	for _, last := range []string{"FORCE", "NOSAVE"} {
		srv := startServer(t, Config{Dir: filepath.Join(t.TempDir(), "missing"), Save: "3600 1"})
		c := newRedisClient(t, srv)
		ctx := context.Background()
		c.Set(ctx, "k", "v", 0)
		if err := c.Do(ctx, "SHUTDOWN").Err(); err == nil || err.Error() != "ERR Errors trying to SHUTDOWN. Check logs." {
			t.Fatalf("SHUTDOWN: %v", err)
		}
		if got := c.Get(ctx, "k").Val(); got != "v" {
			t.Fatalf("GET after the failed SHUTDOWN: %q", got)
		}
		if err := c.Do(ctx, "SHUTDOWN", last).Err(); err != nil && !strings.Contains(err.Error(), "EOF") {
			t.Fatalf("SHUTDOWN %s: %v", last, err)
		}
		<-srv.Done()
	}
}

// TestBGSAVEInExec: BGSAVE inside a transaction cannot start a save there,
// so it is scheduled, as Redis's bgsaveCommand does with server.in_exec,
// and the save then runs from the cron.
func TestBGSAVEInExec(t *testing.T) {
	srv := startServer(t, Config{Dir: t.TempDir()})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	c.Set(ctx, "k", "v", 0)
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.BgSave(ctx)
		return nil
	})
	if err != nil || cmds[0].(*redis.StatusCmd).Val() != "Background saving scheduled" {
		t.Fatalf("BGSAVE in EXEC: %v %v", cmds, err)
	}
	waitFor(t, "the scheduled save", func() bool {
		info := c.Info(ctx, "persistence").Val()
		return strings.Contains(info, "rdb_bgsave_in_progress:0") && strings.Contains(info, "rdb_changes_since_last_save:0")
	})
}
