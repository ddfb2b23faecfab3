//go:build linux

package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/internal/transport"
	"golang.org/x/sys/unix"
)

// Connections that have sent nothing are clients as soon as their
// handshake is done: CLIENT LIST, asked right after they were opened,
// lists them all, as Redis does (it accepts in the round that reads the
// request). redis-py's test_client_list_client_id counts on it. With the
// connections accepted on a goroutine of their own, most rounds missed
// some (GOMAXPROCS=2: every run; GOMAXPROCS=1: one in ten).
func TestClientListSeesNewConnections(t *testing.T) {
	srv := startServer(t, Config{})
	admin := dialRaw(t, srv)
	admin.send("PING\r\n")
	admin.expect("+PONG\r\n")
	for round := 0; round < 20; round++ {
		var conns []net.Conn
		for i := 0; i < 20; i++ {
			conns = append(conns, dialConnOver(t, srv, viaLoop))
		}
		admin.send("CLIENT LIST\r\n")
		list := readBulk(t, admin)
		for i, c := range conns {
			if !strings.Contains(list, " addr="+c.LocalAddr().String()+" ") {
				t.Fatalf("round %d: connection %d (%s) not in CLIENT LIST:\n%s", round, i, c.LocalAddr(), list)
			}
		}
		for _, c := range conns {
			c.Close()
		}
	}
}

// A socket accepted by the event loop is what one accepted on a goroutine
// is: the same CLIENT LIST addr and laddr (IPv4 and IPv6, as Go's net
// package writes them), TCP_NODELAY, and tcp-keepalive's probes as
// Redis's anetKeepAlive sets them (interval: a third, rounded down).
func TestAcceptedSockets(t *testing.T) {
	type sockopts struct{ nodelay, keepalive, idle, intvl, cnt int }
	for _, transport := range []string{viaLoop, viaGoroutine} {
		t.Run(transport, func(t *testing.T) {
			srv := Prepare(Config{Addr: "127.0.0.1:0", GoroutineConns: transport == viaGoroutine})
			srv.binds = []string{"127.0.0.1", "-::1"}
			srv.Init()
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			admin := dialRaw(t, srv)
			newest := func() (*Client, sockopts) {
				c := srv.clientsByID()[len(srv.clientsByID())-1]
				fd := c.conn.tr.SocketFD()
				var o sockopts
				o.nodelay, _ = unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY)
				o.keepalive, _ = unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_KEEPALIVE)
				o.idle, _ = unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE)
				o.intvl, _ = unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL)
				o.cnt, _ = unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPCNT)
				return c, o
			}
			for _, tc := range []struct {
				keepalive string
				want      sockopts
			}{
				{"300", sockopts{1, 1, 300, 100, 3}},
				{"10", sockopts{1, 1, 10, 3, 3}},
				{"2", sockopts{1, 1, 2, 1, 3}},
			} {
				admin.send(respCommand("CONFIG", "SET", "tcp-keepalive", tc.keepalive))
				admin.expect("+OK\r\n")
				c := dialConnOver(t, srv, viaLoop)
				c.Write([]byte("PING\r\n"))
				if line, err := bufio.NewReader(c).ReadString('\n'); line != "+PONG\r\n" {
					t.Fatalf("PING: %q, %v", line, err)
				}
				if _, got := newest(); got != tc.want {
					t.Errorf("tcp-keepalive %s: socket options %+v, want %+v", tc.keepalive, got, tc.want)
				}
			}
			_, port, _ := net.SplitHostPort(srv.Addr())
			for _, host := range []string{"127.0.0.1", "::1"} {
				nc, err := net.Dial("tcp", net.JoinHostPort(host, port))
				if err != nil {
					t.Logf("%s: %v", host, err) // no IPv6 here
					continue
				}
				defer nc.Close()
				nc.SetDeadline(time.Now().Add(testDeadline))
				nc.Write([]byte("CLIENT INFO\r\n"))
				rd := bufio.NewReader(nc)
				rd.ReadString('\n') // the bulk's header
				line, err := rd.ReadString('\n')
				if err != nil {
					t.Fatal(err)
				}
				want := " addr=" + nc.LocalAddr().String() + " laddr=" + nc.RemoteAddr().String() + " "
				if !strings.Contains(line, want) {
					t.Errorf("CLIENT INFO %q: want %q", line, want)
				}
			}
		})
	}
}

