package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// proxyTo returns a test server running newProxy to up, and the
// upstreamTransport inside it.
func proxyTo(t *testing.T, up *httptest.Server) (*httptest.Server, *upstreamTransport) {
	t.Helper()
	u, _ := url.Parse(up.URL)
	p := newProxy(u, slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv, transportOf(t, p)
}

func transportOf(t *testing.T, h http.Handler) *upstreamTransport {
	t.Helper()
	tr, ok := h.(*httputil.ReverseProxy).Transport.(*upstreamTransport)
	if !ok {
		t.Fatalf("a plain-HTTP upstream got %T", h.(*httputil.ReverseProxy).Transport)
	}
	return tr
}

// TestUpstreamTransport drives the proxy's own transport through what an
// HTTP/1.1 upstream may answer, checking the client's response and whether
// the upstream connection was kept.
func TestUpstreamTransport(t *testing.T) {
	for _, tc := range []struct {
		name     string
		method   string
		body     string
		handler  http.HandlerFunc
		status   int
		want     string
		header   string // a response header "Name: value" the client must see
		trailer  string // a trailer "Name: value"
		keepConn bool
	}{
		{name: "content-length", method: "GET", handler: func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "hello "+r.URL.Path)
		}, status: 200, want: "hello /p", keepConn: true},
		{name: "chunked with a trailer", method: "GET", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Trailer", "X-Sum")
			io.WriteString(w, "part1 ")
			w.(http.Flusher).Flush()
			io.WriteString(w, "part2")
			w.Header().Set("X-Sum", "42")
		}, status: 200, want: "part1 part2", trailer: "X-Sum: 42", keepConn: true},
		{name: "POST body reaches the upstream", method: "POST", body: "payload", handler: func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			io.WriteString(w, "got "+string(b))
		}, status: 200, want: "got payload", keepConn: true},
		{name: "HEAD", method: "HEAD", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "5")
		}, status: 200, want: "", header: "Content-Length: 5", keepConn: true},
		{name: "204", method: "GET", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNoContent)
		}, status: 204, keepConn: true},
		{name: "Connection: close", method: "GET", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Connection", "close")
			io.WriteString(w, "bye")
		}, status: 200, want: "bye", keepConn: false},
		{name: "100 Continue first", method: "POST", body: "x", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusContinue)
			io.ReadAll(r.Body)
			io.WriteString(w, "after continue")
		}, status: 200, want: "after continue", keepConn: true},
		{name: "gzip passes through untouched", method: "GET", handler: func(w http.ResponseWriter, r *http.Request) {
			// The gateway must not ask for gzip on a client's behalf.
			io.WriteString(w, "accept-encoding="+r.Header.Get("Accept-Encoding"))
		}, status: 200, want: "accept-encoding=", keepConn: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := httptest.NewServer(tc.handler)
			defer up.Close()
			srv, tr := proxyTo(t, up)
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			req, _ := http.NewRequest(tc.method, srv.URL+"/p", body)
			client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || string(got) != tc.want {
				t.Errorf("got %d %q, want %d %q", resp.StatusCode, got, tc.status, tc.want)
			}
			if tc.header != "" {
				name, value, _ := strings.Cut(tc.header, ": ")
				if resp.Header.Get(name) != value {
					t.Errorf("%s: %q, want %q", name, resp.Header.Get(name), value)
				}
			}
			if tc.trailer != "" {
				name, value, _ := strings.Cut(tc.trailer, ": ")
				if resp.Trailer.Get(name) != value {
					t.Errorf("trailer %s: %q, want %q", name, resp.Trailer.Get(name), value)
				}
			}
			tr.mu.Lock()
			kept := len(tr.idle)
			tr.mu.Unlock()
			if want := map[bool]int{true: 1, false: 0}[tc.keepConn]; kept != want {
				t.Errorf("%d pooled upstream connections, want %d", kept, want)
			}
		})
	}
}

// methodUpstream answers with the request's method and counts the
// connections made to it.
func methodUpstream(t *testing.T) (*httptest.Server, *atomic.Int32) {
	conns := &atomic.Int32{}
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		io.WriteString(w, r.Method)
	}))
	up.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	up.Start()
	t.Cleanup(up.Close)
	return up, conns
}

// sendMethod sends a request of method (POST with a body) to base and
// wants methodUpstream's answer.
func sendMethod(t *testing.T, base, method string) {
	t.Helper()
	var body io.Reader
	if method == "POST" {
		body = strings.NewReader("b")
	}
	req, _ := http.NewRequest(method, base+"/", body)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != method {
		t.Fatalf("%s: got %d %q", method, resp.StatusCode, b)
	}
}

// TestUpstreamTransportClosedIdleConn: the upstream closes a pooled
// connection while it is idle (as Node.js does after 5 s). A GET sent
// on it is retried on a new one; a POST never meets it, because a
// connection idle for a while is checked before use.
func TestUpstreamTransportClosedIdleConn(t *testing.T) {
	up, conns := methodUpstream(t)
	srv, tr := proxyTo(t, up)
	send := func(method string) { t.Helper(); sendMethod(t, srv.URL, method) }
	for _, method := range []string{"GET", "POST"} {
		send(method)
		before := conns.Load()
		up.CloseClientConnections() // the upstream drops the idle connection
		// Made old enough to be checked (POST), or young enough not to be
		// (GET, which then fails on it and is retried).
		tr.mu.Lock()
		for _, c := range tr.idle {
			if method == "POST" {
				c.idleFrom = time.Now().Add(-time.Second)
			} else {
				c.idleFrom = time.Now().Add(time.Hour)
			}
		}
		tr.mu.Unlock()
		send(method)
		if n := conns.Load(); n != before+1 {
			t.Errorf("%s: %d new upstream connections, want 1", method, n-before)
		}
	}
}

// TestUpstreamTransportClientGone: a client that hangs up while the
// upstream is slow cancels the upstream request: the gateway closes that
// connection, which the upstream sees as its request's context ending.
func TestUpstreamTransportClientGone(t *testing.T) {
	arrived, gone := make(chan struct{}), make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
		close(gone)
	}))
	defer up.Close()
	srv, _ := proxyTo(t, up)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/", nil)
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	<-arrived
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("the cancelled request succeeded")
	}
	select {
	case <-gone:
	case <-time.After(30 * time.Second): // a hang, not a timing budget
		t.Fatal("the upstream request was not cancelled")
	}
}
