//go:build linux

package server

import (
	"bufio"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
)

// tlsConnOf dials srv's TLS port; the reader reads its replies.
func tlsConnOf(t *testing.T, srv *Server, f *redistest.TLSFiles, cfg *tls.Config) (*tls.Conn, *bufio.Reader) {
	t.Helper()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: testDeadline}, "tcp", srv.TLSAddr(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(testDeadline))
	return c, bufio.NewReader(c)
}

// loopTLSConns counts the TLS connections the event loop serves, read on
// the loop's own goroutine's data after a round trip (the loop registers
// a connection before it serves its first request).
func loopTLSConns(srv *Server) int {
	l := srv.loop.Load()
	if l == nil {
		return 0
	}
	srv.lock <- struct{}{} // the loop registers between batches only
	defer func() { <-srv.lock }()
	return l.TLSConns()
}

// tlsLine reads a reply line, its CRLF kept.
func tlsLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// TestTLSOnEventLoop: a TLS connection's requests are served by the event
// loop after the handshake, TLS 1.2 and 1.3: requests pipelined in pieces
// and in one write, a value larger than a record each way (many records
// to decrypt in one read, a reply of many records), and a request sent
// in the handshake's last flight's wake.
func TestTLSOnEventLoop(t *testing.T) {
	f := redistest.NewTLSFiles(t)
	srv := startTLSServer(t, f)
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		t.Run(tls.VersionName(v), func(t *testing.T) {
			cfg := f.ClientConfig(&f.Client)
			cfg.MinVersion, cfg.MaxVersion = v, v
			c, r := tlsConnOf(t, srv, f, cfg)
			// Sent before reading anything: the handshake's reads may take it.
			if _, err := c.Write([]byte("PING\r\n")); err != nil {
				t.Fatal(err)
			}
			if got := tlsLine(t, r); got != "+PONG\r\n" {
				t.Fatalf("PING: %q", got)
			}
			if n := loopTLSConns(srv); n < 1 {
				t.Fatalf("the event loop serves %d TLS connections", n)
			}
			big := strings.Repeat("x", 300<<10)
			set := "*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$" + strconv.Itoa(len(big)) + "\r\n" + big + "\r\n"
			var pipe strings.Builder
			pipe.WriteString(set)
			for i := 0; i < 100; i++ {
				pipe.WriteString("INCR n" + strconv.Itoa(int(v)) + "\r\n")
			}
			pipe.WriteString("GET big\r\n")
			if _, err := c.Write([]byte(pipe.String())); err != nil {
				t.Fatal(err)
			}
			if got := tlsLine(t, r); got != "+OK\r\n" {
				t.Fatalf("SET: %q", got)
			}
			for i := 1; i <= 100; i++ {
				if got, want := tlsLine(t, r), ":"+strconv.Itoa(i)+"\r\n"; got != want {
					t.Fatalf("INCR %d: %q, want %q", i, got, want)
				}
			}
			if got, want := tlsLine(t, r), "$"+strconv.Itoa(len(big))+"\r\n"; got != want {
				t.Fatalf("GET big: %q", got)
			}
			body := make([]byte, len(big)+2)
			if _, err := io.ReadFull(r, body); err != nil || string(body) != big+"\r\n" {
				t.Fatalf("GET big's value: %v", err)
			}
			// A request split across writes: records that end mid-request.
			for _, part := range []string{"*2\r\n$4\r\nE", "CHO\r\n$2\r\n", "hi\r\n"} {
				if _, err := c.Write([]byte(part)); err != nil {
					t.Fatal(err)
				}
			}
			if got := tlsLine(t, r) + tlsLine(t, r); got != "$2\r\nhi\r\n" {
				t.Fatalf("ECHO: %q", got)
			}
		})
	}
}

// TestTLSLoopCloses: CLIENT KILL, QUIT, a blocking pop woken by another
// client and the server's close, for TLS clients of the event loop: each
// close comes with a close_notify alert, so the client reads a clean
// io.EOF rather than a truncated stream.
func TestTLSLoopCloses(t *testing.T) {
	f := redistest.NewTLSFiles(t)
	srv := startTLSServer(t, f)
	cfg := f.ClientConfig(&f.Client)

	victim, vr := tlsConnOf(t, srv, f, cfg)
	victim.Write([]byte("CLIENT ID\r\n"))
	id := strings.TrimSuffix(strings.TrimPrefix(tlsLine(t, vr), ":"), "\r\n")
	killer, kr := tlsConnOf(t, srv, f, cfg)
	killer.Write([]byte("CLIENT KILL ID " + id + "\r\n"))
	if got := tlsLine(t, kr); got != ":1\r\n" {
		t.Fatalf("CLIENT KILL: %q", got)
	}
	if _, err := vr.ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("killed client reads %v, want io.EOF (a close_notify)", err)
	}

	quitter, qr := tlsConnOf(t, srv, f, cfg)
	quitter.Write([]byte("QUIT\r\n"))
	if got := tlsLine(t, qr); got != "+OK\r\n" {
		t.Fatalf("QUIT: %q", got)
	}
	if _, err := qr.ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("after QUIT the client reads %v, want io.EOF", err)
	}

	waiter, wr := tlsConnOf(t, srv, f, cfg)
	waiter.Write([]byte("BLPOP q 0\r\n"))
	pushed := false
	for deadline := time.Now().Add(testDeadline); !pushed && time.Now().Before(deadline); {
		killer.Write([]byte("CLIENT LIST\r\n"))
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(tlsLine(t, kr), "$"), "\r\n"))
		list := make([]byte, n+2)
		io.ReadFull(kr, list)
		if strings.Contains(string(list), "cmd=blpop") {
			killer.Write([]byte("RPUSH q v\r\n"))
			tlsLine(t, kr)
			pushed = true
		}
	}
	if !pushed {
		t.Fatal("BLPOP never blocked")
	}
	if got := tlsLine(t, wr) + tlsLine(t, wr) + tlsLine(t, wr) + tlsLine(t, wr) + tlsLine(t, wr); got != "*2\r\n$1\r\nq\r\n$1\r\nv\r\n" {
		t.Fatalf("BLPOP: %q", got)
	}

	srv.Close()
	if _, err := wr.ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the server's close the client reads %v, want io.EOF", err)
	}
}

// TestTLSGoroutineFallback: with --goroutine-conns TLS connections stay on
// their goroutines, as where there is no event loop.
func TestTLSGoroutineFallback(t *testing.T) {
	f := redistest.NewTLSFiles(t)
	_, _, options := ConfigArgs([]string{"--tls-port", strconv.Itoa(redistest.ReservePort(t)), "--tls-cert-file", f.ServerCert,
		"--tls-key-file", f.ServerKey, "--tls-ca-cert-file", f.CA})
	srv := startConfiguredServer(t, Config{GoroutineConns: true}, options)
	c, r := tlsConnOf(t, srv, f, f.ClientConfig(&f.Client))
	c.Write([]byte("PING\r\n"))
	if got := tlsLine(t, r); got != "+PONG\r\n" {
		t.Fatalf("PING: %q", got)
	}
	if n := loopTLSConns(srv); n != 0 {
		t.Fatalf("the event loop serves %d TLS connections with goroutine-conns", n)
	}
}
