package conformance

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server"
)

// infoMayDiffer are the INFO fields whose values depend on the process,
// the clock, the CPU or the memory layout, so that only their shape is
// compared; every other field must have Redis's exact value.
var infoMayDiffer = map[string]string{
	"redis_build_id":     "a hash of the build",
	"gcc_version":        "the compiler",
	"process_id":         "the process",
	"run_id":             "random per process",
	"tcp_port":           "each server has its own",
	"server_time_usec":   "the clock",
	"uptime_in_seconds":  "the clock: the servers start a moment apart",
	"lru_clock":          "the clock",
	"executable":         "the binary",
	"rdb_last_save_time": "the clock: the servers start a moment apart",
	"master_replid":      "random per process",
	// The clients cron's peaks: allocation sizes (sds vs Go slices) and
	// which tick saw the buffers.
	"client_recent_max_input_buffer": "allocation sizes and cron timing", "client_recent_max_output_buffer": "allocation sizes and cron timing",
	// Every byte count of the output includes INFO's own, longer replies
	// (floodgate's Limiter section) and memory figures of other lengths.
	"total_net_output_bytes":        "INFO's own replies differ in length",
	"expire_cycle_cpu_milliseconds": "CPU time",
	// Redis's cron resizes each client's 16 KB reply buffer when it sees
	// it idle or full; floodgate's output blocks are never resized (0).
	"reply_buffer_shrinks": "cron timing", "reply_buffer_expands": "cron timing",
	"mem_allocator":           "jemalloc versus Go's runtime",
	"mem_clients_normal":      "memory layout",
	"mem_fragmentation_ratio": "memory layout", "mem_fragmentation_bytes": "memory layout",
	"rss_overhead_ratio": "memory layout", "rss_overhead_bytes": "memory layout",
	"allocator_frag_ratio": "memory layout", "allocator_frag_bytes": "memory layout",
	"allocator_rss_ratio": "memory layout", "allocator_rss_bytes": "memory layout",
	"allocator_allocated": "memory layout", "allocator_active": "memory layout", "allocator_resident": "memory layout",
	"used_memory_vm_eval": "Lua VM size", "used_memory_lua": "Lua VM size", "used_memory_lua_human": "Lua VM size",
	"used_memory_vm_functions": "Lua VM size", "used_memory_vm_total": "Lua VM size", "used_memory_vm_total_human": "Lua VM size",
	"used_memory_scripts_eval": "script cache layout", "used_memory_functions": "function library layout",
	"used_memory_scripts": "script and library layout", "used_memory_scripts_human": "script and library layout",
}

// infoMayDifferPrefix covers families of fields of the same kind.
var infoMayDifferPrefix = map[string]string{
	"used_memory": "memory layout", "used_cpu_": "CPU time", "instantaneous_": "sampled rates: timing",
	"latency_percentiles_usec_": "timing",
}

// infoMayDifferSub are the parts of key=value fields that depend on
// timing: a command's time, the sampled average TTL.
var infoMayDifferSub = map[string]bool{"usec": true, "usec_per_call": true, "avg_ttl": true}

// infoHashOrdered are the sections Redis lists in its command dict's
// (seeded hash) order: compared as sets.
var infoHashOrdered = map[string]bool{"Commandstats": true, "Latencystats": true}

