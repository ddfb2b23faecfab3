package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
)

// buildBinary builds floodgate into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "floodgate")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)

	t.Run("help", func(t *testing.T) {
		out, err := exec.Command(bin, "--help").CombinedOutput()
		if err != nil {
			t.Fatalf("--help: %v\n%s", err, out)
		}
		for _, flag := range []string{"-bind", "-port", "-databases", "-requirepass", "-loglevel", "-version"} {
			if !bytes.Contains(out, []byte(flag)) {
				t.Errorf("--help does not list %s:\n%s", flag, out)
			}
		}
	})

	t.Run("version", func(t *testing.T) {
		out, err := exec.Command(bin, "--version").Output()
		if err != nil || !strings.Contains(string(out), "Redis 7.0.15 compatible") {
			t.Fatalf("--version: %q %v", out, err)
		}
	})

	t.Run("sigterm", func(t *testing.T) {
		cmd, addr, logs := startBinary(t, bin)
		ping(t, addr)
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		waitExit(t, cmd, logs)
	})

	// A restart keeps every key: SHUTDOWN and SIGTERM save (Redis's default
	// save points), and the next start loads the file.
	t.Run("restart-keeps-keys", func(t *testing.T) {
		dir := t.TempDir()
		for i, stop := range []string{"SHUTDOWN", "SIGTERM", "SHUTDOWN NOSAVE"} {
			cmd, addr, logs := startBinary(t, bin, "--dir", dir)
			conn := ping(t, addr)
			r := bufio.NewReader(conn)
			if i > 0 {
				conn.Write([]byte("GET counter\r\n"))
				if line, _ := r.ReadString('\n'); line != fmt.Sprintf("$1\r\n") {
					t.Fatalf("start %d: GET counter: %q\n%s", i, line, logs)
				}
				if v, _ := r.ReadString('\n'); v != fmt.Sprintf("%d\r\n", i) {
					t.Fatalf("start %d: counter = %q\n%s", i, v, logs)
				}
			}
			conn.Write([]byte("INCR counter\r\n"))
			r.ReadString('\n')
			if stop == "SIGTERM" {
				cmd.Process.Signal(syscall.SIGTERM)
			} else {
				conn.Write([]byte(stop + "\r\n"))
			}
			waitExit(t, cmd, logs)
		}
	})

	t.Run("refuses-corrupt-file", func(t *testing.T) {
		for name, content := range map[string]string{
			"truncated": "REDIS0010\xfe\x00\xfb\x01\x00\x00\x01k",
			"checksum":  "REDIS0010\xfe\x00\x00\x01k\x01v\xff\x01\x02\x03\x04\x05\x06\x07\x08",
			"signature": "NOTREDIS!",
		} {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "dump.rdb"), []byte(content), 0o644)
			out, err := exec.Command(bin, "--port", strconv.Itoa(redistest.FreePort(t)), "--dir", dir).CombinedOutput()
			want := map[string]string{"truncated": "Short read or OOM loading DB. Unrecoverable error, aborting now.",
				"checksum": "Wrong RDB checksum expected", "signature": "Wrong signature trying to load DB from file"}[name]
			if err == nil || !strings.Contains(string(out), want) {
				t.Errorf("%s: exit %v, output %s", name, err, out)
			}
		}
	})

	t.Run("shutdown", func(t *testing.T) {
		cmd, addr, logs := startBinary(t, bin)
		conn := ping(t, addr)
		conn.Write([]byte("SHUTDOWN\r\n"))
		waitExit(t, cmd, logs)
	})
}

// startBinary runs floodgate on a free port, with its RDB file in a
// directory of the test's own (or the one given), and waits for its
// startup line.
func startBinary(t *testing.T, bin string, args ...string) (*exec.Cmd, string, *logBuffer) {
	t.Helper()
	port := redistest.FreePort(t)
	logs := &logBuffer{}
	if !slices.Contains(args, "--dir") {
		args = append(args, "--dir", t.TempDir())
	}
	cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(port)}, args...)...)
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), logs
}

// ping connects, polling until the server listens, and checks PONG.
func ping(t *testing.T, addr string) net.Conn {
	t.Helper()
	var conn net.Conn
	redistest.Eventually(t, "floodgate to listen on "+addr, func() bool {
		var err error
		conn, err = net.Dial("tcp", addr)
		return err == nil
	})
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(redistest.Patience))
	conn.Write([]byte("PING\r\n"))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || line != "+PONG\r\n" {
		t.Fatalf("PING: %q %v", line, err)
	}
	return conn
}

// waitExit waits for the process and checks it exited 0 after logging its
// startup and shutdown.
func waitExit(t *testing.T, cmd *exec.Cmd, logs *logBuffer) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v\n%s", err, logs)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("floodgate did not exit\n%s", logs)
	}
	if !strings.Contains(logs.String(), "Ready to accept connections") || !strings.Contains(logs.String(), "shutting down") {
		t.Errorf("logs lack the startup or shutdown line:\n%s", logs)
	}
}

// logBuffer is the process's stderr: exec copies into it from its own
// goroutine while the test may read it.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
