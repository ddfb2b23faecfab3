package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The flags of a function (or a shebang script) against the server's
// state: processCommand reads them as the command's flags (write, stale,
// denyoom: scriptFlagsToCmdFlags), so a write function meets the generic
// MISCONF, READONLY and MASTERDOWN errors before it runs; what was queued
// in MULTI under other flags reaches scriptPrepareForRun, whose texts name
// the script flags. no-cluster changes nothing with cluster mode off.

// fnFlagsLib: w writes, r and rs read (rs allowed stale), ws writes and
// is allowed stale, rw writes though no-writes, nc is no-cluster, ao
// writes and is allowed past maxmemory.
const fnFlagsLib = `"#!lua name=fl\n` +
	`redis.register_function('w', function(keys, args) return redis.call('set', keys[1], 'w') end)\n` +
	`redis.register_function{function_name='r', callback=function(keys, args) return redis.call('get', keys[1]) end, flags={'no-writes'}}\n` +
	`redis.register_function{function_name='rs', callback=function(keys, args) return redis.call('get', keys[1]) end, flags={'no-writes', 'allow-stale'}}\n` +
	`redis.register_function{function_name='ws', callback=function(keys, args) return redis.call('set', keys[1], 'ws') end, flags={'allow-stale'}}\n` +
	`redis.register_function{function_name='rw', callback=function(keys, args) return redis.call('set', keys[1], 'rw') end, flags={'no-writes'}}\n` +
	`redis.register_function{function_name='nc', callback=function(keys, args) return redis.call('set', keys[1], 'nc') end, flags={'no-cluster'}}\n` +
	`redis.register_function{function_name='ao', callback=function(keys, args) return redis.call('set', keys[1], 'ao') end, flags={'allow-oom'}}"`

// fnFlagsLibSwapped is fl with r and ws losing their flags: a call queued
// under the old flags runs under the new ones.
const fnFlagsLibSwapped = `"#!lua name=fl\n` +
	`redis.register_function('r', function(keys, args) return redis.call('get', keys[1]) end)\n` +
	`redis.register_function('ws', function(keys, args) return redis.call('set', keys[1], 'ws') end)"`

const (
	evalWriteShebang = `EVAL "#!lua\nreturn redis.call('set', KEYS[1], 'e')" 1 k`
	evalReadShebang  = `EVAL "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])" 1 k`
	evalStaleShebang = `EVAL "#!lua flags=no-writes,allow-stale\nreturn redis.call('get', KEYS[1])" 1 k`
	evalNoShebang    = `EVAL "return redis.call('set', KEYS[1], 'e')" 1 k`
	evalNoShebangGet = `EVAL "return redis.call('get', KEYS[1])" 1 k`
)

// TestFunctionFlagsMisconf: a BGSAVE that failed (dump.rdb is a directory
// in the server's dir; dir and dbfilename are protected configs) stops
// writes while stop-writes-on-bgsave-error is yes and a save point is set,
// which each case sets and clears, so that the FLUSHALL before the next
// one runs.
func TestFunctionFlagsMisconf(t *testing.T) {
	servers := append([]string{redisAddr}, floodgates()...)
	var dirs []string
	t.Cleanup(func() {
		// A SAVE that succeeds clears the failed BGSAVE's status.
		for i, addr := range servers {
			if i < len(dirs) {
				os.RemoveAll(filepath.Join(dirs[i], "dump.rdb"))
			}
			if c, err := dialRaw(addr); err == nil {
				c.do("CONFIG", "SET", "stop-writes-on-bgsave-error", "yes", "save", "")
				c.do("SAVE")
				c.do("FUNCTION", "FLUSH")
				c.close()
			}
		}
	})
	for _, addr := range servers {
		c, err := dialRaw(addr)
		if err != nil {
			t.Fatal(err)
		}
		dir, ok := saveDirs[addr]
		if !ok {
			dir = lastBulk(mustDo(t, c, "CONFIG", "GET", "dir"))
		}
		dirs = append(dirs, dir)
		os.Remove(filepath.Join(dir, "dump.rdb"))
		if err := os.MkdirAll(filepath.Join(dir, "dump.rdb", "occupied"), 0o755); err != nil {
			t.Fatal(err)
		}
		mustDo(t, c, "CONFIG", "SET", "stop-writes-on-bgsave-error", "no")
		mustDo(t, c, "BGSAVE")
		waitInfo(t, []*rawConn{c}, "persistence", bgsaveField, "0")
		if info := mustDo(t, c, "INFO", "persistence"); !strings.Contains(string(info), "rdb_last_bgsave_status:err") {
			t.Fatalf("%s: the BGSAVE in %s did not fail: %q", addr, dir, info)
		}
		c.close()
	}
	// MISCONF needs a save point too (writeCommandsDeniedByDiskError).
	on, off := `CONFIG SET stop-writes-on-bgsave-error yes save "3600 1"`, `CONFIG SET stop-writes-on-bgsave-error no save ""`
	runCases(t, []tcase{
		{"misconf", []string{"FUNCTION FLUSH", "FUNCTION LOAD " + fnFlagsLib, on,
			"SET k v", "PING", "FCALL w 1 k", "FCALL_RO w 1 k", "FCALL ws 1 k", "FCALL nc 1 k", "FCALL r 1 k",
			"FCALL_RO r 1 k", "FCALL rw 1 k", "FCALL_RO rw 1 k", "FCALL nosuch 0",
			evalWriteShebang, strings.Replace(evalWriteShebang, "EVAL", "EVAL_RO", 1), evalReadShebang,
			strings.Replace(evalReadShebang, "EVAL", "EVAL_RO", 1), evalNoShebang, evalNoShebangGet,
			"MULTI", "FCALL w 1 k", "EXEC", "MULTI", "FCALL r 1 k", "EXEC", "GET k", off, "FUNCTION FLUSH"}},
		// Queued while r read only, run after it became a write function:
		// scriptPrepareForRun's own MISCONF.
		{"misconf after queueing", []string{
			"FUNCTION FLUSH", "FUNCTION LOAD " + fnFlagsLib, "MULTI", "FCALL r 1 k", "FCALL_RO r 1 k", "FCALL rs 1 k",
			"@2 FUNCTION LOAD REPLACE " + fnFlagsLibSwapped, "@2 " + on, "EXEC", "GET k", off, "FUNCTION FLUSH"}},
	})
}

