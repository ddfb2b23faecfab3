package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
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
	"golang.org/x/sys/unix"
)

// buildBinary is floodgate's binary, built once for the test binary: a go
// build took about 20 s of a loaded machine, and several tests need it.
func buildBinary(t *testing.T) string { return redistest.BuildT(t, ".") }

func TestMain(m *testing.M) {
	code := m.Run()
	redistest.RemoveBuilt()
	os.Exit(code)
}

func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // its own processes, ports and directories
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
		if !strings.Contains(logs.String(), "Ready to accept connections") {
			t.Errorf("logs lack the startup line:\n%s", logs)
		}
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
			// A binary that starts instead of refusing is stopped, not waited for.
			ctx, cancel := context.WithTimeout(context.Background(), redistest.Patience)
			out, err := exec.CommandContext(ctx, bin, "--port", strconv.Itoa(redistest.ReservePort(t)), "--dir", dir).CombinedOutput()
			cancel()
			want := map[string]string{"truncated": "Short read or OOM loading DB. Unrecoverable error, aborting now.",
				"checksum": "Wrong RDB checksum expected", "signature": "Wrong signature trying to load DB from file"}[name]
			if err == nil || !strings.Contains(string(out), want) {
				t.Errorf("%s: exit %v, output %s", name, err, out)
			}
		}
	})

	// The binary listens before it loads; a SIGTERM while it loads exits
	// at once without saving the half-loaded dataset, as Redis does.
	t.Run("sigterm-while-loading", func(t *testing.T) {
		dir := t.TempDir()
		cmd, addr, logs := startBinary(t, bin, "--dir", dir)
		conn := ping(t, addr)
		var req bytes.Buffer
		// 3000 keys at 20 ms each: a load of a minute, which the SIGTERM cuts short.
		value := strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyz", 30)
		for i := range 3000 {
			fmt.Fprintf(&req, "SET k%d %s%d\r\n", i, value, i)
		}
		req.WriteString("SHUTDOWN\r\n")
		conn.Write(req.Bytes())
		waitExit(t, cmd, logs)
		before, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
		if err != nil {
			t.Fatal(err)
		}
		cmd, addr, logs = startBinary(t, bin, "--dir", dir, "--key-load-delay", "20000", "--loading-process-events-interval-bytes", "1024")
		var c net.Conn
		redistest.Eventually(t, "floodgate to listen on "+addr, func() bool {
			c, err = net.Dial("tcp", addr)
			return err == nil
		})
		defer c.Close()
		c.SetDeadline(time.Now().Add(redistest.Patience))
		c.Write([]byte("GET k1\r\n"))
		if line, err := bufio.NewReader(c).ReadString('\n'); line != "-LOADING Redis is loading the dataset in memory\r\n" {
			t.Fatalf("GET while loading: %q %v\n%s", line, err, logs)
		}
		cmd.Process.Signal(syscall.SIGTERM)
		waitExit(t, cmd, logs)
		for _, want := range []string{"Received shutdown signal during loading, scheduling shutdown.", "User requested shutdown..."} {
			if !strings.Contains(logs.String(), want) {
				t.Errorf("logs lack %q:\n%s", want, logs)
			}
		}
		if strings.Contains(logs.String(), "Saving") || strings.Contains(logs.String(), "Ready to accept") {
			t.Errorf("saved or reported ready:\n%s", logs)
		}
		if after, err := os.ReadFile(filepath.Join(dir, "dump.rdb")); err != nil || !bytes.Equal(before, after) {
			t.Errorf("the RDB file changed (%v)", err)
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
	port := redistest.ReservePort(t)
	logs := &logBuffer{}
	if !slices.Contains(args, "--dir") {
		args = append(args, "--dir", t.TempDir())
	}
	cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(port)}, args...)...)
	cmd.Stderr = logs
	cmd.Stdout = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), logs
}

