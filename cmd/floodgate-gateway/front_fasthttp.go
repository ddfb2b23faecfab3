package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// fastFront is the fasthttp front end: a fasthttp.Server whose handler runs
// the gateway's one decision path (gateway.limit) and passes what it allows
// to a plain-HTTP upstream through a fasthttp.HostClient, keep-alive, the
// request written and the response read on the handler's goroutine.
//
// net/http's server starts a background read on every request's connection
// and its Transport hands each request to two more goroutines; on this
// machine's two cores each switch may wake a thread, and those wake-ups,
// not the gateway's code, were most of what it added to a request
// (BENCHMARKS.md "Gateway overhead"). fasthttp serves a connection on one
// goroutine from a worker pool, with no per-request goroutine or background
// read. What it cannot do stays on the net/http front end: an HTTPS or
// HTTP/2 upstream, protocol upgrades (WebSocket), and responses streamed
// as they arrive (server-sent events); fasthttp buffers a response whole.
type fastFront struct {
	g        *gateway
	server   *fasthttp.Server
	upstream *fasthttp.HostClient
	// basePath and baseQuery are the --upstream URL's, joined to every
	// request's as httputil.ProxyRequest.SetURL joins them.
	basePath, baseQuery string

	mu    sync.Mutex
	conns map[net.Conn]struct{} // open, so that a drain out of time can close them
}

func newFastFront(g *gateway, upstream *url.URL, log *slog.Logger) *fastFront {
	f := &fastFront{g: g, conns: map[net.Conn]struct{}{}, basePath: strings.TrimSuffix(upstream.EscapedPath(), "/"),
		baseQuery: upstream.RawQuery}
	f.upstream = &fasthttp.HostClient{
		Addr:     hostPort(upstream.Host),
		MaxConns: 1024,
		// As net/http's ReverseProxy: no User-Agent of our own, the path
		// sent as the client wrote it.
		NoDefaultUserAgentHeader: true,
		DisablePathNormalizing:   true,
		MaxIdleConnDuration:      90 * time.Second, // net/http's IdleConnTimeout
		// A request that failed on a pooled connection the upstream had
		// closed is sent once more when that is harmless, as on net/http
		// (upstreamTransport's replayable).
		MaxIdemponentCallAttempts: 2,
		RetryIfErr: func(req *fasthttp.Request, _ int, err error) (bool, bool) {
			return false, errors.Is(err, errStaleConn) || fastReplayable(req)
		},
		Dial: func(addr string) (net.Conn, error) {
			c, err := upstreamDialer.Dial("tcp", addr)
			if err != nil {
				return nil, err
			}
			return &checkedConn{Conn: c, lastRead: time.Now()}, nil
		},
	}
	f.server = &fasthttp.Server{
		Handler: f.serve,
		// The headers within 10 s (net/http's ReadHeaderTimeout), the body
		// as long as it takes (HeaderReceived lifts the deadline).
		ReadTimeout: 10 * time.Second,
		HeaderReceived: func(*fasthttp.RequestHeader) fasthttp.RequestConfig {
			return fasthttp.RequestConfig{ReadTimeout: 24 * time.Hour}
		},
		IdleTimeout: 2 * time.Minute,
		// Bodies over MaxRequestBodySize (4 MiB) stream to the upstream
		// instead of being refused.
		StreamRequestBody: true,
		// What reaches the client is the upstream's answer and the
		// gateway's fields, as on net/http: no Server or Content-Type of
		// fasthttp's own.
		NoDefaultServerHeader: true,
		NoDefaultContentType:  true,
		// Answers given while draining close their connection.
		CloseOnShutdown:               true,
		DisablePreParseMultipartForm:  true,
		DisableHeaderNamesNormalizing: false,
		Logger:                        fastLogger{log},
	}
	return f
}

var upstreamDialer = net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}

// errStaleConn is a pooled upstream connection found closed before a
// request was written on it: any request may be sent again.
var errStaleConn = errors.New("idle upstream connection closed by the upstream")

// checkedConn is an upstream connection that, idle longer than
// checkIdleAfter, is peeked before a request is written on it, as
// upstreamTransport's are: so that a connection the upstream closed while
// idle fails before anything is sent, and even a POST can go on a fresh one.
type checkedConn struct {
	net.Conn
	lastRead time.Time
}

func (c *checkedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.lastRead = time.Now()
	}
	return n, err
}