// TestInfoFields runs the same workload on a fresh Redis and a fresh
// floodgate, over a RESP2 and a RESP3 connection, and compares every INFO
// section field by field: names in order, each value's shape, and the
// exact value of every field not in infoMayDiffer.
func TestInfoFields(t *testing.T) {
	redis, err := redistest.Launch(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer redis.Stop()
	srv := server.New(server.Config{Addr: "127.0.0.1:0", Dir: t.TempDir()})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	addrs := []string{redis.Addr, srv.Addr()}

	conns := make([][2]*rawConn, len(addrs)) // per server: RESP2, RESP3
	for i, addr := range addrs {
		for p := range conns[i] {
			c, err := dialRaw(addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.close()
			conns[i][p] = c
		}
	}
	workload := [][]string{
		{"HELLO", "3"}, // the second connection only
		{"SET", "a", "1"}, {"GET", "a"}, {"GET", "nosuch"}, {"SET", "t", "v", "EX", "1000"},
		{"INCR", "a"}, {"HSET", "h", "f", "v"}, {"INCR", "h"}, {"EVAL", "return 1", "0"},
		{"SELECT", "3"}, {"SET", "k3", "x"}, {"SELECT", "0"},
		{"CONFIG", "SET", "hz", "1000"}, {"CONFIG", "SET", "hz", "0"}, {"CONFIG", "SET", "hz", "20"},
		{"CONFIG", "SET", "dynamic-hz", "no"},
	}
	// Redis has served redistest's PING; the counters start over on both
	// once the other connections are gone.
	for i, addr := range addrs {
		redistest.Eventually(t, addr+" serving only this test's connections", func() bool {
			reply, err := conns[i][0].do("CLIENT", "LIST")
			return err == nil && strings.Count(string(reply), " addr=") == 2
		})
		if reply, err := conns[i][0].do("CONFIG", "RESETSTAT"); err != nil || string(reply) != "+OK\r\n" {
			t.Fatalf("%s: CONFIG RESETSTAT: %q %v", addr, reply, err)
		}
	}
	for i := range addrs {
		for p, c := range conns[i] {
			for _, cmd := range workload {
				if cmd[0] == "HELLO" && p == 0 {
					continue
				}
				if _, err := c.do(cmd...); err != nil {
					t.Fatalf("%s %v: %v", addrs[i], cmd, err)
				}
			}
		}
	}
	for _, section := range []string{"everything", "all", "default", "", "server", "clients", "memory", "persistence",
		"stats", "replication", "cpu", "modules", "module_list", "commandstats", "errorstats", "latencystats", "cluster", "keyspace",
		"server clients"} {
		for p, proto := range []string{"RESP2", "RESP3"} {
			args := append([]string{"INFO"}, strings.Fields(section)...)
			var infos [2]infoText
			for i := range addrs {
				reply, err := conns[i][p].do(args...)
				if err != nil {
					t.Fatalf("%s %v: %v", addrs[i], args, err)
				}
				infos[i] = parseInfoText(t, reply)
			}
			name := fmt.Sprintf("%s %v", proto, args)
			compareInfo(t, name, infos[0], withoutLimiter(t, name, infos[1], section))
		}
	}

	// CONFIG RESETSTAT after floodgate alone ran more (hits, misses, errors,
	// a script, a connection): what it does not reset shows as a
	// difference. Redis makes the same change to the keyspace as the
	// CL.THROTTLE: a key with a TTL.
	extra, err := dialRaw(addrs[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"GET", "a"}, {"GET", "nosuch"}, {"INCR", "h"}, {"NOSUCH"}, {"EVAL", "return 1", "0"}, {"CL.THROTTLE", "k", "1", "1", "1"}} {
		if _, err := extra.do(cmd...); err != nil {
			t.Fatal(err)
		}
	}
	extra.close()
	if _, err := conns[0][0].do("SET", "k", "v", "EX", "100"); err != nil {
		t.Fatal(err)
	}
	redistest.Eventually(t, "floodgate to see the extra connection closed", func() bool {
		reply, err := conns[1][0].do("CLIENT", "LIST")
		return err == nil && strings.Count(string(reply), " addr=") == 2
	})
	var infos [2]infoText
	for i := range addrs {
		if reply, err := conns[i][0].do("CONFIG", "RESETSTAT"); err != nil || string(reply) != "+OK\r\n" {
			t.Fatalf("%s: CONFIG RESETSTAT: %q %v", addrs[i], reply, err)
		}
		reply, err := conns[i][0].do("INFO", "everything")
		if err != nil {
			t.Fatal(err)
		}
		infos[i] = parseInfoText(t, reply)
	}
	for _, f := range infos[1].sections["Limiter"] {
		if f[1] != "0" && !strings.HasSuffix(f[1], "allowed=0,limited=0") && f[0] != "limiter_prefixes_max" {
			t.Errorf("after CONFIG RESETSTAT %s:%s", f[0], f[1])
		}
	}
	compareInfo(t, "after CONFIG RESETSTAT", infos[0], withoutLimiter(t, "after CONFIG RESETSTAT", infos[1], "everything"))
}

// TestInfoSettings compares what the settings INFO reports take and the
// section names that select nothing or only Redis's own.
func TestInfoSettings(t *testing.T) {
	runCases(t, []tcase{
		{"info-hz", []string{
			"CONFIG SET hz 0", "CONFIG GET hz", "CONFIG SET hz 1000", "CONFIG GET hz", "CONFIG SET hz -1", "CONFIG SET hz x",
			"CONFIG SET hz 10", "CONFIG GET hz", "CONFIG GET dynamic-hz", "CONFIG SET dynamic-hz no", "CONFIG GET dynamic-hz",
			"CONFIG SET dynamic-hz maybe", "CONFIG SET dynamic-hz yes", "CONFIG GET dynamic-hz",
		}},
		{"info-sections", []string{
			"INFO module_list", "INFO MODULE_LIST cluster", "INFO nosuch", "INFO cluster nosuch", `INFO ""`, "INFO x y z",
		}},
	})
}

// infoText is an INFO reply cut into sections.
type infoText struct {
	titles   []string
	sections map[string][][2]string // title → name, value in order
}

// parseInfoText reads a RESP2 bulk or RESP3 verbatim INFO reply.
func parseInfoText(t *testing.T, reply []byte) infoText {
	t.Helper()
	head, body, _ := strings.Cut(string(reply), "\r\n")
	switch head[0] {
	case '$':
	case '=':
		body = strings.TrimPrefix(body, "txt:")
	default:
		t.Fatalf("INFO reply %q", reply)
	}
	r := infoText{sections: map[string][][2]string{}}
	title := ""
	for _, line := range strings.Split(strings.TrimSuffix(body, "\r\n\r\n"), "\r\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "# "):
			title = line[2:]
			r.titles = append(r.titles, title)
			r.sections[title] = nil
		default:
			name, value, ok := strings.Cut(line, ":")
			if !ok {
				t.Errorf("malformed INFO line %q", line)
			}
			r.sections[title] = append(r.sections[title], [2]string{name, value})
		}
	}
	return r
}

// withoutLimiter checks that floodgate's Limiter section is there exactly
// where it belongs (INFO all, everything and modules, not the default)
// and removes it and floodgate's later-Redis fields for the comparison.
func withoutLimiter(t *testing.T, name string, r infoText, section string) infoText {
	t.Helper()
	want := section == "everything" || section == "all" || section == "modules"
	n := len(r.titles)
	has := n > 0 && r.titles[n-1] == "Limiter"
	if has != want {
		t.Errorf("%s: Limiter section %v, want %v", name, has, want)
	}
	if has {
		for _, f := range r.sections["Limiter"] {
			if s := infoShape(f[0], f[1]); s == "str" {
				t.Errorf("%s: %s:%s is not a number or counts", name, f[0], f[1])
			}
		}
		r.titles = r.titles[:n-1]
	}
	for title, fields := range r.sections {
		r.sections[title] = slices.DeleteFunc(fields, func(f [2]string) bool { return laterRedisFields[f[0]] })
	}
	return r
}

func compareInfo(t *testing.T, name string, want, got infoText) {
	t.Helper()
	if !slices.Equal(want.titles, got.titles) {
		t.Errorf("%s: sections\n  redis:     %v\n  floodgate: %v", name, want.titles, got.titles)
		return
	}
	for _, title := range want.titles {
		w, g := want.sections[title], got.sections[title]
		if infoHashOrdered[title] {
			w, g = slices.Clone(w), slices.Clone(g)
			byName := func(a, b [2]string) int { return strings.Compare(a[0], b[0]) }
			slices.SortFunc(w, byName)
			slices.SortFunc(g, byName)
		}
		names := func(fs [][2]string) []string {
			var out []string
			for _, f := range fs {
				out = append(out, f[0])
			}
			return out
		}
		if !slices.Equal(names(w), names(g)) {
			t.Errorf("%s: # %s fields\n  redis:     %v\n  floodgate: %v", name, title, names(w), names(g))
			continue
		}
		for i := range w {
			field, wv, gv := w[i][0], w[i][1], g[i][1]
			if ws, gs := infoShape(field, wv), infoShape(field, gv); ws != gs {
				t.Errorf("%s: %s: redis %q (%s), floodgate %q (%s)", name, field, wv, ws, gv, gs)
				continue
			}
			if !infoValueMayDiffer(field) && infoStable(wv) != infoStable(gv) {
				t.Errorf("%s: %s: redis %q, floodgate %q", name, field, wv, gv)
			}
		}
	}
}

func infoValueMayDiffer(field string) bool {
	if _, ok := infoMayDiffer[field]; ok {
		return true
	}
	for p := range infoMayDifferPrefix {
		if strings.HasPrefix(field, p) {
			return true
		}
	}
	return false
}

// infoStable drops the timing-dependent parts of a key=value list.
func infoStable(v string) string {
	if !kvList.MatchString(v) {
		return v
	}
	var kept []string
	for _, kv := range strings.Split(v, ",") {
		if k, _, _ := strings.Cut(kv, "="); !infoMayDifferSub[k] {
			kept = append(kept, kv)
		}
	}
	return strings.Join(kept, ",")
}

var (
	kvList   = regexp.MustCompile(`^[a-z0-9_.]+=[^,=]*(,[a-z0-9_.]+=[^,=]*)*$`)
	intRe    = regexp.MustCompile(`^-?[0-9]+$`)
	floatRe  = regexp.MustCompile(`^-?[0-9]+\.([0-9]+)$`)
	humanRe  = regexp.MustCompile(`^[0-9]+(\.[0-9]{2})?[BKMGTP]$`)
	percRe   = regexp.MustCompile(`^[0-9]+\.[0-9]{2}%$`)
	hexRe    = regexp.MustCompile(`^[0-9a-f]+$`)
	hexNames = map[string]bool{"redis_build_id": true, "redis_git_sha1": true, "run_id": true, "master_replid": true, "master_replid2": true}
)

// infoShape names the form of an INFO value: int, float.N (N decimals),
// human, percent, hex, kv(k1:shape,...) or str.
func infoShape(field, v string) string {
	switch {
	case hexNames[field] && hexRe.MatchString(v):
		return "hex"
	case intRe.MatchString(v):
		return "int"
	case floatRe.MatchString(v):
		return "float." + fmt.Sprint(len(floatRe.FindStringSubmatch(v)[1]))
	case humanRe.MatchString(v) && strings.HasSuffix(field, "_human"):
		return "human"
	case percRe.MatchString(v):
		return "percent"
	case kvList.MatchString(v):
		var parts []string
		for _, kv := range strings.Split(v, ",") {
			k, val, _ := strings.Cut(kv, "=")
			parts = append(parts, k+":"+infoShape(k, val))
		}
		return "kv(" + strings.Join(parts, ",") + ")"
	}
	return "str"
}
