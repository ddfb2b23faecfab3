//go:build linux

package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A client that pipelines large replies and never reads is closed once its
// reply list reaches the hard limit, its replies dropped, and everyone
// else is answered; over every transport.
func TestOutputBufferHardLimit(t *testing.T) {
	for _, tr := range []string{viaLoop, viaGoroutine, viaDial} {
		t.Run(tr, func(t *testing.T) {
			useTransport(t, tr)
			srv := startProtocolServer(t, Config{})
			admin := dialRaw(t, srv)
			admin.send("CONFIG SET client-output-buffer-limit \"normal 1mb 0 0\"\r\n")
			admin.expect("+OK\r\n")
			big := strings.Repeat("x", 64<<10)
			admin.send(respCommand("SET", "big", big))
			admin.expect("+OK\r\n")
			reader := dialRaw(t, srv)
			const n = 400
			reader.send(strings.Repeat("GET big\r\n", n))
			waitFor(t, "the reader closed", func() bool { return srv.CurrentConnectionCount() == 1 })
			admin.send("PING\r\n")
			admin.expect("+PONG\r\n")
			got, _ := io.ReadAll(reader.rd)
			if len(got) >= n*len(big) {
				t.Fatalf("the reader got all %d bytes of replies", len(got))
			}
		})
	}
}

// Over the soft limit for more than its seconds, a client that does not
// read is closed by the clients cron, though it is sent nothing new.
func TestOutputBufferSoftLimit(t *testing.T) {
	parallel(t)
	srv := startProtocolServer(t, Config{})
	admin := dialRaw(t, srv)
	admin.send("CONFIG SET client-output-buffer-limit \"normal 0 256kb 1\"\r\n")
	admin.expect("+OK\r\n")
	admin.send(respCommand("SET", "big", strings.Repeat("x", 64<<10)))
	admin.expect("+OK\r\n")
	reader := dialRaw(t, srv)
	reader.send(strings.Repeat("GET big\r\n", 400))
	waitFor(t, "the reader closed", func() bool { return srv.CurrentConnectionCount() == 1 })
	admin.send("PING\r\n")
	admin.expect("+PONG\r\n")
}

// With no limit (Redis's default), the slow reader gets every reply, in
// order, once it reads.
func TestOutputBlocksInOrder(t *testing.T) {
	parallel(t)
	for _, tr := range []string{viaLoop, viaGoroutine, viaDial} {
		t.Run(tr, func(t *testing.T) {
			useTransport(t, tr)
			srv := startProtocolServer(t, Config{})
			c := dialRaw(t, srv)
			var want strings.Builder
			var req strings.Builder
			for i := 0; i < 300; i++ {
				v := strings.Repeat(string(rune('a'+i%26)), 1000+i*37)
				req.WriteString("ECHO " + v + "\r\n")
				want.WriteString("$" + itoa(int64(len(v))) + "\r\n" + v + "\r\n")
			}
			c.send(req.String())
			c.expect(want.String())
		})
	}
}

// timeout closes idle clients and those that sent half a request, not a
// client blocked in BLPOP (it has its own timeout), which is then served.
func TestIdleTimeout(t *testing.T) {
	parallel(t)
	srv := startProtocolServer(t, Config{})
	blocked := dialRaw(t, srv)
	blocked.send("BLPOP q 0\r\n")
	waitBlocked(t, srv, 1)
	var idle []*rawClient
	for i := 0; i < 50; i++ {
		c := dialRaw(t, srv)
		if i%2 == 1 {
			c.send("*2\r\n$3\r\nGET\r\n")
		}
		idle = append(idle, c)
	}
	admin := dialRaw(t, srv)
	admin.send("CONFIG SET timeout 1\r\n")
	admin.expect("+OK\r\n")
	waitFor(t, "idle clients closed", func() bool { return srv.CurrentConnectionCount() == 1 })
	for _, c := range idle {
		c.expectClosed()
	}
	pusher := dialRaw(t, srv)
	pusher.send("RPUSH q v\r\n")
	pusher.expect(":1\r\n")
	blocked.expect("*2\r\n$1\r\nq\r\n$1\r\nv\r\n")
}

