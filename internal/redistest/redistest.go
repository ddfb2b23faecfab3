// Package redistest holds what floodgate's tests share: a throw-away
// redis-server to compare with (Start, Launch), a port of a test's own
// (ReservePort), and one way to wait for something to happen (Eventually).
// Tests wait on events with a generous deadline rather than sleeping or
// timing: a loaded machine makes them slower, never wrong.
package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Patience is how long Eventually and a starting redis-server may take: far
// more than anything needs on an idle machine, so only a real failure
// reaches it.
const Patience = 2 * time.Minute

// Eventually polls cond until it holds, and fails t (naming what it waited
// for) if it still does not after Patience.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if err := poll(cond); err != nil {
		t.Fatalf("timed out after %v waiting for %s", Patience, what)
	}
}

// poll calls cond every millisecond at first, backing off to every 20 ms,
// until it holds or Patience has passed.
func poll(cond func() bool) error {
	deadline := time.Now().Add(Patience)
	wait := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			return errors.New("timed out")
		}
		time.Sleep(wait) // a polling interval, bounded by the deadline
		wait = min(2*wait, 20*time.Millisecond)
	}
	return nil
}

// Ping reports whether a Redis-protocol server at addr answers PING (or
// asks for a password, which also means it is up).
func Ping(addr string) bool {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	return err == nil && (strings.HasPrefix(line, "+PONG") || strings.HasPrefix(line, "-NOAUTH"))
}

// Server is a redis-server process on 127.0.0.1 with persistence off.
type Server struct {
	Addr string
	Port int
	Dir  string // its working directory (and log)
	args []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed once cmd has exited and been reaped
}

// Start starts a redis-server for t, with extra arguments, and stops it when
// the test ends. It fails t if redis-server is missing or does not start.
func Start(t testing.TB, extra ...string) *Server {
	t.Helper()
	return StartWith(t, func(int, string) []string { return extra })
}

// StartWith is Start with arguments made from the server's port and
// directory (replicaof, a config file in the directory, ...).
func StartWith(t testing.TB, extra func(port int, dir string) []string) *Server {
	t.Helper()
	s, release, err := launch(t.TempDir(), extra)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop(); release() })
	return s
}

// Launch starts a redis-server in dir, for callers without a testing.TB
// (TestMain, benchmarks' setup); the caller stops it. Its port stays
// reserved (ReservePort) until the process ends, so a Stop and Start
// find it free.
func Launch(dir string, extra func(port int, dir string) []string) (*Server, error) {
	s, _, err := launch(dir, extra)
	return s, err
}

// launchTries is how many ports launch tries: the reservation keeps test
// processes apart, but a server started by hand may still take a port
// between the check and redis-server's bind.
const launchTries = 5

func launch(dir string, extra func(port int, dir string) []string) (*Server, func(), error) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		return nil, nil, errors.New("redis-server not found on PATH: install it (apt-get install redis-server) or run `make test`, which does")
	}
	for try := 1; ; try++ {
		port, release, err := reservePort()
		if err != nil {
			return nil, nil, err
		}
		s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Port: port, Dir: dir}
		s.args = []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir}
		if extra != nil {
			s.args = append(s.args, extra(port, dir)...)
		}
		err = s.Start()
		if err == nil {
			return s, release, nil
		}
		release()
		if !errors.Is(err, errAddrInUse) || try == launchTries {
			return nil, nil, err
		}
	}
}

// Start runs the server (again, on the same port, after Stop) and waits
// until it answers PING. If redis-server exits first, the error says why,
// wrapping errAddrInUse if its port was taken.
func (s *Server) Start() error {
	logPath := filepath.Join(s.Dir, fmt.Sprintf("redis-%d.log", time.Now().UnixNano()))
	log, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command("redis-server", s.args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start redis-server: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	s.mu.Lock()
	s.cmd, s.exited = cmd, exited
	s.mu.Unlock()
	gone := func() bool {
		select {
		case <-exited:
			return true
		default:
			return false
		}
	}
	ours := func() bool {
		listens, known := listensOn(cmd.Process.Pid, s.Port)
		return listens || !known
	}
	if err := poll(func() bool { return gone() || Ping(s.Addr) && ours() }); err != nil {
		s.Stop()
		return fmt.Errorf("redis-server on %s did not answer PING within %v (log in %s)", s.Addr, Patience, s.Dir)
	}
	if gone() {
		s.Stop()
		out, _ := os.ReadFile(logPath)
		if strings.Contains(string(out), "Address already in use") {
			return fmt.Errorf("redis-server on %s: %w", s.Addr, errAddrInUse)
		}
		return fmt.Errorf("redis-server on %s exited: %s", s.Addr, out)
	}
	return nil
}

// Stop kills the server and waits for it to exit, so its port is free.
func (s *Server) Stop() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.cmd = nil
	s.mu.Unlock()
	if cmd != nil {
		cmd.Process.Kill()
		<-exited
	}
}

// SkipUnderRace skips a test that runs on one goroutine and spends its time
// computing (a model test, a sweep over every truncation of a file) when
// the binary was built with -race: the detector finds nothing in it and
// makes it 5-10 times slower. make test runs such a package once more
// without -race, where the test runs in full (scripts/test.sh).
func SkipUnderRace(t testing.TB) {
	t.Helper()
	if RaceEnabled {
		t.Skip("one goroutine, CPU-bound: run without -race (make test does)")
	}
}