func (c *checkedConn) Write(p []byte) (int, error) {
	if time.Since(c.lastRead) > checkIdleAfter && !alive(c.Conn) {
		return 0, errStaleConn
	}
	return c.Conn.Write(p)
}

// hostPort is host with a port, 80 when it has none.
func hostPort(host string) string {
	if _, _, err := net.SplitHostPort(host); err != nil {
		return net.JoinHostPort(strings.Trim(host, "[]"), "80")
	}
	return host
}

// fastLogger routes fasthttp's log lines into slog, as net/http's ErrorLog.
type fastLogger struct{ log *slog.Logger }

func (l fastLogger) Printf(format string, args ...any) {
	l.log.Warn(fmt.Sprintf(format, args...), "component", "fasthttp")
}

// Serve serves the proxy on ln until Shutdown.
func (f *fastFront) Serve(ln net.Listener) error {
	return f.server.Serve(trackedListener{ln, f})
}

// Shutdown stops accepting, lets the requests in flight finish (their
// answers close the connection) and closes idle connections; it returns
// ctx's error if that takes longer than ctx allows.
func (f *fastFront) Shutdown(ctx context.Context) error { return f.server.ShutdownWithContext(ctx) }

// Close closes every connection left, after a drain out of time.
func (f *fastFront) Close() error {
	f.mu.Lock()
	conns := make([]net.Conn, 0, len(f.conns))
	for c := range f.conns {
		conns = append(conns, c)
	}
	f.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	return nil
}

// serve is the fasthttp handler.
func (f *fastFront) serve(ctx *fasthttp.RequestCtx) {
	rs := f.g.rules.Load()
	w := &fastResponse{ctx: ctx, header: http.Header{}}
	// Not ctx: fasthttp's RequestCtx is Done when the server shuts down,
	// which would fail the decisions of the requests a drain waits for.
	if !f.g.limit(context.Background(), rs, f.request(ctx, rs), w) {
		return
	}
	f.proxy(ctx, w.header)
}

// request is the *http.Request the rules read: method, path, host, the
// peer's address, and only the headers rs reads (a map of every header
// would cost two allocations a header, for nothing).
func (f *fastFront) request(ctx *fasthttp.RequestCtx, rs *ruleSet) *http.Request {
	r := &http.Request{Method: string(ctx.Method()), Host: string(ctx.Host()), RemoteAddr: ctx.RemoteAddr().String(),
		URL: &url.URL{Path: requestPath(ctx.URI().PathOriginal())}, Header: http.Header{}}
	for _, name := range rs.headersRead {
		for _, v := range ctx.Request.Header.PeekAll(name) {
			r.Header[name] = append(r.Header[name], string(v))
		}
	}
	return r
}

// requestPath is the path as net/http's URL.Path has it: unescaped, not
// normalized (fasthttp's Path() would resolve "..", which the net/http
// front end does not).
func requestPath(raw []byte) string {
	if bytes.IndexByte(raw, '%') < 0 {
		return string(raw)
	}
	if p, err := url.PathUnescape(string(raw)); err == nil {
		return p
	}
	return string(raw)
}

// hopHeaders are removed in both directions, as httputil.ReverseProxy
// removes them (RFC 9110 7.6.1), with those Connection names.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// removeHopHeaders deletes the hop-by-hop headers peek and del reach.
func removeHopHeaders(peekAll func(string) [][]byte, del func(string)) {
	var listed []string
	for _, v := range peekAll("Connection") {
		for name := range strings.SplitSeq(string(v), ",") {
			if name = strings.TrimSpace(name); name != "" {
				listed = append(listed, name)
			}
		}
	}
	for _, name := range listed {
		del(name)
	}
	for _, name := range hopHeaders {
		del(name)
	}
}

