package conformance

import (
	"bufio"
	"bytes"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func TestServer(t *testing.T) {
	runCases(t, []tcase{
		{"dbsize-flush", []string{
			"DBSIZE", "INCR a", "INCR b", "DBSIZE", "DBSIZE x", "SELECT 1", "INCR c", "FLUSHDB", "DBSIZE",
			"SELECT 0", "DBSIZE", "FLUSHDB ASYNC", "FLUSHDB sync", "FLUSHDB x", "FLUSHDB ASYNC SYNC",
			"INCR a", "FLUSHALL SYNC", "DBSIZE", "FLUSHALL async", "FLUSHALL x", "FLUSHALL SYNC ASYNC",
		}},
		{"time-lastsave", []string{"!type TIME", "TIME x", "!type LASTSAVE", "LASTSAVE x"}},
		{"shutdown-errors", []string{
			"SHUTDOWN foo", "SHUTDOWN ABORT", "SHUTDOWN nosave save", "SHUTDOWN abort now", "SHUTDOWN now now abort",
			"SHUTDOWN force abort", "SHUTDOWN SAVE NOSAVE NOW",
		}},
		{"info", []string{
			"!type INFO", "!type INFO default", "!type INFO all", "!type INFO server", "INFO nosuch",
			"INFO keyspace", "INCR a", "SET b 2", "INFO keyspace", "SELECT 3", "INCR c", "INFO KEYSPACE",
			// Redis's avg_ttl is an estimate its background expiry cycle
			// updates at any moment: with a TTL set, compare the shape only
			// (keyspace included in any section list).
			"EXPIRE c 100", "!type INFO keyspace",
			"INFO cluster", "!type INFO cluster keyspace", "!known=floodgate-answers-its-Limiter-section-as-a-module-section INFO modules", "INFO cluster nosuch", "!type INFO server clients",
		}},
		{"config-get", []string{
			"!sort CONFIG GET databases maxmemory maxmemory-policy appendonly timeout lua-time-limit busy-reply-threshold proto-max-bulk-len client-query-buffer-limit requirepass notify-keyspace-events cluster-enabled",
			"CONFIG GET nosuch", "CONFIG GET", "CONFIG GET maxmemory maxmemory", "CONFIG GET MAXMEMORY",
			"!sort CONFIG GET MaxMemory databases", "CONFIG GET lua-time-limit LUA-TIME-LIMIT", "!type CONFIG GET port",
			"!type CONFIG GET bind", "CONFIG GET lua*", "CONFIG GET busy*", "CONFIG GET databas?", "CONFIG GET [d]atabases",
			"CONFIG GET maxmemory-p*", "CONFIG GET appendonly", "CONFIG GET timeout",
		}},
		// maxmemory, its policies and save points are refused until floodgate
		// has eviction and persistence (server/config_test.go checks the
		// refusals); what both servers accept or refuse alike is compared.
		{"config-set", []string{
			"CONFIG SET nosuch 1", "CONFIG SET maxmemory", "CONFIG SET maxmemory 1 lua-time-limit",
			"CONFIG SET maxmemory x", "CONFIG SET maxmemory -1", "CONFIG SET maxmemory 1.5mb", "CONFIG SET maxmemory 0",
			"CONFIG SET maxmemory 0 MAXMEMORY 0", "CONFIG SET maxmemory 1 nosuch 2",
			"CONFIG SET maxmemory 0kb", "CONFIG GET maxmemory",
			"CONFIG SET maxmemory-policy foo", "CONFIG SET maxmemory-policy noeviction", "CONFIG SET maxmemory-policy NoEviction",
			"CONFIG SET lua-time-limit 100", "!sort CONFIG GET lua-time-limit busy-reply-threshold",
			"CONFIG SET busy-reply-threshold 5000", "CONFIG SET lua-time-limit x", "CONFIG SET lua-time-limit -1",
			"CONFIG SET lua-time-limit 5000 busy-reply-threshold 5000", "CONFIG GET lua-time-limit",
			"CONFIG SET notify-keyspace-events Q", `CONFIG SET notify-keyspace-events ""`, "CONFIG GET notify-keyspace-events",
			"CONFIG SET timeout -1", "CONFIG SET timeout x", "CONFIG SET timeout 0", "CONFIG SET databases 5",
			"CONFIG SET save 3600", `CONFIG SET save "0 1"`,
			`CONFIG SET save "x 1"`, `CONFIG SET save "10 -1"`, `CONFIG SET save ""`, "CONFIG GET save",
			"CONFIG SET appendonly no", "CONFIG SET appendonly NO", "CONFIG SET appendonly maybe", "CONFIG GET appendonly",
		}},
		// Every parameter floodgate applies, set and read back, bad values
		// and Redis's texts included; each ends at its default again.
		{"config-params", []string{
			"CONFIG SET hz 1000", "CONFIG GET hz", "CONFIG SET hz 0", "CONFIG GET hz", "CONFIG SET hz -1", "CONFIG SET hz x", "CONFIG SET hz 10",
			"CONFIG SET timeout 10 hz 5", "!sort CONFIG GET timeout hz", "CONFIG SET timeout 0 hz 10",
			"CONFIG SET maxclients 0", "CONFIG SET maxclients 500", "CONFIG GET maxclients", "CONFIG SET maxclients 10000",
			"CONFIG SET loglevel foo", "CONFIG SET loglevel WARNING", "CONFIG GET loglevel", "CONFIG SET loglevel notice",
			"CONFIG SET protected-mode maybe", "CONFIG SET protected-mode NO", "CONFIG GET protected-mode", "CONFIG SET protected-mode yes",
			"CONFIG SET requirepass", "CONFIG SET requirepass s3cret", "CONFIG GET requirepass", "PING", "AUTH s3cret", "AUTH wrong",
			`CONFIG SET requirepass ""`, "CONFIG GET requirepass", "AUTH x",
			"CONFIG SET proto-max-bulk-len 1", "CONFIG SET proto-max-bulk-len 2mb", "CONFIG GET proto-max-bulk-len", "CONFIG SET proto-max-bulk-len 536870912",
			"CONFIG SET client-query-buffer-limit 1gb", "CONFIG GET client-query-buffer-limit",
			"CONFIG SET tcp-keepalive -1", "CONFIG SET tcp-keepalive x", "CONFIG SET tcp-keepalive 60", "CONFIG GET tcp-keepalive",
			"CONFIG SET tcp-keepalive 0", "CONFIG GET tcp-keepalive", "CONFIG SET tcp-keepalive 300", "CONFIG GET tcp-keepalive",
			"CONFIG SET timeout 5", "CONFIG GET timeout", "PING", "CONFIG SET timeout 0",
			"CONFIG SET client-output-buffer-limit", `CONFIG SET client-output-buffer-limit "normal 1mb"`,
			`CONFIG SET client-output-buffer-limit "foo 1 1 1"`, `CONFIG SET client-output-buffer-limit "normal x 1 1"`,
			`CONFIG SET client-output-buffer-limit "master 1 1 1"`, `CONFIG SET client-output-buffer-limit "normal 1 1 -1"`,
			`CONFIG SET client-output-buffer-limit "NORMAL 1k 2K 3"`, "CONFIG GET client-output-buffer-limit",
			`CONFIG SET client-output-buffer-limit "replica 1mb 1mb 1 pubsub 2mb 1mb 5"`, "CONFIG GET client-output-buffer-limit",
			`CONFIG SET client-output-buffer-limit "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"`,
			"CONFIG GET client-output-buffer-limit",
			"CONFIG SET busy-reply-threshold 100 hz 0", "!sort CONFIG GET lua-time-limit hz", "CONFIG SET busy-reply-threshold 5000 hz 10",
			"CONFIG SET hll-sparse-max-bytes 100", "CONFIG GET hll-sparse-max-bytes", "CONFIG SET hll-sparse-max-bytes 3000",
			// Immutable, and accepted only at start.
			"CONFIG SET daemonize no", "CONFIG SET io-threads 2", "CONFIG SET databases 16", "CONFIG SET always-show-logo yes",
			"CONFIG SET port x", "CONFIG SET port 99999", "CONFIG SET bind",
			// Inert parameters: any valid value kept.
			"CONFIG SET activerehashing maybe", "CONFIG SET activerehashing no", "CONFIG GET activerehashing", "CONFIG SET activerehashing yes",
			"CONFIG SET lazyfree-lazy-user-flush yes", "CONFIG GET lazyfree-lazy-user-flush", "CONFIG SET lazyfree-lazy-user-flush no",
			// Features floodgate lacks, at the value that leaves them off.
			"CONFIG SET appendfsync sometimes", "CONFIG SET appendfsync everysec", "CONFIG SET maxmemory-samples x",
			"CONFIG SET slowlog-max-len x", "CONFIG SET oom-score-adj-values x", `CONFIG SET oom-score-adj-values "1 2 3000"`, "CONFIG GET oom-score-adj-values",
			"CONFIG GET key-load-delay", "CONFIG GET watchdog*",
			"CONFIG SET loglevel debug hz x", "CONFIG GET loglevel",
		}},
		{"config-get-every", []string{
			"!sort CONFIG GET a*", "!sort CONFIG GET c*", "!sort CONFIG GET la*", "!sort CONFIG GET lf*", "!sort CONFIG GET lo*",
			"!sort CONFIG GET lu*", "!sort CONFIG GET lazy*", "!sort CONFIG GET ma*", "!sort CONFIG GET mi*", "!sort CONFIG GET r*", "!sort CONFIG GET s*",
			"!sort CONFIG GET t*", "!sort CONFIG GET z*", "!sort CONFIG GET h*", "!sort CONFIG GET *-max-*", "!sort CONFIG GET [b-c]*",
			"!sort CONFIG GET [e-k]*", "!sort CONFIG GET da*", "!sort CONFIG GET db*", "!sort CONFIG GET [n-o]*", "!sort CONFIG GET pr*", "!sort CONFIG GET [u-y]*",
		}},
		{"config-misc", []string{
			"CONFIG", "CONFIG nosuch", "CONFIG HELP", "CONFIG HELP x", "CONFIG RESETSTAT", "CONFIG RESETSTAT x",
			"CONFIG REWRITE", "CONFIG REWRITE x",
		}},
		{"command", []string{
			"!type COMMAND COUNT", "COMMAND COUNT x", "COMMAND HELP", "COMMAND HELP x", "COMMAND NOSUCH",
			"COMMAND INFO nosuch", "COMMAND DOCS nosuch",
			"COMMAND GETKEYS get a", "COMMAND GETKEYS GET a", "COMMAND GETKEYS get", "COMMAND GETKEYS nosuch a",
			"COMMAND GETKEYS get a b", "COMMAND GETKEYS ping x", "COMMAND GETKEYS del a b c", "COMMAND GETKEYS mset a 1 b 2", "COMMAND GETKEYS set a b EX 10",
			"COMMAND GETKEYS eval x 2 a b c", "COMMAND GETKEYS eval x 0", "COMMAND GETKEYS eval x 5 a", "COMMAND GETKEYS eval x y",
			"COMMAND GETKEYS eval x -1 a", "COMMAND GETKEYS evalsha x 1 a", "COMMAND GETKEYS eval x", "COMMAND GETKEYSANDFLAGS get a", "COMMAND GETKEYSANDFLAGS ping", "COMMAND GETKEYSANDFLAGS get", "COMMAND GETKEYS set",
			"COMMAND GETKEYS config get x", "COMMAND GETKEYS config nosuch", "COMMAND GETKEYS client id", "COMMAND GETKEYS",
			"COMMAND LIST x", "COMMAND LIST FILTERBY", "COMMAND LIST FILTERBY foo bar", "COMMAND LIST FILTERBY module x",
			"COMMAND LIST FILTERBY aclcat nosuch", "COMMAND LIST FILTERBY aclcat x y",
			"!sort COMMAND LIST FILTERBY pattern conf*", "!sort COMMAND LIST FILTERBY pattern CONFIG|*",
			"!sort COMMAND LIST FILTERBY pattern c[o]mmand*", "COMMAND LIST FILTERBY pattern nosuch*",
		}},
	})
}

// TestServerInfoStructure checks that floodgate's INFO has Redis's section
// headers, in Redis's order, with CRLF line ends, and that every field
// floodgate reports exists in Redis's INFO too.
func TestServerInfoStructure(t *testing.T) {
	for _, section := range []string{"", "default", "all", "everything", "modules", "server", "clients", "memory", "persistence", "stats", "replication", "keyspace", "commandstats"} {
		args := []string{"INFO"}
		if section != "" {
			args = append(args, section)
		}
		want, got := infoOf(t, redisAddr, args...), withoutModuleSections(t, infoOf(t, floodgateAddr, args...), section)
		if strings.Join(want.headers, ",") != strings.Join(got.headers, ",") {
			t.Errorf("%v headers:\n  redis:     %v\n  floodgate: %v", args, want.headers, got.headers)
		}
		for _, f := range got.fields {
			if !want.has[f] && !dynamicField(f) && !laterRedisFields[f] {
				t.Errorf("%v: floodgate field %q is not in Redis's INFO", args, f)
			}
		}
	}
	// The fields clients parse must be there.
	got := infoOf(t, floodgateAddr, "INFO", "everything")
	for _, f := range []string{"redis_version", "redis_mode", "os", "arch_bits", "process_id", "tcp_port", "uptime_in_seconds",
		"uptime_in_days", "executable", "connected_clients", "blocked_clients", "used_memory", "used_memory_human",
		"maxmemory", "maxmemory_policy", "loading", "rdb_changes_since_last_save", "total_connections_received",
		"total_commands_processed", "expired_keys", "keyspace_hits", "keyspace_misses", "rejected_connections",
		"role", "connected_slaves", "cluster_enabled", "cmdstat_info"} {
		if !got.has[f] {
			t.Errorf("floodgate INFO everything lacks %q", f)
		}
	}
	if got.values["redis_version"] != "7.0.15" || got.values["loading"] != "0" || got.values["role"] != "master" {
		t.Errorf("redis_version %q loading %q role %q", got.values["redis_version"], got.values["loading"], got.values["role"])
	}
}

// withoutModuleSections drops floodgate's own "# Limiter" section, which
// comes where Redis puts a loaded module's section: last, and only for
// "all", "everything", "modules" or its own name. The real Redis has no module
// loaded, so the section is checked to be there and then left out.
func withoutModuleSections(t *testing.T, r infoReply, section string) infoReply {
	t.Helper()
	n := len(r.headers)
	has := n > 0 && r.headers[n-1] == "Limiter"
	if want := section == "everything" || section == "all" || section == "modules"; has != want {
		t.Errorf("INFO %s: Limiter section %v, want %v", section, has, want)
	}
	if !has {
		return r
	}
	r.headers = r.headers[:n-1]
	fields := r.fields[:0]
	for _, f := range r.fields {
		if !strings.HasPrefix(f, "limiter_") {
			fields = append(fields, f)
		}
	}
	r.fields = fields
	return r
}

// dynamicField is a field whose name depends on what ran (cmdstat_get,
// db3, ...): it cannot be expected in the other server's INFO.
// laterRedisFields are fields of a later Redis that floodgate reports on
// purpose: the ACL denial counters of Redis 7.2, which issue #24 asks for
// (7.0 counts denials only in the ACL LOG).
var laterRedisFields = map[string]bool{
	"acl_access_denied_auth": true, "acl_access_denied_cmd": true,
	"acl_access_denied_key": true, "acl_access_denied_channel": true,
}

func dynamicField(f string) bool {
	for _, p := range []string{"cmdstat_", "latency_percentiles_usec_", "errorstat_", "db"} {
		if strings.HasPrefix(f, p) {
			return true
		}
	}
	return false
}

type infoReply struct {
	headers []string
	fields  []string
	has     map[string]bool
	values  map[string]string
}

func infoOf(t *testing.T, addr string, args ...string) infoReply {
	t.Helper()
	text, ok := queryOnce(t, addr, args...).(string)
	if !ok {
		t.Fatalf("%v: not a bulk string", args)
	}
	r := infoReply{has: map[string]bool{}, values: map[string]string{}}
	if strings.Contains(strings.ReplaceAll(text, "\r\n", ""), "\n") {
		t.Errorf("%v: a line does not end in CRLF", args)
	}
	for _, line := range strings.Split(strings.TrimSuffix(text, "\r\n"), "\r\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "# "):
			r.headers = append(r.headers, line[2:])
		default:
			name, value, ok := strings.Cut(line, ":")
			if !ok {
				t.Errorf("%v: malformed line %q", args, line)
			}
			r.fields = append(r.fields, name)
			r.has[name] = true
			r.values[name] = value
		}
	}
	return r
}

