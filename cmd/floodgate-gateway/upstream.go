package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// upstreamTransport is the RoundTripper to a plain-HTTP upstream: HTTP/1.1
// over a pool of keep-alive connections, each request written and its
// response read on the caller's goroutine.
//
// net/http's Transport runs two goroutines per connection (a writeLoop the
// request is handed to, a readLoop that peeks for the response and hands it
// back), so a proxied request took four goroutine switches, and on two
// cores each switch could wake another thread: on this machine that was the
// largest share of the gateway's overhead after the system calls
// (BENCHMARKS.md "Gateway overhead"). What it gives that a gateway to one
// known upstream does not need stays with it: HTTPS and HTTP/2 upstreams,
// and protocol upgrades (WebSocket), which go to fallback.
type upstreamTransport struct {
	host     string // the upstream URL's host; other hosts go to fallback
	addr     string // host with a port, to dial
	fallback http.RoundTripper
	dialer   net.Dialer

	mu          sync.Mutex
	idle        []*upstreamConn // most recently used last
	maxIdle     int
	idleTimeout time.Duration
}

// A pooled connection idle longer than checkIdleAfter is checked before it
// is used (alive: one non-blocking peek), so that a connection the upstream
// closed while idle (Node.js closes after 5 s, nginx after 75 s) is dropped
// rather than failing a POST that cannot be retried. A connection in steady
// use is not checked: net/http's readLoop pays that read on every request.
var checkIdleAfter = 50 * time.Millisecond // a variable for tests

type upstreamConn struct {
	conn     net.Conn
	br       *bufio.Reader
	bw       *bufio.Writer
	read     bool // some byte of the current response arrived
	idleFrom time.Time
}

func (c *upstreamConn) Read(p []byte) (int, error) {
	n, err := c.conn.Read(p)
	if n > 0 {
		c.read = true
	}
	return n, err
}

func newUpstreamTransport(host string, fallback *http.Transport) *upstreamTransport {
	addr := host
	if _, _, err := net.SplitHostPort(host); err != nil {
		addr = net.JoinHostPort(strings.Trim(host, "[]"), "80")
	}
	return &upstreamTransport{
		host:        host,
		addr:        addr,
		fallback:    fallback,
		dialer:      net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second},
		maxIdle:     fallback.MaxIdleConnsPerHost,
		idleTimeout: fallback.IdleConnTimeout,
	}
}

// RoundTrip implements http.RoundTripper.
func (t *upstreamTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "http" || req.URL.Host != t.host || isUpgrade(req.Header) {
		return t.fallback.RoundTrip(req)
	}
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		c, reused, err := t.conn(ctx)
		if err != nil {
			return nil, err
		}
		resp, err := t.exchange(ctx, c, req)
		if err == nil {
			return resp, nil
		}
		// A pooled connection the upstream closed as the request went out:
		// net/http retries such a request when resending it is harmless.
		if reused && attempt == 0 && !c.read && ctx.Err() == nil && replayable(req) {
			continue
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
}

// exchange writes req on c and reads the response's header; the body reads
// from c and gives it back to the pool at its end.
func (t *upstreamTransport) exchange(ctx context.Context, c *upstreamConn, req *http.Request) (*http.Response, error) {
	// A client that goes away cancels ctx: the deadline in the past makes
	// the blocked read or write return, and the connection is not reused.
	stop := context.AfterFunc(ctx, func() { c.conn.SetDeadline(time.Unix(1, 0)) })
	fail := func(err error) (*http.Response, error) {
		stop()
		c.conn.Close()
		return nil, err
	}
	c.read = false
	if err := req.Write(c.bw); err != nil {
		return fail(err)
	}
	if err := c.bw.Flush(); err != nil {
		return fail(err)
	}
	for {
		resp, err := http.ReadResponse(c.br, req)
		if err != nil {
			return fail(err)
		}
		// 1xx answers (100 Continue, 103 Early Hints) precede the real one.
		if resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
			continue
		}
		if resp.StatusCode == http.StatusSwitchingProtocols {
			// Only upgrade requests, which went to fallback, may switch.
			return fail(errors.New("upstream switched protocols without an upgrade request"))
		}
		resp.Body = &upstreamBody{body: resp.Body, c: c, t: t, stop: stop,
			keep: !resp.Close && !req.Close && resp.ProtoAtLeast(1, 1)}
		return resp, nil
	}
}

