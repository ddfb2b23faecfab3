package rdb

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/store"
	"github.com/redis/go-redis/v9"
)

// Cross-checks with redis-server 7.0: it loads our files, we load its, and
// DUMP payloads are the same bytes.

var ctx = context.Background()

// describeRedis renders a Redis server's content as describe renders a
// store's, through ordinary commands (not through our decoder).
func describeRedis(t *testing.T, addr string, dbs int) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i := range dbs {
		c := redis.NewClient(&redis.Options{Addr: addr, DB: i})
		defer c.Close()
		keys, err := c.Keys(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			at, _ := c.Do(ctx, "PEXPIRETIME", k).Int64()
			if at < 0 {
				at = 0
			}
			enc := c.ObjectEncoding(ctx, k).Val()
			if enc == "raw" {
				enc = "embstr"
			}
			var val string
			switch typ := c.Type(ctx, k).Val(); typ {
			case "string":
				val = strconv.Quote(c.Get(ctx, k).Val())
			case "set":
				m := c.SMembers(ctx, k).Val()
				slices.Sort(m)
				val = strings.Join(m, ",")
			case "hash":
				var f []string
				for name, v := range c.HGetAll(ctx, k).Val() {
					f = append(f, name+"="+v)
				}
				slices.Sort(f)
				val = strings.Join(f, ",")
			case "list":
				var f []string
				for _, e := range c.LRange(ctx, k, 0, -1).Val() {
					f = append(f, strconv.Quote(e))
				}
				val = strings.Join(f, ",")
			case "zset":
				var f []string
				for _, z := range c.ZRangeWithScores(ctx, k, 0, -1).Val() {
					f = append(f, fmt.Sprint(z.Member, "=", z.Score))
				}
				val = strings.Join(f, ",")
			case "stream":
				val = describeRedisStream(c, k)
			default:
				val = typ
			}
			out[fmt.Sprint(i, ":", k)] = fmt.Sprint(at, " ", enc, " ", val)
		}
	}
	return out
}

// describeRedisStream is describeStream through XRANGE, XINFO STREAM and
// XINFO GROUPS.
func describeRedisStream(c *redis.Client, k string) string {
	entries, _ := c.Do(ctx, "XRANGE", k, "-", "+").Slice()
	info, _ := c.Do(ctx, "XINFO", "STREAM", k).Result()
	field := replyMap(info)
	var groups []string
	gs, _ := c.Do(ctx, "XINFO", "GROUPS", k).Slice()
	for _, g := range gs {
		m := replyMap(g)
		read := m["entries-read"]
		if read == nil {
			read = int64(-1)
		}
		groups = append(groups, fmt.Sprint(m["name"], " ", m["last-delivered-id"], " ", read, " ", m["pending"], " ", m["consumers"]))
	}
	if entries == nil {
		entries = []any(nil)
	}
	return fmt.Sprint(entries, " ", field["length"], " ", field["last-generated-id"], " ", field["recorded-first-entry-id"], " ",
		field["max-deleted-entry-id"], " ", field["entries-added"], " ", groups)
}

// replyMap reads a RESP3 map or a RESP2 array of pairs.
func replyMap(v any) map[string]any {
	out := map[string]any{}
	switch v := v.(type) {
	case map[any]any:
		for k, x := range v {
			out[fmt.Sprint(k)] = x
		}
	case []any:
		for j := 0; j+1 < len(v); j += 2 {
			out[fmt.Sprint(v[j])] = v[j+1]
		}
	}
	return out
}

func compare(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d keys, want %d", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %.150s, want %.150s", k, got[k], v)
		}
	}
}

func TestRedisLoadsOurFile(t *testing.T) {
	t.Parallel()
	redistest.SkipUnderRace(t)
	now := time.Now().UnixMilli()
	src := store.New(16, nil)
	fill(src, now)
	for _, opts := range []Options{
		{Compress: true, Checksum: true, Aux: []Aux{{"redis-ver", "7.0.15"}, {"redis-bits", "64"}, {"ctime", strconv.FormatInt(now/1000, 10)}, {"used-mem", "1000000"}, {"aof-base", "0"}}},
		{},
	} {
		file := saved(t, src, opts)
		srv := redistest.StartWith(t, func(_ int, dir string) []string {
			if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), file, 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"--dbfilename", "dump.rdb"}
		})
		compare(t, describeRedis(t, srv.Addr, 16), describe(src))
		out, err := exec.Command("redis-check-rdb", filepath.Join(srv.Dir, "dump.rdb")).CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("RDB looks OK!")) {
			t.Fatalf("redis-check-rdb: %v\n%s", err, out)
		}
	}
}