// ping connects, polling until the server listens and has loaded its
// data (it answers LOADING until then, as Redis), and checks PONG.
func ping(t *testing.T, addr string) net.Conn {
	t.Helper()
	var conn net.Conn
	var last string
	redistest.Eventually(t, "floodgate to listen on "+addr+" and answer PONG", func() bool {
		var err error
		if conn == nil {
			if conn, err = net.Dial("tcp", addr); err != nil {
				conn = nil
				return false
			}
			conn.SetDeadline(time.Now().Add(redistest.Patience))
		}
		conn.Write([]byte("PING\r\n"))
		// One byte at a time: a reader must not buffer what the caller reads next.
		var line []byte
		b := make([]byte, 1)
		for !bytes.HasSuffix(line, []byte("\r\n")) {
			if _, err := conn.Read(b); err != nil {
				t.Fatalf("PING: %q %v", line, err)
			}
			line = append(line, b[0])
		}
		last = string(line)
		if !strings.HasPrefix(last, "-LOADING") && last != "+PONG\r\n" {
			t.Fatalf("PING: %q", last)
		}
		return last == "+PONG\r\n"
	})
	t.Cleanup(func() { conn.Close() })
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
	if !strings.Contains(logs.String(), "Redis is now ready to exit, bye bye...") {
		t.Errorf("logs lack the shutdown line:\n%s", logs)
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

// TestBinaryConfig runs the binary the way an operator would: with a
// config file, command-line overrides, a file it must refuse, and a
// shutdown while a script is busy.
func TestBinaryConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // its own processes, ports and directories
	bin := buildBinary(t)

	t.Run("refused-as-redis-server", func(t *testing.T) {
		dir := t.TempDir()
		for _, conf := range []string{
			"port 7777\nfoo bar\n", "port\n", "port abc\n", "port \"7777\n",
			"include " + filepath.Join(dir, "nosuch.conf") + "\n", "cluster-enabled yes\n",
		} {
			file := filepath.Join(dir, "redis.conf")
			os.WriteFile(file, []byte(conf), 0o644)
			var fgOut bytes.Buffer
			// A binary that starts instead of refusing is stopped, not waited for.
			ctx, cancel := context.WithTimeout(context.Background(), redistest.Patience)
			cmd := exec.CommandContext(ctx, bin, file)
			cmd.Stderr = &fgOut
			err := cmd.Run()
			cancel()
			if code := exitCode(err); code != 1 {
				t.Errorf("%q: exit %d, want 1 as redis-server", conf, code)
			}
			switch conf {
			case "cluster-enabled yes\n":
				// Redis accepts it; floodgate refuses it as Redis
				// refuses a directive it does not know.
				if !strings.Contains(fgOut.String(), "*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 1\n>>> '"+strings.TrimSpace(conf)+"'\nBad directive or wrong number of arguments\n") {
					t.Errorf("%q: floodgate says %q", conf, fgOut.String())
				}
			default:
				if _, lookErr := exec.LookPath("redis-server"); lookErr != nil {
					continue
				}
				var redisOut bytes.Buffer
				rcmd := exec.Command("redis-server", file)
				rcmd.Stdout, rcmd.Stderr = &redisOut, &redisOut
				if rerr := rcmd.Run(); exitCode(rerr) != 1 {
					t.Fatalf("%q: redis-server exits %v", conf, rerr)
				}
				want := redisOut.String()
				if i := strings.Index(want, "Fatal error"); i > 0 { // a log line: compare from its text
					want = want[i:]
				}
				if fgOut.String() != want {
					t.Errorf("%q:\nredis-server: %q\nfloodgate:    %q", conf, redisOut.String(), fgOut.String())
				}
			}
		}
	})

	t.Run("file-then-options", func(t *testing.T) {
		dir := t.TempDir()
		file := filepath.Join(dir, "redis.conf")
		port := redistest.ReservePort(t)
		os.WriteFile(file, []byte("port 1\nrequirepass secret\nappendonly yes\nloglevel debug\n"), 0o644)
		logs := &logBuffer{}
		cmd := exec.Command(bin, file, "--port", strconv.Itoa(port), "--appendonly", "no", "--loglevel", "warning", "--dir", dir)
		cmd.Stdout, cmd.Stderr = logs, logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() })
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		conn := dialWhenUp(t, addr)
		r := bufio.NewReader(conn)
		for _, step := range []struct{ send, want string }{
			{"PING\r\n", "-NOAUTH Authentication required.\r\n"},
			{"AUTH secret\r\n", "+OK\r\n"},
			{"CONFIG GET loglevel\r\n", "*2\r\n$8\r\nloglevel\r\n$7\r\nwarning\r\n"},
			{"CONFIG GET appendonly\r\n", "*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n"},
		} {
			conn.Write([]byte(step.send))
			if got := readReply(t, r); got != step.want {
				t.Errorf("%q: %q, want %q", step.send, got, step.want)
			}
		}
		cmd.Process.Signal(syscall.SIGTERM)
		waitExit(t, cmd, logs)
	})

	// daemonize yes: the command returns 0 at once and the server goes on
	// in the background, in a session of its own, with its pid file, as
	// redis-server forks; the configuration may come from standard input.
	t.Run("daemonize", func(t *testing.T) {
		dir := t.TempDir()
		port := redistest.ReservePort(t)
		pidFile := filepath.Join(dir, "fg.pid")
		conf := fmt.Sprintf("port %d\ndaemonize yes\npidfile %s\nlogfile %s\ndir %s\nsave \"\"\n",
			port, pidFile, filepath.Join(dir, "fg.log"), dir)
		cmd := exec.Command(bin, "-", "--requirepass", "secret")
		cmd.Stdin = strings.NewReader(conf)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("daemonizing: %v %s", err, out.String())
		}
		var pid int
		redistest.Eventually(t, "the pid file", func() bool {
			b, err := os.ReadFile(pidFile)
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			return err == nil && pid > 0
		})
		if pid == cmd.Process.Pid {
			t.Fatalf("the pid file names the foreground process %d", pid)
		}
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
		if sid, err := unix.Getsid(pid); err != nil || sid != pid {
			t.Errorf("daemon's session %d (%v), want its own %d", sid, err, pid)
		}
		conn := dialWhenUp(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		r := bufio.NewReader(conn)
		for _, step := range []struct{ send, want string }{
			{"AUTH secret\r\n", "+OK\r\n"},
			{"CONFIG GET daemonize\r\n", "*2\r\n$9\r\ndaemonize\r\n$3\r\nyes\r\n"},
		} {
			conn.Write([]byte(step.send))
			if got := readReply(t, r); got != step.want {
				t.Errorf("%q: %q, want %q", step.send, got, step.want)
			}
		}
		conn.Write([]byte("SHUTDOWN NOSAVE\r\n"))
		if b, err := io.ReadAll(r); err != nil || len(b) != 0 {
			t.Errorf("SHUTDOWN NOSAVE: %q %v, want the connection closed", b, err)
		}
		// (The daemon's parent is gone: a container's init may never reap
		// it, so its exit is judged by its pid file, removed as it exits.)
		redistest.Eventually(t, "the daemon to remove its pid file", func() bool {
			_, err := os.Stat(pidFile)
			return os.IsNotExist(err)
		})
	})

	// A relative config path with daemonize yes and a dir elsewhere (as
	// Debian's stock /etc/redis/redis.conf, used when readable), run by
	// floodgate and by redis-server alike: each starts in the background,
	// INFO names the file by its absolute path, and a second start with the
	// same file logs Redis's two lines, exits, and leaves the running
	// server's pid file alone.
	t.Run("daemonize-relative-config", func(t *testing.T) {
		stock, err := os.ReadFile("/etc/redis/redis.conf")
		if err != nil {
			stock = []byte("daemonize yes\nbind 127.0.0.1\n")
		}
		servers := map[string]string{"floodgate": bin}
		if path, err := exec.LookPath("redis-server"); err == nil {
			servers["redis"] = path
		}
		failed := map[string][]string{} // the second start's log lines about listening
		for name, exe := range servers {
			dir := t.TempDir()
			data := filepath.Join(dir, "data")
			os.Mkdir(data, 0o755)
			port := redistest.ReservePort(t)
			pidFile, logFile := filepath.Join(dir, name+".pid"), filepath.Join(dir, name+".log")
			conf := string(stock) + fmt.Sprintf("\ndaemonize yes\nport %d\ndir %s\npidfile %s\nlogfile %s\nsave \"\"\nappendonly no\n",
				port, data, pidFile, logFile)
			os.WriteFile(filepath.Join(dir, "redis.conf"), []byte(conf), 0o644)
			start := func() {
				cmd := exec.Command(exe, "redis.conf")
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s redis.conf: %v %s", name, err, out)
				}
			}
			start()
			var pid int
			redistest.Eventually(t, name+"'s pid file", func() bool {
				b, err := os.ReadFile(pidFile)
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				return err == nil && pid > 0
			})
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			conn := dialWhenUp(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			r := bufio.NewReader(conn)
			conn.Write([]byte("INFO server\r\n"))
			if info, want := readReply(t, r), "config_file:"+filepath.Join(dir, "redis.conf")+"\r\n"; !strings.Contains(info, want) {
				t.Errorf("%s: INFO lacks %q:\n%s", name, want, info)
			}

			start()
			redistest.Eventually(t, name+"'s second start to give up", func() bool {
				b, _ := os.ReadFile(logFile)
				return strings.Contains(string(b), "aborting.")
			})
			b, _ := os.ReadFile(logFile)
			for _, line := range strings.Split(string(b), "\n") {
				if i := strings.Index(line, "# "); i > 0 && strings.Contains(line, "listening") {
					failed[name] = append(failed[name], strings.ReplaceAll(line[i+2:], strconv.Itoa(port), "PORT"))
				}
			}
			if b, _ := os.ReadFile(pidFile); strings.TrimSpace(string(b)) != strconv.Itoa(pid) {
				t.Errorf("%s: after the second start the pid file says %q, want %d", name, b, pid)
			}
			conn.Write([]byte("SHUTDOWN NOSAVE\r\n"))
			io.ReadAll(r)
			redistest.Eventually(t, name+" to remove its pid file", func() bool {
				_, err := os.Stat(pidFile)
				return os.IsNotExist(err)
			})
		}
		want := []string{
			"Warning: Could not create server TCP listening socket 127.0.0.1:PORT: bind: Address already in use",
			"Failed listening on port PORT (TCP), aborting.",
		}
		if !slices.Equal(failed["floodgate"], want) {
			t.Errorf("floodgate logged %q, want %q", failed["floodgate"], want)
		}
		if r, ok := failed["redis"]; ok && !slices.Equal(r, want) {
			t.Errorf("redis-server logged %q, want %q", r, want)
		}
	})

	// Redis acts on SIGTERM between commands: a busy script keeps running,
	// other clients get BUSY, SCRIPT KILL ends it, and then the server exits.
	t.Run("sigterm-busy-script", func(t *testing.T) {
		cmd, addr, logs := startBinary(t, bin, "--busy-reply-threshold", "50")
		ping(t, addr)
		script := dialWhenUp(t, addr)
		script.Write([]byte("EVAL \"while true do end\" 0\r\n"))
		other := dialWhenUp(t, addr)
		otherR := bufio.NewReader(other)
		redistest.Eventually(t, "the script to be busy", func() bool {
			other.Write([]byte("PING\r\n"))
			return strings.HasPrefix(readReply(t, otherR), "-BUSY")
		})
		cmd.Process.Signal(syscall.SIGTERM)
		redistest.Eventually(t, "the SIGTERM to be logged", func() bool {
			return strings.Contains(logs.String(), "Received SIGTERM scheduling shutdown...")
		})
		other.Write([]byte("PING\r\n"))
		if got := readReply(t, otherR); !strings.HasPrefix(got, "-BUSY") {
			t.Fatalf("PING after SIGTERM: %q, want BUSY while the script runs", got)
		}
		other.Write([]byte("SCRIPT KILL\r\n"))
		if got := readReply(t, otherR); got != "+OK\r\n" {
			t.Fatalf("SCRIPT KILL: %q", got)
		}
		waitExit(t, cmd, logs)
	})

	t.Run("shutdown-nosave-busy-script", func(t *testing.T) {
		cmd, addr, logs := startBinary(t, bin, "--busy-reply-threshold", "50")
		ping(t, addr)
		script := dialWhenUp(t, addr)
		script.Write([]byte("EVAL \"redis.call('set','k','v') while true do end\" 0\r\n"))
		other := dialWhenUp(t, addr)
		otherR := bufio.NewReader(other)
		redistest.Eventually(t, "the script to be busy", func() bool {
			other.Write([]byte("PING\r\n"))
			return strings.HasPrefix(readReply(t, otherR), "-BUSY")
		})
		for _, step := range []struct{ send, want string }{
			{"SCRIPT KILL\r\n", "-UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.\r\n"},
			{"SHUTDOWN\r\n", "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n"},
		} {
			other.Write([]byte(step.send))
			if got := readReply(t, otherR); got != step.want {
				t.Errorf("%q: %q, want %q", step.send, got, step.want)
			}
		}
		other.Write([]byte("SHUTDOWN NOSAVE\r\n"))
		waitExit(t, cmd, logs)
		if !strings.Contains(logs.String(), "User requested shutdown...") {
			t.Errorf("no shutdown line:\n%s", logs)
		}
	})
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// dialWhenUp connects, polling until the server listens.
func dialWhenUp(t *testing.T, addr string) net.Conn {
	t.Helper()
	var conn net.Conn
	redistest.Eventually(t, "a connection to "+addr, func() bool {
		var err error
		conn, err = net.Dial("tcp", addr)
		return err == nil
	})
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(redistest.Patience))
	return conn
}

// readReply reads one reply: a line, or an array of bulk strings.
func readReply(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	switch line[0] {
	case '*':
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		for i := 0; i < n; i++ {
			line += readReply(t, r)
		}
	case '$':
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		if n >= 0 {
			buf := make([]byte, n+2)
			if _, err := io.ReadFull(r, buf); err != nil {
				t.Fatalf("read: %v", err)
			}
			line += string(buf)
		}
	}
	return line
}