// TestServerCommandInfo compares COMMAND INFO for every command floodgate
// has that Redis has: name, arity, flags, key positions and ACL categories,
// subcommands included (TestCommandMetadata compares the whole entries).
func TestServerCommandInfo(t *testing.T) {
	names := commandList(t, floodgateAddr)
	known := map[string]bool{}
	for _, n := range commandList(t, redisAddr) {
		known[n] = true
	}
	compared := 0
	for _, name := range names {
		if !known[name] {
			t.Logf("floodgate has %q, Redis 7.0 does not", name)
			continue
		}
		want, got := commandInfoHead(t, redisAddr, name), commandInfoHead(t, floodgateAddr, name)
		if want != got {
			t.Errorf("COMMAND INFO %s\n%s", name, replyDiff([]byte(want), []byte(got)))
		}
		compared++
	}
	countsMu.Lock()
	counts["command info"] += compared
	countsMu.Unlock()
}

// TestServerACLCategories compares COMMAND LIST FILTERBY ACLCAT for every
// category, over the commands both have: the categories floodgate's table
// derives from flags must select the same commands as Redis's.
func TestServerACLCategories(t *testing.T) {
	have, known := map[string]bool{}, map[string]bool{}
	for _, n := range commandList(t, floodgateAddr) {
		have[n] = true
	}
	for _, n := range commandList(t, redisAddr) {
		known[n] = true
	}
	for _, cat := range []string{
		"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap", "hyperloglog",
		"geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous", "connection",
		"transaction", "scripting",
	} {
		var want, got []string
		for _, e := range queryOnce(t, redisAddr, "COMMAND", "LIST", "FILTERBY", "ACLCAT", cat).([]any) {
			if have[e.(string)] {
				want = append(want, e.(string))
			}
		}
		for _, e := range queryOnce(t, floodgateAddr, "COMMAND", "LIST", "FILTERBY", "ACLCAT", cat).([]any) {
			if known[e.(string)] {
				got = append(got, e.(string))
			}
		}
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(want, " ") != strings.Join(got, " ") {
			t.Errorf("@%s\n  redis:     %v\n  floodgate: %v", cat, want, got)
		}
	}
}

