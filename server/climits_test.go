package server

import (
	"io"
	"strings"
	"testing"
)

// A client that pipelines large replies and never reads is closed once its
// reply list reaches the hard limit, its replies dropped, and everyone
// else is answered; over every transport.
func TestOutputBufferHardLimit(t *testing.T) {
	for _, tr := range []string{viaLoop, viaGoroutine, viaDial} {
		t.Run(tr, func(t *testing.T) {
			testTransport = tr
			defer func() { testTransport = viaLoop }()
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
	for _, tr := range []string{viaLoop, viaGoroutine, viaDial} {
		t.Run(tr, func(t *testing.T) {
			testTransport = tr
			defer func() { testTransport = viaLoop }()
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