// CONFIG SET port moves the server to another port: the old one refuses
// connections as soon as the command has answered, connections already
// open keep working, and the new port serves.
func TestConfigSetPortMovesListener(t *testing.T) {
	for _, transport := range []string{viaLoop, viaGoroutine} {
		t.Run(transport, func(t *testing.T) {
			srv := startServerOver(t, Config{}, transport)
			oldAddr := srv.Addr()
			admin := dialRaw(t, srv)
			for i := 0; i < 3; i++ {
				port := strconv.Itoa(redistest.ReservePort(t))
				admin.send(respCommand("CONFIG", "SET", "port", port))
				admin.expect("+OK\r\n")
				if c, err := net.Dial("tcp", oldAddr); err == nil {
					c.Close()
					t.Fatalf("%s still accepts after CONFIG SET port %s", oldAddr, port)
				}
				admin.send("PING\r\n")
				admin.expect("+PONG\r\n")
				newAddr := net.JoinHostPort("127.0.0.1", port)
				c, err := net.Dial("tcp", newAddr)
				if err != nil {
					t.Fatal(err)
				}
				c.SetDeadline(time.Now().Add(testDeadline))
				c.Write([]byte("PING\r\n"))
				if line, err := bufio.NewReader(c).ReadString('\n'); line != "+PONG\r\n" {
					t.Fatalf("PING on the new port: %q, %v", line, err)
				}
				c.Close()
				oldAddr = newAddr
			}
		})
	}
}

// A listener Serve is given, whatever its type, is accepted from on a
// goroutine; its TCP connections are still served by the event loop, and
// Close closes the listener.
func TestServeOwnListener(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &countingListener{Listener: tcp}
	srv := New(Config{})
	srv.Serve(ln)
	for i := 0; i < 3; i++ {
		c := dialRaw(t, srv)
		c.send("PING\r\n")
		c.expect("+PONG\r\n")
	}
	if n := ln.accepted.Load(); n != 3 {
		t.Fatalf("the listener accepted %d connections, want 3", n)
	}
	if srv.loop.Load() == nil {
		t.Fatal("the connections were not handed to the event loop")
	}
	srv.Close()
	if _, err := net.Dial("tcp", tcp.Addr().String()); err == nil {
		t.Fatal("the listener still accepts after Close")
	}
}

type countingListener struct {
	net.Listener
	accepted atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
	}
	return c, err
}

// The listening sockets the loop polls (duplicates of the server's) are
// closed when they are replaced and when the server closes.
func TestLoopReleasesListeners(t *testing.T) {
	before := openFDs(t)
	for i := 0; i < 10; i++ {
		srv := New(Config{Addr: "127.0.0.1:0"})
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		admin := dialRaw(t, srv)
		for j := 0; j < 3; j++ {
			admin.send(respCommand("CONFIG", "SET", "port", "0"))
			admin.expect("+OK\r\n")
		}
		srv.Close()
		admin.expectClosed()
		admin.c.Close()
	}
	if after := openFDs(t); after > before+2 {
		t.Fatalf("descriptors: %d before, %d after 10 servers that changed port 3 times", before, after)
	}
}

func openFDs(t *testing.T) int {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	return len(fds)
}

// With no descriptor left, not even the spare, a client that connects
// waits: the event loop takes the listening socket out of its epoll set
// and retries after a growing pause (5 ms, 10 ms, ...), rather than spin
// on a socket that stays readable, and serves the client once
// descriptors are free. The server runs in a subprocess whose descriptor
// table is full.
func TestAcceptBackoff(t *testing.T) {
	if os.Getenv("FLOODGATE_BACKOFF_CHILD") == "1" {
		backoffChild()
		return
	}
	stdin, out := startChild(t, "TestAcceptBackoff", "FLOODGATE_BACKOFF_CHILD=1")
	readLine := func() string { return readChildLine(t, out) }
	addr := readLine()
	c, err := net.Dial("tcp", addr) // completes in the kernel's backlog
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testDeadline))
	c.Write([]byte("PING\r\n"))
	if got := readLine(); got != "failing" { // the child saw backoffFailures failed accepts
		t.Fatalf("child: %q", got)
	}
	io.WriteString(stdin, "release\n")
	if line, err := bufio.NewReader(c).ReadString('\n'); line != "+PONG\r\n" {
		t.Fatalf("PING once descriptors are free: %q, %v", line, err)
	}
	stdin.Close()
	gaps := strings.Fields(readLine())
	if len(gaps) < backoffFailures-1 {
		t.Fatalf("child: gaps %q", gaps)
	}
	want := 5 * time.Millisecond
	for i, g := range gaps[:backoffFailures-1] {
		ns, _ := strconv.ParseInt(g, 10, 64)
		if time.Duration(ns) < want {
			t.Fatalf("failed accept %d came %v after the one before, want at least %v (gaps %q)", i+2, time.Duration(ns), want, gaps)
		}
		want = min(2*want, time.Second)
	}
}

