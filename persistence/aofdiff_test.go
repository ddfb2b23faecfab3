package persistence

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// aofStep is one step of a differential AOF test: the commands run on
// the main client, after block (if any) has been sent on a second client
// and has blocked; the step is over once every reply is in.
type aofStep struct {
	block  []any
	cmds   [][]any
	random bool // the servers pick members at random: compare names and keys only
}

// run runs the step against p and returns what its incremental AOF file
// gained, as commands.
func (st aofStep) run(t *testing.T, p *proc, incr *aofTail) []string {
	t.Helper()
	ctx := context.Background()
	var blocked chan error
	if st.block != nil {
		bc := redis.NewClient(&redis.Options{Addr: p.addr, MaxRetries: -1, ReadTimeout: -1})
		defer bc.Close()
		before := blockedClients(t, p)
		blocked = make(chan error, 1)
		go func() { blocked <- bc.Do(ctx, st.block...).Err() }()
		redistest.Eventually(t, fmt.Sprint(st.block, " blocks"), func() bool { return blockedClients(t, p) > before })
	}
	for _, c := range st.cmds {
		// Errors are part of what is compared: a refused command logs nothing.
		p.client.Do(ctx, c...)
	}
	if blocked != nil {
		<-blocked // its reply may be an error (WRONGTYPE): what is compared is the log
	}
	return incr.next(t)
}