// respCommand encodes a request as a multibulk.
func respCommand(args ...string) string {
	s := "*" + itoa(int64(len(args))) + "\r\n"
	for _, a := range args {
		s += "$" + itoa(int64(len(a))) + "\r\n" + a + "\r\n"
	}
	return s
}

// Accepted TCP sockets get tcp-keepalive's probes, as Redis's
// anetKeepAlive sets them; 0 turns them off.
func TestTCPKeepalive(t *testing.T) {
	srv := startProtocolServer(t, Config{})
	admin := dialRaw(t, srv)
	admin.send("PING\r\n")
	admin.expect("+PONG\r\n")
	idleOf := func() (on, idle int) {
		fd := srv.clientsByID()[len(srv.clientsByID())-1].conn.tr.SocketFD()
		on, _ = unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_KEEPALIVE)
		idle, _ = unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE)
		return
	}
	if on, idle := idleOf(); on != 1 || idle != 300 {
		t.Fatalf("default: keepalive %d, idle %d; want 1, 300", on, idle)
	}
	admin.send("CONFIG SET tcp-keepalive 60\r\n")
	admin.expect("+OK\r\n")
	c := dialRaw(t, srv)
	c.send("PING\r\n")
	c.expect("+PONG\r\n")
	if on, idle := idleOf(); on != 1 || idle != 60 {
		t.Fatalf("tcp-keepalive 60: keepalive %d, idle %d", on, idle)
	}
	admin.send("CONFIG SET tcp-keepalive 0\r\n")
	admin.expect("+OK\r\n")
	c = dialRaw(t, srv)
	c.send("PING\r\n")
	c.expect("+PONG\r\n")
	if on, _ := idleOf(); on != 0 {
		t.Fatalf("tcp-keepalive 0: keepalive %d", on)
	}
}

// Past maxclients, set at runtime, a new client is told so and closed,
// and counted in rejected_connections.
func TestMaxClients(t *testing.T) {
	srv := startProtocolServer(t, Config{})
	admin := dialRaw(t, srv)
	admin.send("CONFIG SET maxclients 3\r\n")
	admin.expect("+OK\r\n")
	a, b := dialRaw(t, srv), dialRaw(t, srv)
	for _, c := range []*rawClient{a, b} {
		c.send("PING\r\n")
		c.expect("+PONG\r\n")
	}
	over := dialRaw(t, srv)
	over.expect(errMaxClients)
	over.expectClosed()
	b.c.Close()
	waitFor(t, "a client gone", func() bool { return srv.CurrentConnectionCount() == 2 })
	again := dialRaw(t, srv)
	again.send("PING\r\n")
	again.expect("+PONG\r\n")
	admin.send("INFO stats\r\n")
	info := readBulk(t, admin)
	if !strings.Contains(info, "rejected_connections:1\r\n") {
		t.Fatalf("INFO stats: %q", info)
	}
}

// readBulk reads one bulk reply.
func readBulk(t *testing.T, c *rawClient) string {
	t.Helper()
	line, err := c.rd.ReadString('\n')
	if err != nil || line[0] != '$' {
		t.Fatalf("bulk header %q, %v", line, err)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	buf := make([]byte, n+2)
	if _, err := io.ReadFull(c.rd, buf); err != nil {
		t.Fatal(err)
	}
	return string(buf[:n])
}

// Out of file descriptors, a new client is answered with the max-clients
// error (from the spare descriptor) instead of waiting forever, and once
// descriptors are free again clients are served. The server runs in a
// subprocess whose RLIMIT_NOFILE is lowered after it starts.
func TestOutOfFileDescriptors(t *testing.T) {
	parallel(t)
	if os.Getenv("FLOODGATE_EMFILE_CHILD") == "1" {
		emfileChild()
		return
	}
	_, stdout := startChild(t, "TestOutOfFileDescriptors", "FLOODGATE_EMFILE_CHILD=1")
	addr := readChildLine(t, stdout)
	var served, refused int
	var conns []net.Conn
	for i := 0; i < 60; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		c.SetDeadline(time.Now().Add(testDeadline))
		c.Write([]byte("PING\r\n"))
		reply, err := bufio.NewReader(c).ReadString('\n')
		switch {
		case reply == "+PONG\r\n":
			served++
		case reply == errMaxClients:
			refused++
		default:
			t.Fatalf("client %d: %q, %v", i, reply, err)
		}
	}
	if served == 0 || refused == 0 {
		t.Fatalf("served %d, refused %d: want both", served, refused)
	}
	for _, c := range conns {
		c.Close()
	}
	waitFor(t, "a client served again", func() bool {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return false
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(testDeadline))
		c.Write([]byte("PING\r\n"))
		reply, _ := bufio.NewReader(c).ReadString('\n')
		return reply == "+PONG\r\n"
	})
}

