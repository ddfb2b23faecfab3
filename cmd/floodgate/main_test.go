package main

import (
	"bufio"
	"bytes"
	"net"
	"os/exec"
	"path/filepath"
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
		for _, flag := range []string{"redis.conf", "--port", "--version", "--goroutine-conns"} {
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

	t.Run("shutdown", func(t *testing.T) {
		cmd, addr, logs := startBinary(t, bin)
		conn := ping(t, addr)
		conn.Write([]byte("SHUTDOWN\r\n"))
		waitExit(t, cmd, logs)
	})
}

// startBinary runs floodgate on a free port and waits for its startup line.
func startBinary(t *testing.T, bin string) (*exec.Cmd, string, *logBuffer) {
	t.Helper()
	port := redistest.FreePort(t)
	logs := &logBuffer{}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port))
	cmd.Stderr = logs
	cmd.Stdout = logs
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
	if !strings.Contains(logs.String(), "Ready to accept connections") || !strings.Contains(logs.String(), "Redis is now ready to exit, bye bye...") {
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
