package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/floodgate/floodgate/server"
)

// TestErrorstats compares INFO errorstats (errorstat_<PREFIX>:count=N,
// Redis 7.0.15's afterErrorReply) after errors of every origin: arity,
// unknown command, a handler's, EXEC's queued commands and EXECABORT,
// scripts (error_reply, redis.call); CONFIG RESETSTAT clears it. The
// errors of scripts' commands, with commandstats, are TestErrorCounting's.
func TestErrorstats(t *testing.T) {
	runCases(t, []tcase{
		{"errorstats", []string{
			"CONFIG RESETSTAT", "INFO errorstats",
			"GET", "NOSUCHCMD x", "SET k v", "LPUSH k x", "INCR k", "EVALSHA ffffffffffffffffffffffffffffffffffffffff 0",
			"INFO errorstats",
			`EVAL "return redis.error_reply('My Error')" 0`, `EVAL "return {err='NOSPACEINTHISERROR'}" 0`,
			`EVAL "return redis.call('lpush', KEYS[1], 'x')" 1 k`,
			"INFO errorstats",
			"MULTI", "LPUSH k x", "INCR k", "EXEC", "MULTI", "NOSUCH", "EXEC",
			"INFO errorstats", "CONFIG RESETSTAT", "INFO errorstats",
		}},
	})
}

// TestTotalErrorReplies: total_error_replies counts the same replies.
func TestTotalErrorReplies(t *testing.T) {
	lines := []string{"GET", "NOSUCHCMD x", "SET k v", "LPUSH k x", `EVAL "return redis.error_reply('My Error')" 0`,
		`EVAL "return redis.call('lpush', KEYS[1], 'x')" 1 k`, "MULTI", "LPUSH k x", "EXEC"}
	want := dirtyLikeDelta(t, redisAddr, lines)
	for _, addr := range floodgates() {
		if got := dirtyLikeDelta(t, addr, lines); got != want {
			t.Errorf("%s: total_error_replies %d, Redis %d", transportName(addr), got, want)
		}
	}
}

// dirtyLikeDelta runs lines after CONFIG RESETSTAT on one connection and
// returns total_error_replies.
func dirtyLikeDelta(t *testing.T, addr string, lines []string) int {
	t.Helper()
	c := runAfterResetstat(t, addr, lines)
	defer c.close()
	info, err := c.do("INFO", "stats")
	if err != nil {
		t.Fatal(err)
	}
	return infoField(t, string(info), "total_error_replies")
}

// TestErrorMetrics: /metrics serves the counts of scripted and transaction
// errors as redis_exporter reads them from Redis's INFO: redis_errors_total
// per prefix, and each command's failed and rejected calls.
func TestErrorMetrics(t *testing.T) {
	lines := []string{"SET s v",
		`EVAL "redis.pcall('lpush',KEYS[1],'x') return 1" 1 s`, `EVAL "return redis.call('lpush',KEYS[1],'x')" 1 s`,
		`EVAL "return {redis.pcall('incr',KEYS[1]), redis.error_reply('MINE x')}" 1 s`, `EVAL "return redis.call('nosuch')" 0`,
		"MULTI", "SET", "EXEC", "MULTI", "LPUSH s x", `EVAL "return redis.pcall('incr',KEYS[1])" 1 s`, "EXEC", "GET", "NOSUCH"}
	c := runAfterResetstat(t, redisAddr, lines)
	defer c.close()
	want := map[string]float64{}
	for _, section := range []string{"errorstats", "commandstats"} {
		info, err := c.do("INFO", section)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(info), "\r\n") {
			key, value, _ := strings.Cut(l, ":")
			fields := infoFields(strings.ReplaceAll(value, ",", " "))
			if prefix, ok := strings.CutPrefix(key, "errorstat_"); ok {
				want["redis_errors_total{err="+prefix+"}"] = atof(t, fields["count"])
			}
			if cmd, ok := strings.CutPrefix(key, "cmdstat_"); ok && fields["failed_calls"] != "0" {
				want["redis_commands_failed_calls_total{cmd="+cmd+"}"] = atof(t, fields["failed_calls"])
			}
			if cmd, ok := strings.CutPrefix(key, "cmdstat_"); ok && fields["rejected_calls"] != "0" {
				want["redis_commands_rejected_calls_total{cmd="+cmd+"}"] = atof(t, fields["rejected_calls"])
			}
		}
	}
	if len(want) < 5 {
		t.Fatalf("Redis counted too few errors to compare: %v", want)
	}

	srv := server.New(server.Config{Addr: "127.0.0.1:0", Dir: t.TempDir()})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	fc := runAfterResetstat(t, srv.Addr(), lines)
	defer fc.close()
	if _, err := fc.do("CONFIG", "SET", "metrics-addr", "127.0.0.1:0"); err != nil || srv.MetricsAddr() == "" {
		t.Fatalf("CONFIG SET metrics-addr: %v", err)
	}
	got := map[string]float64{}
	for name, f := range families(t, "http://"+srv.MetricsAddr()+"/metrics") {
		label := map[string]string{"redis_errors_total": "err", "redis_commands_failed_calls_total": "cmd",
			"redis_commands_rejected_calls_total": "cmd"}[name]
		if label == "" {
			continue
		}
		for _, m := range f.Metric {
			for _, l := range m.Label {
				if l.GetName() == label && m.GetCounter().GetValue() != 0 {
					got[name+"{"+label+"="+l.GetValue()+"}"] = m.GetCounter().GetValue()
				}
			}
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("/metrics:\n got: %v\nwant: %v", got, want)
	}
}

// runAfterResetstat runs lines on a new connection after FLUSHALL and
// CONFIG RESETSTAT and returns the connection.
func runAfterResetstat(t *testing.T, addr string, lines []string) *rawConn {
	t.Helper()
	c, err := dialRaw(addr)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range append([]string{"FLUSHALL", "CONFIG RESETSTAT"}, lines...) {
		args, err := splitArgs(line)
		if err != nil {
			c.close()
			t.Fatal(err)
		}
		if _, err := c.do(args...); err != nil {
			c.close()
			t.Fatalf("%q: %v", line, err)
		}
	}
	return c
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return f
}

// TestErrorstatsManyPrefixes: Redis 7.0.15 tracks every error prefix
// (its incrementErrorCount has no limit; the 128-prefix cap came in a
// later release), so 200 prefixes are 200 errorstat_ lines on both.
func TestErrorstatsManyPrefixes(t *testing.T) {
	lines := []string{"CONFIG RESETSTAT"}
	for i := range 200 {
		lines = append(lines, fmt.Sprintf(`EVAL "return redis.error_reply('PFX%d boom')" 0`, i))
	}
	lines = append(lines, "INFO errorstats", "CONFIG RESETSTAT", "INFO errorstats")
	runCases(t, []tcase{{"many-prefixes", lines}})
}