// startChild runs test in a subprocess of the test binary with env set,
// for a server whose process limits the test changes. The child ends when
// its stdin is closed, at the latest when t ends.
func startChild(t *testing.T, test, env string) (io.WriteCloser, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			// A child that hangs (a test that timed out reading it) ends
			// with its goroutines on stderr rather than holding Wait.
			cmd.Process.Signal(syscall.SIGQUIT)
		}
		stdin.Close()
		cmd.Wait()
	})
	return stdin, bufio.NewReader(stdout)
}

// readChildLine reads a line of a child's output, failing t if none comes
// within testDeadline: a child stuck waiting for what never happens would
// otherwise hold the test until go test's timeout.
func readChildLine(t *testing.T, out *bufio.Reader) string {
	t.Helper()
	type read struct {
		line string
		err  error
	}
	got := make(chan read, 1)
	go func() {
		line, err := out.ReadString('\n')
		got <- read{line, err}
	}()
	select {
	case r := <-got:
		if r.err != nil {
			t.Fatalf("child: %q, %v", r.line, r.err)
		}
		return strings.TrimSpace(r.line)
	case <-time.After(testDeadline):
		t.Fatalf("child: no line in %v", testDeadline)
		return ""
	}
}

func emfileChild() {
	srv := New(Config{Addr: "127.0.0.1:0"})
	if err := srv.Start(); err != nil {
		panic(err)
	}
	// Leave room for a few clients only.
	entries, _ := os.ReadDir("/proc/self/fd")
	lim := syscall.Rlimit{Cur: uint64(len(entries) + 12), Max: uint64(len(entries) + 12)}
	var old syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old)
	lim.Max = old.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		panic(err)
	}
	fmt.Println(srv.Addr())
	io.ReadAll(os.Stdin)
	srv.Close()
}

// An unauthenticated client that sends most of the largest request the
// parser lets it send holds an input buffer of about that size, not more
// (CLIENT LIST's qbuf and qbuf-free).
func TestUnauthenticatedInputBuffer(t *testing.T) {
	srv := startProtocolServer(t, Config{Password: "pw"})
	part := "*10\r\n" + strings.Repeat("$16384\r\n"+strings.Repeat("a", 16384)+"\r\n", 9) + "$16384\r\n" + strings.Repeat("a", 16000)
	var clients []*rawClient
	for i := 0; i < 20; i++ {
		c := dialRaw(t, srv)
		c.send(part)
		clients = append(clients, c)
	}
	admin := dialRaw(t, srv)
	admin.send("AUTH pw\r\n")
	admin.expect("+OK\r\n")
	var held []string
	waitFor(t, "every partial request received", func() bool {
		admin.send("CLIENT LIST\r\n")
		held = held[:0]
		for _, line := range strings.Split(readBulk(t, admin), "\n") {
			f := strings.Fields(line)
			var qbuf, free, argv int
			for _, kv := range f {
				if v, ok := strings.CutPrefix(kv, "qbuf="); ok {
					qbuf, _ = strconv.Atoi(v)
				}
				if v, ok := strings.CutPrefix(kv, "qbuf-free="); ok {
					free, _ = strconv.Atoi(v)
				}
				if v, ok := strings.CutPrefix(kv, "argv-mem="); ok {
					argv, _ = strconv.Atoi(v)
				}
			}
			// qbuf counts, as Redis's, the bytes after the parsed
			// arguments (argv-mem): the buffer holds them too.
			if qbuf == 16000 && argv == 9*16384 {
				qbuf = len(part)
				if qbuf+free > unauthQueryBytes+(4<<10) {
					t.Fatalf("an unauthenticated client holds %d bytes of buffer", qbuf+free)
				}
				held = append(held, line)
			}
		}
		return len(held) == len(clients)
	})
}
