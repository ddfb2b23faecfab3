package server

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// serverLog is a log file a test's server writes (at verbose, as
// "loglevel verbose" would), read back as an operator would read it.
type serverLog struct {
	t    *testing.T
	path string
}

func newServerLog(t *testing.T) (*serverLog, *slog.Logger) {
	path := filepath.Join(t.TempDir(), "floodgate.log")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return &serverLog{t, path}, NewRedisLogger(f, redisLogLevels["verbose"])
}

// lines returns the log's lines whose level mark and message match
// (message a regular expression, anchored).
func (l *serverLog) lines(mark byte, message string) []string {
	b, _ := os.ReadFile(l.path)
	re := regexp.MustCompile(`^\d+:M \d\d \w{3} \d{4} \d\d:\d\d:\d\d\.\d{3} ` + regexp.QuoteMeta(string(mark)) + " " + message + "$")
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if re.MatchString(line) {
			out = append(out, line)
		}
	}
	return out
}

// wait polls the log until a line matches, with redistest's deadline.
func (l *serverLog) wait(mark byte, message string) {
	l.t.Helper()
	waitFor(l.t, "log line "+string(mark)+" "+message, func() bool { return len(l.lines(mark, message)) > 0 })
}

// TestLogSlowScript: a script past busy-reply-threshold is logged once,
// at warning, in Redis's words, with its SHA; a function with its name and
// FUNCTION KILL.
func TestLogSlowScript(t *testing.T) {
	log, logger := newServerLog(t)
	srv := startServer(t, Config{LuaTimeLimit: 20 * time.Millisecond, Logger: logger})
	ctx := context.Background()
	c, scripter := newRedisClient(t, srv), newRedisClient(t, srv)
	body := `while true do end`
	sha, err := c.ScriptLoad(ctx, body).Result()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- scripter.EvalSha(ctx, sha, nil).Err() }()
	const slow = `Slow script detected: still in execution after \d+ milliseconds\. You can try killing the script using the `
	log.wait('#', slow+`SCRIPT KILL command\. Script name is: `+sha+`\.`)
	waitFor(t, "SCRIPT KILL", func() bool { return c.ScriptKill(ctx).Err() == nil })
	<-done
	if n := len(log.lines('#', slow+".*")); n != 1 {
		t.Errorf("%d slow-script lines for one script", n)
	}

	lib := "#!lua name=lib\nredis.register_function('spin', function() while true do end end)"
	if err := c.FunctionLoad(ctx, lib).Err(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- scripter.FCall(ctx, "spin", nil).Err() }()
	log.wait('#', slow+`FUNCTION KILL command\. Script name is: spin\.`)
	waitFor(t, "FUNCTION KILL", func() bool { return c.FunctionKill(ctx).Err() == nil })
	<-done
}

// TestLogClientClosed: an idle client past timeout (verbose) and a client
// over its output buffer limit (warning, with its CLIENT LIST line), as
// Redis logs them.
func TestLogClientClosed(t *testing.T) {
	parallel(t)
	log, logger := newServerLog(t)
	srv := startServer(t, Config{Logger: logger})
	admin := dialRaw(t, srv)
	admin.send("CONFIG SET timeout 1\r\n")
	admin.expect("+OK\r\n")
	idle := dialRaw(t, srv)
	idle.send("PING\r\n")
	idle.expect("+PONG\r\n")
	log.wait('-', `Closing idle client`)
	admin = dialRaw(t, srv) // the first was idle too
	admin.send("CONFIG SET timeout 0\r\n")
	admin.expect("+OK\r\n")

	admin.send("CONFIG SET client-output-buffer-limit \"normal 1mb 0 0\"\r\n")
	admin.expect("+OK\r\n")
	admin.send(respCommand("SET", "big", strings.Repeat("x", 64<<10)))
	admin.expect("+OK\r\n")
	reader := dialRaw(t, srv)
	reader.send("CLIENT SETNAME slowreader\r\n" + strings.Repeat("GET big\r\n", 400))
	log.wait('#', `Client id=\d+ addr=\S+ laddr=\S+ fd=\d+ name=slowreader .* scheduled to be closed ASAP for overcoming of output buffer limits\.`)
}

// TestLogMaxmemoryBelowUsage: CONFIG SET maxmemory under the memory in use
// warns as Redis's updateMaxmemory; a limit above it does not.
func TestLogMaxmemoryBelowUsage(t *testing.T) {
	log, logger := newServerLog(t)
	srv := startServer(t, Config{Logger: logger})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	const warning = `WARNING: the new maxmemory value set via CONFIG SET \(%s\) is smaller than the current memory usage \(\d+\)\. ` +
		`This will result in key eviction and/or the inability to accept new write commands depending on the maxmemory-policy\.`
	if err := c.ConfigSet(ctx, "maxmemory", "1gb").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.ConfigSet(ctx, "maxmemory", "1").Err(); err != nil {
		t.Fatal(err)
	}
	log.wait('#', strings.Replace(warning, "%s", "1", 1))
	if got := log.lines('#', strings.Replace(warning, "%s", strconv.Itoa(1<<30), 1)); len(got) != 0 {
		t.Errorf("warned for a limit above usage: %v", got)
	}
	c.ConfigSet(ctx, "maxmemory", "0")
}

// TestLogBackgroundSave: BGSAVE's start (with the pid that saves: the
// server's own, as floodgate does not fork), success and failure lines.
func TestLogBackgroundSave(t *testing.T) {
	log, logger := newServerLog(t)
	dir := t.TempDir()
	srv := startServer(t, Config{Logger: logger, Dir: dir})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	c.Set(ctx, "k", "v", 0)
	if err := c.BgSave(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	log.wait('*', `Background saving started by pid `+strconv.Itoa(os.Getpid()))
	log.wait('*', `DB saved on disk`)
	log.wait('*', `Background saving terminated with success`)

	// A directory that is gone by the time of the save.
	gone := filepath.Join(t.TempDir(), "gone")
	os.Mkdir(gone, 0o755)
	failing := newRedisClient(t, startServer(t, Config{Logger: logger, Dir: gone}))
	os.Remove(gone)
	failing.Set(ctx, "k", "v", 0)
	failing.BgSave(ctx)
	log.wait('#', `Background saving error`)
}

// TestLogConfigRewrite: CONFIG REWRITE's success at warning, as Redis.
func TestLogConfigRewrite(t *testing.T) {
	log, logger := newServerLog(t)
	file := filepath.Join(t.TempDir(), "redis.conf")
	os.WriteFile(file, []byte("port 0\n"), 0o644)
	srv := Prepare(Config{Addr: "127.0.0.1:0", Logger: logger})
	if err := srv.LoadConfig(file, nil, ""); err != nil {
		t.Fatal(err)
	}
	srv.Init()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { c.Close() })
	if err := c.ConfigRewrite(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	log.wait('#', `CONFIG REWRITE executed with success\.`)
}