// upstreamBody returns its connection to the pool once read to the end.
type upstreamBody struct {
	body io.ReadCloser
	c    *upstreamConn
	t    *upstreamTransport
	stop func() bool
	keep bool
	done bool
}

func (b *upstreamBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.EOF
	}
	n, err := b.body.Read(p)
	if err != nil {
		b.release(err == io.EOF)
	}
	return n, err
}

func (b *upstreamBody) Close() error {
	if !b.done {
		// NoBody (HEAD, 204, 304) has nothing left on the connection; a
		// body left unread would have to be drained first: close instead.
		b.release(b.body == http.NoBody)
	}
	return nil
}

func (b *upstreamBody) release(atEnd bool) {
	b.done = true
	if b.stop() && atEnd && b.keep {
		b.body.Close()
		b.t.put(b.c)
		return
	}
	// Closed first: net/http's body.Close drains what is left.
	b.c.conn.Close()
	b.body.Close()
}

// conn returns a pooled connection, or a new one.
func (t *upstreamTransport) conn(ctx context.Context) (c *upstreamConn, reused bool, err error) {
	now := time.Now()
	for {
		t.mu.Lock()
		if len(t.idle) == 0 {
			t.mu.Unlock()
			break
		}
		c = t.idle[len(t.idle)-1]
		t.idle = t.idle[:len(t.idle)-1]
		t.mu.Unlock()
		idle := now.Sub(c.idleFrom)
		if (t.idleTimeout > 0 && idle > t.idleTimeout) || (idle > checkIdleAfter && !alive(c.conn)) {
			c.conn.Close()
			continue
		}
		return c, true, nil
	}
	conn, err := t.dialer.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return nil, false, err
	}
	c = &upstreamConn{conn: conn}
	c.br = bufio.NewReader(c)
	c.bw = bufio.NewWriter(conn)
	return c, false, nil
}

func (t *upstreamTransport) put(c *upstreamConn) {
	c.conn.SetDeadline(time.Time{})
	c.idleFrom = time.Now()
	t.mu.Lock()
	if len(t.idle) < t.maxIdle {
		t.idle = append(t.idle, c)
		c = nil
	}
	t.mu.Unlock()
	if c != nil {
		c.conn.Close()
	}
}

// CloseIdleConnections closes the pooled connections (and fallback's).
func (t *upstreamTransport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = nil
	t.mu.Unlock()
	for _, c := range idle {
		c.conn.Close()
	}
	if f, ok := t.fallback.(interface{ CloseIdleConnections() }); ok {
		f.CloseIdleConnections()
	}
}

// isUpgrade reports a request asking to switch protocols, which
// ReverseProxy forwards with "Connection: Upgrade".
func isUpgrade(h http.Header) bool {
	for _, v := range h["Connection"] {
		for token := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(token), "upgrade") {
				return true
			}
		}
	}
	return false
}

// replayable reports whether req may be sent again after a connection
// failed under it: no body, and a method that changes nothing or an
// idempotency key, as net/http's Transport decides.
func replayable(req *http.Request) bool {
	return replayableShape(req.Method, req.Body != nil && req.Body != http.NoBody, func(name string) bool {
		_, ok := req.Header[name]
		return ok
	})
}

// replayableShape is the rule of replayable and fastReplayable: no body,
// and a method that changes nothing ("" is GET) or an idempotency key
// (has reports whether a header is present).
func replayableShape(method string, body bool, has func(name string) bool) bool {
	if body {
		return false
	}
	switch method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return has("Idempotency-Key") || has("X-Idempotency-Key")
}