func blockedClients(t *testing.T, p *proc) int {
	info := p.client.Info(context.Background(), "clients").Val()
	m := regexp.MustCompile(`blocked_clients:(\d+)`).FindStringSubmatch(info)
	if m == nil {
		t.Fatalf("no blocked_clients in INFO:\n%s", info)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// aofTail reads what a server's current incremental AOF file gains.
type aofTail struct {
	path string
	off  int64
}

func newAOFTail(t *testing.T, dir string) *aofTail {
	t.Helper()
	m, err := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	var incr string
	for _, line := range strings.Split(string(m), "\n") {
		f := strings.Fields(line)
		if len(f) == 6 && f[5] == "i" {
			incr = f[1]
		}
	}
	if incr == "" {
		t.Fatalf("no incr file in the manifest:\n%s", m)
	}
	path := filepath.Join(dir, "appendonlydir", incr)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return &aofTail{path: path, off: st.Size()}
}

func (a *aofTail) next(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(a.path)
	if err != nil {
		t.Fatal(err)
	}
	added := data[a.off:]
	a.off = int64(len(data))
	cmds, err := parseCommands(added)
	if err != nil {
		t.Fatalf("%s: %v in %q", a.path, err, added)
	}
	return cmds
}

// parseCommands reads RESP arrays of bulk strings, as an AOF holds them,
// each as its arguments joined by spaces (quoted where not plain).
func parseCommands(b []byte) ([]string, error) {
	r := bufio.NewReader(bytes.NewReader(b))
	var out []string
	for {
		line, err := r.ReadString('\n')
		if line == "" && err != nil {
			return out, nil
		}
		if strings.HasPrefix(line, "#") { // an annotation
			out = append(out, strings.TrimSpace(line))
			continue
		}
		if !strings.HasPrefix(line, "*") {
			return nil, fmt.Errorf("expected an array, got %q", line)
		}
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		args := make([]string, n)
		for i := range args {
			hdr, err := r.ReadString('\n')
			if err != nil || !strings.HasPrefix(hdr, "$") {
				return nil, fmt.Errorf("expected a bulk string, got %q", hdr)
			}
			size, _ := strconv.Atoi(strings.TrimSpace(hdr[1:]))
			buf := make([]byte, size+2)
			if _, err := io.ReadFull(r, buf); err != nil {
				return nil, err
			}
			args[i] = string(buf[:size])
		}
		out = append(out, strings.Join(args, " "))
	}
}

// normalize makes two servers' logs comparable: a millisecond time within
// a day of now (an expiry computed from a relative TTL) becomes <ms>; the
// first #TS annotation becomes #TS:<s> and later ones go (where a new
// second starts differs between two runs); and for a random step only the
// command name and key are kept.
func normalize(cmds []string, random bool) []string {
	now := time.Now().UnixMilli()
	out := make([]string, 0, len(cmds))
	stamped := false
	for _, c := range cmds {
		if strings.HasPrefix(c, "#TS:") {
			if !stamped {
				out = append(out, "#TS:<s>")
			}
			stamped = true
			continue
		}
		f := strings.Split(c, " ")
		for j, a := range f {
			if n, err := strconv.ParseInt(a, 10, 64); err == nil && n > now-86400000 && n < now+86400000 && len(a) == 13 {
				f[j] = "<ms>"
			}
		}
		if random && len(f) > 2 {
			f = append(f[:2], "?")
		}
		out = append(out, strings.Join(f, " "))
	}
	return out
}

// dumpHello is Redis 7.0's DUMP of the string "hello".
const dumpHello = "\x00\x05hello\n\x00cr\xdfve4 \n"

// aofFamilies are the differential cases: every write command family,
// the commands Redis logs otherwise than as they came, and blocked
// clients served by a later push. Keys are distinct across families, so
// the steps run one after another on one pair of servers.
var aofFamilies = map[string][]aofStep{
	"strings": {
		{cmds: [][]any{{"set", "s", "v"}, {"set", "s", "w", "get"}, {"set", "s", "x", "GET", "keepttl"}}},
		{cmds: [][]any{{"set", "s2", "v", "ex", "100"}, {"set", "s3", "v", "px", "100000", "get"}, {"set", "s4", "v", "exat", "4102444800"}, {"set", "s5", "v", "pxat", "4102444800000", "nx"}}},
		{cmds: [][]any{{"set", "s6", "v", "nx"}, {"set", "s6", "v", "nx"}, {"setnx", "s7", "v"}, {"setex", "s8", "100", "v"}, {"psetex", "s9", "100000", "v"}}},
		{cmds: [][]any{{"getset", "s", "y"}, {"getdel", "s"}, {"getdel", "s"}, {"getex", "s2"}, {"getex", "s2", "ex", "50"}, {"getex", "s2", "persist"}, {"getex", "s2", "persist"}, {"getex", "s3", "pxat", "1"}}},
		{cmds: [][]any{{"incr", "n"}, {"incrby", "n", "5"}, {"decr", "n"}, {"decrby", "n", "2"}, {"incrbyfloat", "fl", "1.5"}, {"incrbyfloat", "fl", "1e2"}}},
		{cmds: [][]any{{"mset", "a", "1", "b", "2"}, {"msetnx", "a", "1", "c", "3"}, {"msetnx", "d", "4", "e", "5"}, {"append", "a", "x"}, {"setrange", "a", "5", "y"}}},
		{cmds: [][]any{{"setbit", "bits", "7", "1"}, {"bitop", "or", "bits2", "bits", "a"}, {"bitfield", "bits", "set", "u8", "0", "255"}, {"bitfield", "bits", "get", "u8", "0"}}},
	},
	"keys": {
		{cmds: [][]any{{"set", "k", "v"}, {"expire", "k", "100"}, {"expire", "k", "200", "gt"}, {"expire", "k", "50", "gt"}, {"pexpire", "k", "300000", "XX"}, {"expireat", "k", "4102444800"}, {"pexpireat", "k", "4102444800000", "lt"}}},
		{cmds: [][]any{{"persist", "k"}, {"persist", "k"}, {"expire", "k", "-1"}, {"set", "k", "v"}, {"pexpireat", "k", "1"}}},
		{cmds: [][]any{{"set", "k", "v"}, {"rename", "k", "k2"}, {"renamenx", "k2", "k3"}, {"copy", "k3", "k4"}, {"move", "k4", "3"}, {"del", "k3", "nokey"}, {"unlink", "k2"}, {"touch", "k"}}},
		{cmds: [][]any{{"select", "2"}, {"set", "in2", "v"}, {"select", "0"}, {"swapdb", "0", "2"}, {"swapdb", "0", "2"}}},
	},
	"lists": {
		{cmds: [][]any{{"rpush", "l", "a", "b", "c", "d", "e"}, {"lpush", "l", "z"}, {"rpushx", "l", "f"}, {"lpushx", "nol", "f"}, {"linsert", "l", "before", "c", "bb"}, {"lset", "l", "0", "y"}, {"lrem", "l", "1", "bb"}, {"ltrim", "l", "0", "5"}}},
		{cmds: [][]any{{"lpop", "l"}, {"rpop", "l", "2"}, {"lmove", "l", "l2", "LEFT", "right"}, {"rpoplpush", "l", "l2"}, {"lmpop", "2", "nol", "l2", "right", "count", "5"}, {"lmpop", "1", "l", "left"}}},
		{cmds: [][]any{{"rpush", "bl", "a", "b", "c"}, {"blpop", "nol", "bl", "0"}, {"brpop", "bl", "0"}, {"blmpop", "0", "1", "bl", "LEFT", "COUNT", "9"}}},
		{cmds: [][]any{{"rpush", "bl", "a", "b"}, {"blmove", "bl", "bl2", "RIGHT", "LEFT", "0"}, {"brpoplpush", "bl", "bl2", "0"}, {"multi"}, {"blpop", "bl2", "0"}, {"exec"}}},
	},
	"blocked": {
		{block: []any{"blpop", "w1", "0"}, cmds: [][]any{{"rpush", "w1", "a", "b"}}},
		{block: []any{"brpop", "w2", "0"}, cmds: [][]any{{"rpush", "w2", "a", "b"}}},
		{block: []any{"blmpop", "0", "1", "w3", "right", "count", "2"}, cmds: [][]any{{"rpush", "w3", "a", "b", "c"}}},
		{block: []any{"blmpop", "0", "1", "w4", "left", "count", "5"}, cmds: [][]any{{"rpush", "w4", "a", "b"}}},
		{block: []any{"blmove", "w5", "w6", "RIGHT", "LEFT", "0"}, cmds: [][]any{{"rpush", "w5", "a", "b"}}},
		{block: []any{"brpoplpush", "w7", "w8", "0"}, cmds: [][]any{{"lpush", "w7", "a"}}},
		{block: []any{"bzpopmin", "w9", "0"}, cmds: [][]any{{"zadd", "w9", "1", "a", "2", "b"}}},
		{block: []any{"bzpopmax", "w10", "0"}, cmds: [][]any{{"zadd", "w10", "1", "a"}}},
		{block: []any{"bzmpop", "0", "1", "w11", "min", "count", "3"}, cmds: [][]any{{"zadd", "w11", "1", "a", "2", "b"}}},
		{block: []any{"blpop", "w12", "0"}, cmds: [][]any{{"multi"}, {"rpush", "w12", "a"}, {"set", "w12x", "1"}, {"exec"}}},
		{block: []any{"blpop", "w13", "0"}, cmds: [][]any{{"eval", "redis.call('rpush', KEYS[1], 'a', 'b') return 1", "1", "w13"}}},
		{block: []any{"blmove", "w14", "w15", "left", "right", "0"}, cmds: [][]any{{"set", "w15", "string"}, {"rpush", "w14", "a"}}},
		{block: []any{"blpop", "w16", "0"}, cmds: [][]any{{"rpush", "w16tmp", "a", "b"}, {"rename", "w16tmp", "w16"}}},
		{block: []any{"blpop", "nothere", "w17", "0"}, cmds: [][]any{{"lpush", "w17", "a"}}},
		{block: []any{"blmove", "w18", "w18", "right", "left", "0"}, cmds: [][]any{{"rpush", "w18", "a", "b"}}},
	},
	"sets": {
		{cmds: [][]any{{"sadd", "st", "a", "b", "c"}, {"srem", "st", "a", "x"}, {"smove", "st", "st2", "b"}, {"sinterstore", "st3", "st", "st2"}, {"sunionstore", "st4", "st", "st2"}, {"sdiffstore", "st5", "st", "st2"}}},
		{cmds: [][]any{{"sadd", "one", "m"}, {"spop", "one"}, {"spop", "one"}, {"sadd", "two", "1", "2"}, {"spop", "two", "5"}, {"spop", "two", "0"}, {"sadd", "three", "a", "b", "c"}, {"spop", "three", "3"}}},
		{cmds: [][]any{{"sadd", "rs", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}, {"spop", "rs"}}, random: true},
		{cmds: [][]any{{"spop", "rs", "2"}}, random: true},
		{cmds: [][]any{{"spop", "rs", "6"}}, random: true},
		{cmds: [][]any{{"sadd", "is", "1", "2", "3", "4", "5", "6", "7"}, {"spop", "is", "6"}}, random: true},
		{cmds: [][]any{{"sadd", "sc", "a", "b", "c", "d"}, {"eval", "return redis.call('spop', KEYS[1])", "1", "sc"}}, random: true},
	},
	"zsets": {
		{cmds: [][]any{{"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d"}, {"zadd", "z", "nx", "ch", "5", "a", "6", "e"}, {"zincrby", "z", "1.5", "a"}, {"zrem", "z", "e"}, {"zremrangebyrank", "z", "0", "0"}, {"zremrangebyscore", "z", "10", "20"}}},
		{cmds: [][]any{{"zpopmin", "z"}, {"zpopmax", "z", "1"}, {"zadd", "z2", "1", "x", "2", "y", "3", "w"}, {"zmpop", "2", "noz", "z2", "max", "count", "2"}, {"zmpop", "1", "z2", "min"}, {"bzpopmin", "z", "0"}, {"zadd", "z3", "1", "a"}, {"bzmpop", "0", "1", "z3", "MAX", "COUNT", "4"}}},
		{cmds: [][]any{{"zadd", "za", "1", "a", "2", "b"}, {"zunionstore", "zu", "1", "za"}, {"zinterstore", "zi", "2", "za", "zu"}, {"zrangestore", "zr", "za", "0", "-1"}, {"zdiffstore", "zd", "1", "za"}}},
	},
	"hashes": {
		{cmds: [][]any{{"hset", "h", "a", "1", "b", "2"}, {"hsetnx", "h", "a", "3"}, {"hsetnx", "h", "c", "3"}, {"hmset", "h", "d", "4"}, {"hincrby", "h", "a", "5"}, {"hincrbyfloat", "h", "b", "0.5"}, {"hdel", "h", "c", "nofield"}}},
	},
	"geo": {
		{cmds: [][]any{{"geoadd", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"}, {"geoadd", "g", "NX", "CH", "13.5", "38.2", "Palermo", "14", "37", "Other"}, {"geosearchstore", "g2", "g", "fromlonlat", "15", "37", "byradius", "200", "km", "asc"}}},
	},
	"hll": {
		{cmds: [][]any{{"pfadd", "hll", "a", "b", "c"}, {"pfcount", "hll"}, {"pfcount", "hll"}, {"pfadd", "hll2", "d"}, {"pfmerge", "hll3", "hll", "hll2"}}},
	},
	"scripts and transactions": {
		{cmds: [][]any{{"eval", "redis.call('set', KEYS[1], 'v') redis.call('expire', KEYS[1], 100) return 1", "1", "sk"}, {"eval", "return redis.call('get', KEYS[1])", "1", "sk"}, {"eval", "redis.call('incr', KEYS[1]) return 1", "1", "sn"}}},
		{cmds: [][]any{{"multi"}, {"set", "t1", "v"}, {"incr", "t2"}, {"exec"}, {"multi"}, {"get", "t1"}, {"exec"}, {"multi"}, {"incr", "t2"}, {"exec"}}},
	},
	"restore": {
		{cmds: [][]any{{"restore", "r1", "0", dumpHello}, {"restore", "r2", "100000", dumpHello}, {"restore", "r3", "4102444800000", dumpHello, "absttl"}, {"restore", "r2", "5000", dumpHello, "replace", "idletime", "10"}}},
		{cmds: [][]any{{"restore", "r1", "1", dumpHello, "replace", "absttl"}, {"restore", "r4", "1", dumpHello, "absttl"}}},
	},
	"timestamps": {
		{cmds: [][]any{{"config", "set", "aof-timestamp-enabled", "yes"}, {"set", "ts1", "v"}, {"multi"}, {"incr", "ts2"}, {"incr", "ts2"}, {"exec"}, {"select", "1"}, {"set", "ts3", "v"}}},
	},
	"lazyfree": {
		{cmds: [][]any{{"config", "set", "lazyfree-lazy-expire", "yes"}, {"config", "set", "lazyfree-lazy-user-del", "yes"}, {"set", "lz", "v"}, {"pexpireat", "lz", "1"},
			{"set", "lz", "v"}, {"getex", "lz", "pxat", "1"}, {"set", "lz", "v"}, {"getdel", "lz"}, {"set", "lz", "v"}, {"del", "lz"}}},
	},
	"stores": {
		{cmds: [][]any{{"rpush", "srt", "3", "1", "2"}, {"sort", "srt", "store", "srt2"}, {"sort", "nosuch", "store", "srt2"}, {"sort", "nosuch", "store", "srt2"},
			{"sadd", "se", "a"}, {"sinterstore", "se", "nosuch", "se"}, {"sunionstore", "se2", "nosuch"}, {"zadd", "ze", "1", "a"}, {"zunionstore", "ze", "1", "nosuch"},
			{"set", "lim", "v"}, {"lmpop", "1", "lim", "left"}, {"spop", "lim"}}},
	},
	"flush": {
		{cmds: [][]any{{"set", "f", "v"}, {"flushdb"}, {"flushdb"}, {"flushall"}, {"flushall"}}},
	},
}

// TestAOFMatchesRedis runs every family's steps against redis-server and
// floodgate, both with appendonly yes, and compares what each step added
// to the incremental AOF files: floodgate logs what Redis 7.0 logs.
func TestAOFMatchesRedis(t *testing.T) {
	t.Parallel() // its own processes, directories and ports
	families := make([]string, 0, len(aofFamilies))
	for name := range aofFamilies {
		families = append(families, name)
	}
	sortStrings(families)
	for _, family := range families {
		t.Run(family, func(t *testing.T) {
			rdir, fdir := t.TempDir(), t.TempDir()
			// appendfsync always: under everysec Redis may put a write off
			// while an fsync is under way, and a step would miss its log.
			rs, ok := startRedis(t, rdir, "--appendfsync", "always")
			if !ok {
				t.Fatalf("redis-server did not start:\n%s", rs.logText())
			}
			fg, ok := startFloodgate(t, fdir, "--appendfsync", "always")
			if !ok {
				t.Fatalf("floodgate did not start:\n%s", fg.logText())
			}
			rtail, ftail := newAOFTail(t, rdir), newAOFTail(t, fdir)
			for i, st := range aofFamilies[family] {
				want := normalize(st.run(t, rs, rtail), st.random)
				got := normalize(st.run(t, fg, ftail), st.random)
				t.Logf("step %d logged:\n  %s", i, strings.Join(want, "\n  "))
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("step %d %v %v:\nfloodgate logged:\n  %s\nredis-server logged:\n  %s", i, st.block, st.cmds,
						strings.Join(got, "\n  "), strings.Join(want, "\n  "))
				}
			}
			// And redis-server loads floodgate's files into what floodgate holds.
			want := keyspace(t, fg)
			fg.shutdown()
			rs.shutdown()
			if len(want) == 0 {
				return
			}
			back, ok := startRedis(t, fdir)
			if !ok {
				t.Fatalf("redis-server refused floodgate's AOF:\n%s", back.logText())
			}
			diffKeyspaces(t, "redis-server loading floodgate's AOF", keyspace(t, back), want)
		})
	}
}
