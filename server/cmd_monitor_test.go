package server

import (
	"bufio"
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
)

// monitorConn puts a raw connection in MONITOR mode and returns its reader.
func monitorConn(t *testing.T, nc net.Conn) *bufio.Reader {
	t.Helper()
	r := bufio.NewReader(nc)
	if _, err := nc.Write([]byte("MONITOR\r\n")); err != nil {
		t.Fatal(err)
	}
	if line := readLine(t, r); line != "+OK" {
		t.Fatalf("MONITOR: %q", line)
	}
	return r
}

func readLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("read: %v (after %q)", err, line)
	}
	return strings.TrimSuffix(line, "\r\n")
}

var monitorLineRE = regexp.MustCompile(`^\+[0-9]+\.[0-9]{6} \[([0-9]+) ([^\]]+)\] (.*)$`)

// TestMonitorClientState: a monitor is flag O in CLIENT LIST, the idle
// timeout leaves it alone (Redis skips replicas), and RESET ends it.
func TestMonitorClientState(t *testing.T) {
	srv := startServer(t, Config{})
	ctx := context.Background()
	c := newRedisClient(t, srv)
	c.Ping(ctx) // its HELLO before MONITOR
	mon := dialConn(t, srv)
	r := monitorConn(t, mon)
	idle := dialConn(t, srv)
	if _, err := idle.Write([]byte("PING\r\n")); err != nil {
		t.Fatal(err)
	}
	idleR := bufio.NewReader(idle)
	if line := readLine(t, idleR); line != "+PONG" {
		t.Fatalf("PING: %q", line)
	}
	list := c.ClientList(ctx).Val()
	if strings.Count(list, " flags=O ") != 1 {
		t.Fatalf("CLIENT LIST has no single flags=O:\n%s", list)
	}
	if err := c.ConfigSet(ctx, "timeout", "1").Err(); err != nil {
		t.Fatal(err)
	}
	// The idle client's PING; CLIENT LIST and CONFIG SET are admin
	// commands, not shown.
	if line := readLine(t, r); !strings.HasSuffix(line, `] "PING"`) {
		t.Fatalf("monitor line %q, want the idle client's PING", line)
	}
	srv.checkClients(time.Now().Add(time.Minute)) // everyone is idle for a minute
	if line, err := idleR.ReadString('\n'); err == nil {
		t.Fatalf("the idle client was not closed: read %q", line)
	}
	if _, err := mon.Write([]byte("PING\r\n")); err != nil {
		t.Fatal(err)
	}
	if line := readLine(t, r); line != "+PONG" {
		t.Fatalf("the monitor's PING: %q", line)
	}
	if line := readLine(t, r); !strings.HasSuffix(line, `] "PING"`) {
		t.Fatalf("the monitor's own PING line: %q", line)
	}
	if err := c.ConfigSet(ctx, "timeout", "0").Err(); err != nil {
		t.Fatal(err)
	}
	// go-redis's connection was idle too: it opened a new one.
	if line := readLine(t, r); !strings.HasSuffix(line, `] "hello" "2"`) {
		t.Fatalf("monitor line %q, want go-redis's HELLO", line)
	}
	if _, err := mon.Write([]byte("RESET\r\n")); err != nil {
		t.Fatal(err)
	}
	if line := readLine(t, r); line != "+RESET" {
		t.Fatalf("RESET: %q", line)
	}
	if list := c.ClientList(ctx).Val(); strings.Contains(list, "flags=O") {
		t.Fatalf("still a monitor after RESET:\n%s", list)
	}
	c.Set(ctx, "k", "v", 0)
	if _, err := mon.Write([]byte("PING\r\n")); err != nil {
		t.Fatal(err)
	}
	if line := readLine(t, r); line != "+PONG" {
		t.Fatalf("after RESET the monitor got %q, want +PONG", line)
	}
}

// TestMonitorUnixSocket: a Unix-socket client is shown as unix:<path>.
func TestMonitorUnixSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fg.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Config{})
	srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	dial := func() net.Conn {
		nc, err := net.Dial("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		nc.SetDeadline(time.Now().Add(testDeadline))
		return nc
	}
	r := monitorConn(t, dial())
	w := dial()
	if _, err := w.Write([]byte("SELECT 2\r\nSET k v\r\n")); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`[2 unix:` + path + `] "SELECT" "2"`, `[2 unix:` + path + `] "SET" "k" "v"`} {
		line := readLine(t, r)
		if !monitorLineRE.MatchString(line) || !strings.HasSuffix(line, want) {
			t.Errorf("monitor line %q, want one ending %q", line, want)
		}
	}
}

// TestMonitorRedisCli: `redis-cli monitor` prints what the server runs.
func TestMonitorRedisCli(t *testing.T) {
	if _, err := exec.LookPath("redis-cli"); err != nil {
		t.Skip("redis-cli not installed")
	}
	srv := startServer(t, Config{})
	_, port, _ := net.SplitHostPort(srv.Addr())
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, "redis-cli", "-p", port, "monitor")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	r := bufio.NewReader(out)
	if line := readLine(t, r); strings.TrimSpace(line) != "OK" {
		t.Fatalf("redis-cli monitor printed %q first", line)
	}
	c := newRedisClient(t, srv)
	c.Set(context.Background(), "greeting", "hello world", 0)
	want := regexp.MustCompile(`^[0-9]+\.[0-9]{6} \[0 127\.0\.0\.1:[0-9]+\] "set" "greeting" "hello world"$`)
	redistest.Eventually(t, "redis-cli shows the SET", func() bool {
		line := strings.TrimSpace(readLine(t, r))
		return want.MatchString(line)
	})
}

// TestRedactedArgs: which arguments MONITOR and the slow log hide, as
// Redis's handlers redact them on their way to their first error.
func TestRedactedArgs(t *testing.T) {
	initCommandTable()
	for _, c := range []struct {
		line string
		want []int
	}{
		{"auth p", []int{1}},
		{"auth u p", []int{1, 2}},
		{"auth u p x", nil},
		{"hello 3 auth u p", []int{3, 4}},
		{"hello 3 setname n auth u p", []int{5, 6}},
		{"hello 4 auth u p", nil},
		{"hello 3 bogus auth u p", nil},
		{"hello 3 auth u", nil},
		{"migrate h 1 k 0 10 auth p", []int{7}},
		{"migrate h 1 k 0 10 copy auth2 u p replace auth q", []int{8, 9, 12}},
		{"migrate h 1 k 0 10 auth", nil},
		{"migrate h 1 k 0 10 keys auth x", nil},
		{"config set requirepass p maxmemory 1 masterauth q", []int{3, 7}},
		{"set auth p", nil},
	} {
		args := [][]byte{}
		for _, w := range strings.Fields(c.line) {
			args = append(args, []byte(w))
		}
		cmd := commandTable.lookup(args[0])
		if len(cmd.Subcommands) > 0 {
			cmd = cmd.subcommand(args[1])
		}
		got := redactedArgs(cmd, args)
		if len(got) != len(c.want) {
			t.Errorf("%s: redacted %v, want %v", c.line, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: redacted %v, want %v", c.line, got, c.want)
				break
			}
		}
	}
}
