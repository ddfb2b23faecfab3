package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/resp"
)

func init() {
	register(&Command{Name: "test.panic", Arity: 1, Handler: func(c *Client, args [][]byte) {
		panic("test.panic")
	}})
}

// rawClient is a test connection that sends bytes and reads raw replies.
type rawClient struct {
	t  *testing.T
	c  net.Conn
	rd *bufio.Reader
}

func dialRaw(t *testing.T, srv *Server) *rawClient {
	t.Helper()
	return dialRawOver(t, srv, transportOf(t))
}

// dialRawOver is dialRaw over the given transport (TCP or Dial).
func dialRawOver(t *testing.T, srv *Server, transport string) *rawClient {
	t.Helper()
	c := dialConnOver(t, srv, transport)
	return &rawClient{t: t, c: c, rd: bufio.NewReader(c)}
}

func (r *rawClient) send(raw string) {
	r.t.Helper()
	if _, err := r.c.Write([]byte(raw)); err != nil {
		r.t.Fatal(err)
	}
}

// expect reads exactly len(want) bytes and compares them.
func (r *rawClient) expect(want string) {
	r.t.Helper()
	got := make([]byte, len(want))
	if _, err := io.ReadFull(r.rd, got); err != nil {
		r.t.Fatalf("reading %q: got %q, %v", want, got, err)
	}
	if string(got) != want {
		r.t.Fatalf("got %q, want %q", got, want)
	}
}

// bulk reads one bulk string reply and returns its payload.
func (r *rawClient) bulk() string {
	r.t.Helper()
	var n int
	if _, err := fmt.Fscanf(r.rd, "$%d\r\n", &n); err != nil {
		r.t.Fatalf("reading a bulk: %v", err)
	}
	b := make([]byte, n+2)
	if _, err := io.ReadFull(r.rd, b); err != nil {
		r.t.Fatalf("reading a bulk: %v", err)
	}
	return string(b[:n])
}

// expectClosed reads until the server closes the connection and checks
// that nothing more came.
func (r *rawClient) expectClosed() {
	r.t.Helper()
	rest, err := io.ReadAll(r.rd)
	if err != nil && !strings.Contains(err.Error(), "connection reset") {
		r.t.Fatalf("connection not closed: %v (read %q)", err, rest)
	}
	if len(rest) > 0 {
		r.t.Fatalf("unexpected bytes before close: %q", rest)
	}
}

func startProtocolServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	return startServer(t, cfg)
}

func TestProtocolInline(t *testing.T) {
	srv := startProtocolServer(t, Config{})
	c := dialRaw(t, srv)
	c.send("PING\r\n")
	c.expect("+PONG\r\n")
	c.send("ECHO \"a b\\x41\\n\"\r\nECHO 'it''s'\r\n")
	c.expect("$5\r\na bA\n\r\n-ERR Protocol error: unbalanced quotes in request\r\n")
	c.expectClosed()
}

// TestProtocolByteAtATime sends requests one byte per write, so every
// header, payload and inline line spans reads.
func TestProtocolByteAtATime(t *testing.T) {
	srv := startProtocolServer(t, Config{})
	c := dialRaw(t, srv)
	if tc, ok := c.c.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	for _, b := range []byte("*0\r\n*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\nECHO \"x y\"\r\n*-1\r\n*1\r\n$4\r\nPINGxx") {
		c.send(string(b))
	}
	c.expect("$3\r\nabc\r\n$3\r\nx y\r\n+PONG\r\n")
}

func TestProtocolPipeline(t *testing.T) {
	srv := startProtocolServer(t, Config{})
	c := dialRaw(t, srv)
	var req, want strings.Builder
	for i := 0; i < 1000; i++ {
		v := fmt.Sprint(i)
		fmt.Fprintf(&req, "*2\r\n$4\r\nECHO\r\n$%d\r\n%s\r\n", len(v), v)
		fmt.Fprintf(&want, "$%d\r\n%s\r\n", len(v), v)
	}
	c.send(req.String())
	c.expect(want.String())
}

// TestProtocolEmptyRequests: Redis skips "*0" and "*-1" (any count <= 0)
// without a reply.
func TestProtocolEmptyRequests(t *testing.T) {
	srv := startProtocolServer(t, Config{})
	c := dialRaw(t, srv)
	c.send("*0\r\n*-1\r\n*-7\r\n\r\n   \r\nPING\r\n")
	c.expect("+PONG\r\n")
}