// proxy sends the request to the upstream and answers with its response
// plus the rate-limit fields, the request rewritten as the net/http front
// end's ReverseProxy rewrites it: hop-by-hop headers removed, the client's
// forwarding headers replaced by X-Forwarded-For (the peer),
// X-Forwarded-Host and X-Forwarded-Proto, the Host kept.
func (f *fastFront) proxy(ctx *fasthttp.RequestCtx, limitHeaders http.Header) {
	req, resp := &ctx.Request, &ctx.Response
	// A body the server read whole (up to its MaxRequestBodySize) still
	// comes as a stream, and fasthttp never sends a stream twice: made a
	// plain body, a request that meets a closed pooled connection can be
	// sent again on a fresh one. Larger bodies stream through.
	if cl := req.Header.ContentLength(); req.IsBodyStream() && cl >= 0 && cl <= fasthttp.DefaultMaxRequestBodySize {
		body, err := io.ReadAll(req.BodyStream())
		if err != nil {
			f.g.log.Warn("reading the request body", "method", string(ctx.Method()), "path", string(ctx.Path()), "error", err.Error())
			resp.SetStatusCode(http.StatusBadRequest)
			return
		}
		req.SetBody(body)
	}
	closeAfter := req.Header.ConnectionClose()
	trailers := false
	for _, v := range req.Header.PeekAll("Te") {
		for token := range strings.SplitSeq(string(v), ",") {
			trailers = trailers || strings.EqualFold(strings.TrimSpace(token), "trailers")
		}
	}
	removeHopHeaders(req.Header.PeekAll, req.Header.Del)
	if trailers {
		req.Header.Set("Te", "trailers")
	}
	for _, name := range []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
		req.Header.Del(name)
	}
	if host, _, err := net.SplitHostPort(ctx.RemoteAddr().String()); err == nil {
		req.Header.Set("X-Forwarded-For", host)
	}
	req.Header.SetBytesV("X-Forwarded-Host", ctx.Host())
	req.Header.Set("X-Forwarded-Proto", "http")
	req.Header.SetNoDefaultContentType(true) // a body without a type goes on without one
	if f.basePath != "" || f.baseQuery != "" {
		req.SetRequestURI(f.upstreamURI(req))
	}
	err := f.upstream.Do(req, resp)
	if closeAfter {
		req.Header.SetConnectionClose() // the client's wish, for the server
	}
	if err != nil {
		f.g.log.Warn("upstream failed", "method", string(ctx.Method()), "path", string(ctx.Path()), "error", err.Error())
		resp.Reset()
		resp.SetStatusCode(http.StatusBadGateway)
	} else {
		removeHopHeaders(resp.Header.PeekAll, resp.Header.Del)
	}
	// The upstream's own answer is Add-ed after the gateway's fields on
	// net/http; here they are added to the upstream's.
	for name, vs := range limitHeaders {
		for _, v := range vs {
			resp.Header.Add(name, v)
		}
	}
}

// fastReplayable is replayable for a fasthttp request: no body, and a
// method that changes nothing or an idempotency key.
func fastReplayable(req *fasthttp.Request) bool {
	return replayableShape(string(req.Header.Method()), req.IsBodyStream() || len(req.Body()) > 0,
		func(name string) bool { return req.Header.Peek(name) != nil })
}

// upstreamURI joins the --upstream URL's path and query to the request's,
// as httputil.ProxyRequest.SetURL does.
func (f *fastFront) upstreamURI(req *fasthttp.Request) string {
	uri := req.URI()
	path := string(uri.PathOriginal())
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	path = f.basePath + path
	query := string(uri.QueryString())
	switch {
	case f.baseQuery == "":
	case query == "":
		query = f.baseQuery
	default:
		query = f.baseQuery + "&" + query
	}
	if query != "" {
		return path + "?" + query
	}
	return path
}

// fastResponse is the http.ResponseWriter gateway.limit answers a denied
// request through: the header and status go to the fasthttp response at
// WriteHeader.
type fastResponse struct {
	ctx    *fasthttp.RequestCtx
	header http.Header
	wrote  bool
}

func (w *fastResponse) Header() http.Header { return w.header }

func (w *fastResponse) WriteHeader(status int) {
	if w.wrote {
		return
	}
	w.wrote = true
	for name, vs := range w.header {
		for _, v := range vs {
			w.ctx.Response.Header.Add(name, v)
		}
	}
	w.ctx.SetStatusCode(status)
}

func (w *fastResponse) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.ctx.Write(p)
}

// trackedListener records the connections it accepts in f.conns until
// they close.
type trackedListener struct {
	net.Listener
	f *fastFront
}

func (l trackedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, f: l.f}
	l.f.mu.Lock()
	l.f.conns[tc] = struct{}{}
	l.f.mu.Unlock()
	return tc, nil
}

type trackedConn struct {
	net.Conn
	f    *fastFront
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.f.mu.Lock()
		delete(c.f.conns, c)
		c.f.mu.Unlock()
	})
	return c.Conn.Close()
}