// TestServerCommandDocs compares summary, since and group.
func TestServerCommandDocs(t *testing.T) {
	for _, name := range []string{"get", "ping", "client", "config", "config|get", "command|docs", "info", "hello", "swapdb",
		"spop", "srandmember", "smove", "sintercard", "sscan", "sunionstore", "zunion", "zinterstore", "zintercard", "zrangestore",
		"zmpop", "sort", "sort_ro", "lcs", "substr", "move"} {
		want, got := docsFields(t, redisAddr, name), docsFields(t, floodgateAddr, name)
		if want != got {
			t.Errorf("COMMAND DOCS %s\n  redis:     %s\n  floodgate: %s", name, want, got)
		}
	}
}

func commandList(t *testing.T, addr string) []string {
	t.Helper()
	var names []string
	for _, e := range queryOnce(t, addr, "COMMAND", "LIST").([]any) {
		names = append(names, e.(string))
	}
	return names
}

func commandInfoHead(t *testing.T, addr, name string) string {
	t.Helper()
	entry, ok := queryOnce(t, addr, "COMMAND", "INFO", name).([]any)[0].([]any)
	if !ok {
		return "nil"
	}
	var b strings.Builder
	for i := 0; i < 7; i++ {
		b.WriteString(formatValue(entry[i]))
		b.WriteByte(' ')
	}
	return b.String()
}