// TestProtocolLimits checks each limit closes only the offending
// connection, after answering the complete requests before the bad one.
func TestProtocolLimits(t *testing.T) {
	cases := []struct {
		name, raw, reply string
	}{
		{"bulk over proto-max-bulk-len", "PING\r\n*2\r\n$4\r\nECHO\r\n$101\r\n", "+PONG\r\n-ERR Protocol error: invalid bulk length\r\n"},
		{"negative bulk", "*1\r\n$-1\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"multibulk count", "*2147483648\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"multibulk not a number", "*12x\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		// Redis's string2ll takes no leading zero, sign or space.
		{"multibulk leading zero", "*01\r\n$4\r\nPING\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"multibulk zero zero", "*00\r\nPING\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"multibulk minus zero", "*-0\r\nPING\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"multibulk plus", "*+1\r\n$4\r\nPING\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"bulk leading zero", "*1\r\n$04\r\nPING\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"bulk minus zero", "*1\r\n$-0\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"bulk plus", "*1\r\n$+4\r\nPING\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"bulk trailing space", "*1\r\n$4 \r\nPING\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"inline too big", "PING\r\n" + strings.Repeat("a", resp.InlineMaxSize+1), "+PONG\r\n-ERR Protocol error: too big inline request\r\n"},
		{"bulk count string too big", "*1\r\n$" + strings.Repeat("1", resp.InlineMaxSize+1), "-ERR Protocol error: too big bulk count string\r\n"},
		{"expected dollar", "*1\r\n+PING\r\n", "-ERR Protocol error: expected '$', got '+'\r\n"},
	}
	srv := startProtocolServer(t, Config{ProtoMaxBulkLen: 100})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkRejected(t, srv, tc.raw, tc.reply) })
	}
	// Over client-query-buffer-limit Redis closes without a word.
	small := startProtocolServer(t, Config{QueryBufferLimit: 100})
	t.Run("query buffer", func(t *testing.T) {
		checkRejected(t, small, "PING\r\n*2\r\n$4\r\nECHO\r\n$90\r\n"+strings.Repeat("z", 85), "+PONG\r\n")
	})
}

// Before AUTH, Redis refuses more than 10 arguments and bulks over 16 KB;
// a request pipelined right after a successful AUTH is not limited.
func TestProtocolUnauthenticatedLimits(t *testing.T) {
	srv := startProtocolServer(t, Config{Password: "pw"})
	for raw, reply := range map[string]string{
		"*11\r\n":                        "-ERR Protocol error: unauthenticated multibulk length\r\n",
		"*2\r\n$4\r\nECHO\r\n$16385\r\n": "-ERR Protocol error: unauthenticated bulk length\r\n",
	} {
		bad := dialRaw(t, srv)
		bad.send(raw)
		bad.expect(reply)
		bad.expectClosed()
	}
	c := dialRaw(t, srv)
	c.send("*2\r\n$4\r\nECHO\r\n$16384\r\n" + strings.Repeat("a", 16384) + "\r\n")
	c.expect("-NOAUTH Authentication required.\r\n")
	c.send("AUTH pw\r\n*11\r\n$4\r\nECHO\r\n" + strings.Repeat("$1\r\nx\r\n", 10) + "*2\r\n$4\r\nECHO\r\n$16385\r\n" + strings.Repeat("b", 16385) + "\r\n")
	c.expect("+OK\r\n-ERR wrong number of arguments for 'echo' command\r\n$16385\r\n" + strings.Repeat("b", 16385) + "\r\n")
}

func checkRejected(t *testing.T, srv *Server, raw, reply string) {
	bystander := dialRaw(t, srv)
	bad := dialRaw(t, srv)
	bad.send(raw)
	bad.expect(reply)
	bad.expectClosed()
	bystander.send("ECHO still-here\r\n")
	bystander.expect("$10\r\nstill-here\r\n")
}

func TestProtocolHandlerPanic(t *testing.T) {
	srv := startProtocolServer(t, Config{})
	c := dialRaw(t, srv)
	c.send("test.panic\r\nPING\r\n")
	c.expect("-ERR internal error while running 'test.panic'\r\n+PONG\r\n")
	other := dialRaw(t, srv)
	other.send("PING\r\n")
	other.expect("+PONG\r\n")
}

// TestShutdown: SHUTDOWN closes the connection without a reply and stops
// the server (Done is closed; new connections are refused).
func TestShutdown(t *testing.T) {
	srv := startProtocolServer(t, Config{})
	idle := dialRaw(t, srv)
	c := dialRaw(t, srv)
	c.send("SHUTDOWN NOSAVE\r\nPING\r\n")
	c.expectClosed()
	select {
	case <-srv.Done():
	case <-time.After(testDeadline):
		t.Fatal("Done not closed after SHUTDOWN")
	}
	idle.expectClosed()
	waitFor(t, "the listener to close after SHUTDOWN", func() bool {
		conn, err := net.Dial("tcp", srv.Addr())
		if err != nil {
			return true
		}
		conn.Close()
		return false
	})
}

func TestShutdownAbortAndSyntax(t *testing.T) {
	srv := startProtocolServer(t, Config{})
	c := dialRaw(t, srv)
	c.send("SHUTDOWN ABORT\r\nSHUTDOWN SAVE NOSAVE\r\nSHUTDOWN BOGUS\r\nPING\r\n")
	c.expect("-ERR No shutdown in progress.\r\n-ERR syntax error\r\n-ERR syntax error\r\n+PONG\r\n")
}