// backoffFailures is how many failed accepts the child waits for.
const backoffFailures = 5

func backoffChild() {
	failures := make(chan time.Time, 100)
	logger := slog.New(failureRecorder{failures})
	srv := New(Config{Addr: "127.0.0.1:0", Logger: logger})
	if err := srv.Start(); err != nil {
		panic(err)
	}
	in := bufio.NewReader(os.Stdin)
	// A first client makes the event loop, which needs descriptors.
	first, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		panic(err)
	}
	// Held open to the end: unreachable, its finalizer would close it at
	// a collection, and the two descriptors freed (its own and the
	// server's side) would let the parent's client in, with no failed
	// accept to wait for (the hang that TestAcceptBackoff had).
	defer first.Close()
	first.Write([]byte("PING\r\n"))
	if line, err := bufio.NewReader(first).ReadString('\n'); line != "+PONG\r\n" {
		panic(fmt.Sprintf("PING: %q, %v", line, err))
	}
	// The first-connection watch lets go of its descriptor watchLinger
	// after the loop took the socket: a slot freed after the filling
	// would let the client in.
	deadline := time.Now().Add(testDeadline)
	for !transport.WatchIdle() {
		if time.Now().After(deadline) {
			panic("the first-connection watch is still open")
		}
		time.Sleep(time.Millisecond) // polling, bounded by the deadline
	}
	// Fill the descriptor table: drop the spare, cap the table at the
	// highest open descriptor and open files into every free slot below.
	processSpare.mu.Lock()
	processSpare.f.Close()
	processSpare.f = nil
	processSpare.mu.Unlock()
	entries, _ := os.ReadDir("/proc/self/fd")
	highest := 0
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			highest = max(highest, n)
		}
	}
	var old syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: uint64(highest + 1), Max: old.Max}); err != nil {
		panic(err)
	}
	var fillers []int
	for {
		fd, err := unix.Open(os.DevNull, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			break
		}
		fillers = append(fillers, fd)
	}
	fmt.Println(srv.Addr())
	var times []time.Time
	for len(times) < backoffFailures {
		times = append(times, <-failures)
	}
	fmt.Println("failing")
	in.ReadString('\n') // release
	for _, fd := range fillers {
		unix.Close(fd)
	}
	syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
	io.ReadAll(in)
	var gaps []string
	for i := 1; i < len(times); i++ {
		gaps = append(gaps, strconv.FormatInt(int64(times[i].Sub(times[i-1])), 10))
	}
	fmt.Println(strings.Join(gaps, " "))
	srv.Close()
}

// failureRecorder is a slog.Handler that sends the (monotonic) time of
// every failed accept it is told of.
type failureRecorder struct{ failures chan<- time.Time }

func (f failureRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (f failureRecorder) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "Error accepting a client connection") {
		select {
		case f.failures <- time.Now():
		default:
		}
	}
	return nil
}
func (f failureRecorder) WithAttrs([]slog.Attr) slog.Handler { return f }
func (f failureRecorder) WithGroup(string) slog.Handler      { return f }

// While a script runs past lua-time-limit on the event loop, the loop
// still accepts, as Redis's processEventsWhileBlocked does: a connection
// opened meanwhile is a client at once (CLIENT LIST is not allowed while
// busy, so its own PING says so: BUSY) and is served once the script is
// killed.
func TestAcceptWhileBusy(t *testing.T) {
	srv := startServer(t, Config{LuaTimeLimit: 20 * time.Millisecond})
	runner, other := dialRaw(t, srv), dialRaw(t, srv)
	other.send("PING\r\n")
	other.expect("+PONG\r\n")
	runner.send(respCommand("EVAL", "while true do end", "0"))
	waitFor(t, "BUSY", func() bool {
		other.send("PING\r\n")
		line, err := other.rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return line == "-"+errBusy+"\r\n"
	})
	before := srv.TotalConnectionCount()
	late := dialRaw(t, srv)
	waitFor(t, "the new connection accepted", func() bool { return srv.TotalConnectionCount() == before+1 })
	late.send("PING\r\n")
	late.expect("-" + errBusy + "\r\n")
	other.send("SCRIPT KILL\r\n")
	other.expect("+OK\r\n")
	runner.rd.ReadString('\n') // the killed script's error
	late.send("PING\r\n")
	late.expect("+PONG\r\n")
}