func docsFields(t *testing.T, addr, name string) string {
	t.Helper()
	top := queryOnce(t, addr, "COMMAND", "DOCS", name).([]any)
	if len(top) != 2 {
		return "missing"
	}
	doc := top[1].([]any)
	fields := map[string]string{}
	for i := 0; i+1 < len(doc); i += 2 {
		if s, ok := doc[i+1].(string); ok {
			fields[doc[i].(string)] = s
		}
	}
	return fields["summary"] + " | " + fields["since"] + " | " + fields["group"]
}

// queryOnce sends one command on a fresh connection and decodes the reply.
func queryOnce(t *testing.T, addr string, args ...string) any {
	t.Helper()
	c, err := dialRaw(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	raw, err := c.do(args...)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	v, err := parseReply(bufio.NewReader(bytes.NewReader(raw)))
	if err != nil {
		t.Fatalf("%v: %q: %v", args, raw, err)
	}
	return v
}

// parseReply decodes a RESP2 reply into string, int64, nil or []any.
// Status and bulk strings both become strings; errors become "-" + text.
func parseReply(rd *bufio.Reader) (any, error) {
	line, err := rd.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	switch line[0] {
	case '+':
		return line[1:], nil
	case '-':
		return line, nil
	case ':':
		return strconv.ParseInt(line[1:], 10, 64)
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io_ReadFull(rd, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return nil, nil
		}
		out := make([]any, n)
		for i := range out {
			if out[i], err = parseReply(rd); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, nil
}

func formatValue(v any) string {
	switch v := v.(type) {
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = formatValue(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case int64:
		return strconv.FormatInt(v, 10)
	case nil:
		return "nil"
	default:
		return v.(string)
	}
}