// redisFixture fills a Redis server with every type and encoding through
// commands, as a user would.
func redisFixture(t *testing.T, addr string) {
	for _, db := range []int{0, 3, 15} {
		c := redis.NewClient(&redis.Options{Addr: addr, DB: db})
		defer c.Close()
		cmds := [][]any{
			{"SET", "int", "12345"}, {"SET", "neg", "-9"}, {"SET", "big64", "9223372036854775807"},
			{"SET", "str", "hello"}, {"SET", "empty", ""}, {"SET", "lead0", "007"},
			{"SET", "comp", strings.Repeat("abc", 3000)}, {"SET", "ttl", "x", "PX", "3600000"},
			{"SET", "bin", string(bytes.Repeat([]byte{0, 255, 7}, 100000))},
			{"APPEND", "appended", "raw"}, {"PFADD", "hll", "a", "b", "c"},
			{"SADD", "intset", "1", "-5", "100000"}, {"SADD", "intset64", "1", "9000000000"},
			{"SADD", "strset", "a", "b", "c"}, {"EXPIRE", "strset", "1000"},
			{"HSET", "lphash", "f", "v", "n", "12", "big", "-70000"},
			{"RPUSH", "list", "a", "12", "-70000", ""}, {"LPUSH", "list", "head"}, {"RPUSH", "hugeelem", strings.Repeat("h", 20000)},
			{"ZADD", "lpzset", "1", "a", "2.5", "b", "-inf", "c", "1e300", "d"},
		}
		for i := range 700 {
			cmds = append(cmds, []any{"RPUSH", "biglist", fmt.Sprint("element-", i)},
				[]any{"SADD", "bigset", fmt.Sprint("m", i)}, []any{"SADD", "bigintset", i},
				[]any{"HSET", "bighash", fmt.Sprint("f", i), i}, []any{"ZADD", "bigzset", float64(i) / 7, fmt.Sprint("z", i)})
		}
		cmds = append(cmds, []any{"HSET", "longhash", "f", strings.Repeat("v", 100)}, []any{"ZADD", "longzset", 1, strings.Repeat("m", 100)})
		for i := 1; i <= 260; i++ {
			if i%9 == 0 {
				cmds = append(cmds, []any{"XADD", "stream", fmt.Sprint(i, "-1"), "other", strings.Repeat("y", i)})
			} else {
				cmds = append(cmds, []any{"XADD", "stream", fmt.Sprint(i, "-1"), "f", i, "g", "text"})
			}
		}
		cmds = append(cmds, []any{"XDEL", "stream", "5-1", "120-1"}, []any{"XTRIM", "stream", "MAXLEN", "240"},
			[]any{"XGROUP", "CREATE", "stream", "grp", "0"}, []any{"XGROUP", "CREATE", "stream", "late", "$"},
			[]any{"XREADGROUP", "GROUP", "grp", "alice", "COUNT", "3", "STREAMS", "stream", ">"},
			[]any{"XREADGROUP", "GROUP", "grp", "bob", "COUNT", "2", "STREAMS", "stream", ">"},
			[]any{"XACK", "stream", "grp", "22-1"}, []any{"XGROUP", "CREATECONSUMER", "stream", "grp", "carol"},
			[]any{"XADD", "emptystream", "1-1", "a", "1"}, []any{"XDEL", "emptystream", "1-1"},
			[]any{"XADD", "smallstream", "MAXLEN", "0", "5-5", "a", "1"})
		for _, cmd := range cmds {
			if err := c.Do(ctx, cmd...).Err(); err != nil {
				t.Fatalf("%v: %v", cmd[:2], err)
			}
		}
	}
}

func TestWeLoadRedisFile(t *testing.T) {
	t.Parallel()
	redistest.SkipUnderRace(t)
	for _, compression := range []string{"yes", "no"} {
		srv := redistest.Start(t, "--rdbcompression", compression)
		redisFixture(t, srv.Addr)
		c := redis.NewClient(&redis.Options{Addr: srv.Addr})
		defer c.Close()
		if err := c.Save(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		file, err := os.ReadFile(filepath.Join(srv.Dir, "dump.rdb"))
		if err != nil {
			t.Fatal(err)
		}
		s := store.New(16, nil)
		info, err := Load(bytes.NewReader(file), s, LoadOptions{Now: time.Now().UnixMilli()})
		if err != nil {
			t.Fatal(err)
		}
		if len(info.Aux) == 0 || info.Aux[0] != (Aux{"redis-ver", "7.0.15"}) {
			t.Logf("aux fields: %v", info.Aux)
		}
		compare(t, describe(s), describeRedis(t, srv.Addr, 16))
	}
}

// TestDumpBytes: our DUMP of a value equals Redis's byte for byte where
// Redis's encoding is deterministic (strings, integers, intsets,
// listpacks); for hashtables and skiplists, whose order is Redis's hash
// order, it must at least restore the same value.
func TestDumpBytes(t *testing.T) {
	t.Parallel()
	redistest.SkipUnderRace(t)
	srv := redistest.Start(t)
	redisFixture(t, srv.Addr)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer c.Close()
	for _, k := range c.Keys(ctx, "*").Val() {
		theirs, err := c.Dump(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		v, err := Restore([]byte(theirs), false, &store.DefaultEncodings)
		if err != nil {
			t.Fatalf("%s: restore Redis's payload: %v", k, err)
		}
		ours, err := Dump(v, true)
		if err != nil {
			t.Fatal(err)
		}
		switch v.Encoding() {
		case "hashtable", "skiplist":
			if back, err := Restore(ours, false, &store.DefaultEncodings); err != nil || describeValue(back) != describeValue(v) {
				t.Errorf("%s: our payload does not restore: %v", k, err)
			}
			// Redis must accept ours too.
			if err := c.RestoreReplace(ctx, k+":ours", 0, string(ours)).Err(); err != nil {
				t.Errorf("%s: Redis RESTORE of our payload: %v", k, err)
			}
			continue
		}
		if string(ours) != theirs {
			t.Errorf("%s (%s): DUMP differs\nours   %q\ntheirs %q", k, v.Encoding(), ours, theirs)
		}
	}
}
