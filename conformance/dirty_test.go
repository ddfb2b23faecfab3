package conformance

import (
	"strings"
	"testing"
)

// TestDirtyCountsMatchRedis compares how much one command adds to the
// change counter (rdb_changes_since_last_save, Redis's server.dirty, which
// save points and the AOF read) for the string and bitmap commands that
// create or grow a key: Redis counts a created key once (dbAdd counts
// nothing, the write after it counts), and BITFIELD once per write that
// changed a field.
func TestDirtyCountsMatchRedis(t *testing.T) {
	runDirtyCases(t, []dirtyCase{
		{"setbit new key", nil, "SETBIT k 7 1"},
		{"setbit new key to 0", nil, "SETBIT k 7 0"},
		{"setbit same bit", []string{"SETBIT k 7 1"}, "SETBIT k 7 1"},
		{"setbit changes bit", []string{"SETBIT k 7 1"}, "SETBIT k 7 0"},
		{"setbit grows", []string{"SETBIT k 7 1"}, "SETBIT k 100 0"},
		{"setbit wrong type", []string{"LPUSH k a"}, "SETBIT k 7 1"},
		{"setbit bad offset", nil, "SETBIT k -1 1"},
		{"setrange new key", nil, "SETRANGE k 5 abc"},
		{"setrange empty value", nil, "SETRANGE k 5 ''"},
		{"setrange existing", []string{"SET k hello"}, "SETRANGE k 1 abc"},
		{"append new key", nil, "APPEND k abc"},
		{"append existing", []string{"SET k a"}, "APPEND k bc"},
		{"bitop new dest", []string{"SET a foo", "SET b bar"}, "BITOP AND d a b"},
		{"bitop empty result deletes", []string{"SET d x"}, "BITOP OR d nosuch"},
		{"bitop empty result nothing", nil, "BITOP OR d nosuch"},
		{"bitfield new key one set", nil, "BITFIELD k SET u8 0 1"},
		{"bitfield new key three ops", nil, "BITFIELD k SET u8 0 1 INCRBY u8 8 2 SET i4 16 3"},
		{"bitfield new key set to 0", nil, "BITFIELD k SET u8 0 0 SET u8 8 0"},
		{"bitfield existing unchanged", []string{"SET k a"}, "BITFIELD k SET u8 0 97 SET u8 0 98"},
		{"bitfield get only", []string{"SET k a"}, "BITFIELD k GET u8 0"},
		{"bitfield overflow fail new key", nil, "BITFIELD k OVERFLOW FAIL INCRBY u2 0 10"},
		{"bitfield mixed fail", []string{"SET k a"}, "BITFIELD k OVERFLOW FAIL INCRBY u2 0 10 SET u8 8 1 GET u8 0"},
		{"incr new key", nil, "INCR k"},
		{"incrbyfloat new key", nil, "INCRBYFLOAT k 1.5"},
		{"mset", nil, "MSET a 1 b 2 c 3"},
	})
}

// dirtyCase is a command whose change count is compared, after setup.
type dirtyCase struct {
	name  string
	setup []string
	cmd   string
}

// runDirtyCases compares what each case's command adds to the change
// counter on Redis and on floodgate.
func runDirtyCases(t *testing.T, cases []dirtyCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := dirtyDelta(t, redisAddr, tc.setup, tc.cmd)
			for _, addr := range floodgates() {
				if got := dirtyDelta(t, addr, tc.setup, tc.cmd); got != want {
					t.Errorf("%s: %s adds %d to rdb_changes_since_last_save, Redis %d", transportName(addr), tc.cmd, got, want)
				}
			}
		})
	}
}

// dirtyDelta runs setup after FLUSHALL, then cmd, and returns how much cmd
// changed rdb_changes_since_last_save.
func dirtyDelta(t *testing.T, addr string, setup []string, cmd string) int {
	t.Helper()
	c, err := dialRaw(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	do := func(line string) string {
		args, err := splitArgs(line)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		raw, err := c.do(args...)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		return string(raw)
	}
	for _, line := range append([]string{"FLUSHALL"}, setup...) {
		if r := do(line); strings.HasPrefix(r, "-") {
			t.Fatalf("%s: %q: %s", addr, line, r)
		}
	}
	before := infoField(t, do("INFO persistence"), "rdb_changes_since_last_save")
	do(cmd)
	return infoField(t, do("INFO persistence"), "rdb_changes_since_last_save") - before
}