// TestFunctionFlagsStale: a replica whose master never answers (nothing
// listens on port 1), serving stale data or not, read-only or not.
func TestFunctionFlagsStale(t *testing.T) {
	servers := append([]string{redisAddr}, floodgates()...)
	t.Cleanup(func() {
		for _, addr := range servers {
			if c, err := dialRaw(addr); err == nil {
				c.do("REPLICAOF", "NO", "ONE")
				c.do("CONFIG", "SET", "replica-serve-stale-data", "yes")
				c.do("CONFIG", "SET", "replica-read-only", "yes")
				c.do("FUNCTION", "FLUSH")
				c.close()
			}
		}
	})
	calls := []string{"FCALL w 1 k", "FCALL ws 1 k", "FCALL r 1 k", "FCALL rs 1 k", "FCALL_RO r 1 k", "FCALL_RO rs 1 k",
		"FCALL_RO ws 1 k", "FCALL rw 1 k", "FCALL nc 1 k", "FCALL nosuch 0", evalWriteShebang, evalReadShebang, evalStaleShebang,
		strings.Replace(evalStaleShebang, "EVAL", "EVAL_RO", 1), evalNoShebang, evalNoShebangGet, "GET k", "SET k v",
		"MULTI", "FCALL r 1 k", "EXEC", "MULTI", "FCALL rs 1 k", "EXEC"}
	restore := []string{"REPLICAOF NO ONE", "CONFIG SET replica-serve-stale-data yes", "CONFIG SET replica-read-only yes", "FUNCTION FLUSH"}
	var lines []string
	lines = append(lines, "FUNCTION FLUSH", "FUNCTION LOAD "+fnFlagsLib, "SET k v", "REPLICAOF 127.0.0.1 1")
	lines = append(lines, calls...) // serving stale data, read-only
	lines = append(lines, "CONFIG SET replica-serve-stale-data no")
	lines = append(lines, calls...) // stale, read-only
	lines = append(lines, "CONFIG SET replica-read-only no")
	lines = append(lines, calls...) // stale, writable
	lines = append(lines, restore...)
	runCases(t, []tcase{
		{"stale replica", lines},
		// Queued while ws was allowed stale, run after it lost the flag
		// and the replica went stale: scriptPrepareForRun's MASTERDOWN.
		{"stale after queueing", append([]string{
			"FUNCTION FLUSH", "FUNCTION LOAD " + fnFlagsLib, "CONFIG SET replica-read-only no", "REPLICAOF 127.0.0.1 1",
			"MULTI", "FCALL ws 1 k", "FCALL rs 1 k", "@2 FUNCTION LOAD REPLACE " + fnFlagsLibSwapped,
			"@2 CONFIG SET replica-serve-stale-data no", "EXEC"}, restore...)},
	})
}

// TestFunctionFlagsOOM: over maxmemory (1 byte, noeviction), denyoom
// comes from the flags: a write function without allow-oom is refused
// before it runs, also as queued in MULTI.
func TestFunctionFlagsOOM(t *testing.T) {
	servers := append([]string{redisAddr}, floodgates()...)
	t.Cleanup(func() {
		for _, addr := range servers {
			if c, err := dialRaw(addr); err == nil {
				c.do("CONFIG", "SET", "maxmemory", "0")
				c.do("FUNCTION", "FLUSH")
				c.close()
			}
		}
	})
	runCases(t, []tcase{
		{"over maxmemory", []string{
			"FUNCTION FLUSH", "FUNCTION LOAD " + fnFlagsLib, "SET k v", "CONFIG SET maxmemory 1",
			"SET k v", "FCALL w 1 k", "FCALL ao 1 k", "FCALL r 1 k", "FCALL_RO r 1 k", "FCALL rw 1 k", "FCALL_RO ao 1 k",
			evalWriteShebang, `EVAL "#!lua flags=allow-oom\nreturn redis.call('set', KEYS[1], 'e')" 1 k`, evalReadShebang,
			evalNoShebang, evalNoShebangGet, "MULTI", "FCALL w 1 k", "EXEC", "MULTI", "FCALL ao 1 k", "FCALL r 1 k", "EXEC",
			"GET k", "CONFIG SET maxmemory 0", "FUNCTION FLUSH",
		}},
		// Queued while memory was fine, run over maxmemory: EXEC is
		// refused by what was queued (ao and r are not denyoom, w is).
		{"over maxmemory after queueing", []string{
			"FUNCTION FLUSH", "FUNCTION LOAD " + fnFlagsLib, "MULTI", "FCALL ao 1 k", "FCALL r 1 k",
			"@2 CONFIG SET maxmemory 1", "EXEC", "MULTI", "FCALL w 1 k", "@2 CONFIG SET maxmemory 0", "@2 SET big x",
			"@2 CONFIG SET maxmemory 1", "EXEC", "@2 CONFIG SET maxmemory 0", "GET k", "FUNCTION FLUSH",
		}},
	})
}

func mustDo(t *testing.T, c *rawConn, args ...string) []byte {
	t.Helper()
	r, err := c.do(args...)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return r
}
