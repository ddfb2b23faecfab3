package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"

	"github.com/redis/go-redis/v9"
)

// startTLSServer starts a server serving TLS on a reserved port with f's
// server certificate and CA, plus the directives in extra ("--name",
// "value", ...); plain TCP stays on a free port unless extra sets port.
func startTLSServer(t *testing.T, f *redistest.TLSFiles, extra ...string) *Server {
	t.Helper()
	args := []string{"--tls-port", strconv.Itoa(redistest.ReservePort(t)), "--tls-cert-file", f.ServerCert,
		"--tls-key-file", f.ServerKey, "--tls-ca-cert-file", f.CA}
	_, _, options := ConfigArgs(append(args, extra...))
	return startConfiguredServer(t, Config{}, options)
}

// tlsHandshake dials addr with cfg and says whether a PING over the
// connection was answered PONG (a refused client certificate fails the
// handshake or, with TLS 1.3, the first read).
func tlsHandshake(addr string, cfg *tls.Config) error {
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: testDeadline}, "tcp", addr, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testDeadline))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// handshakeCase is a client's side of one handshake.
type handshakeCase struct {
	name       string
	cert       func(f *redistest.TLSFiles) *tls.Certificate
	minV, maxV uint16
}

var handshakeCases = []handshakeCase{
	{name: "client-cert", cert: func(f *redistest.TLSFiles) *tls.Certificate { return &f.Client }},
	{name: "no-cert", cert: func(*redistest.TLSFiles) *tls.Certificate { return nil }},
	{name: "stranger-cert", cert: func(f *redistest.TLSFiles) *tls.Certificate { return &f.Stranger }},
	{name: "tls1.2-only", cert: func(f *redistest.TLSFiles) *tls.Certificate { return &f.Client }, maxV: tls.VersionTLS12},
	{name: "tls1.3-only", cert: func(f *redistest.TLSFiles) *tls.Certificate { return &f.Client }, minV: tls.VersionTLS13},
	{name: "tls1.1-only", cert: func(f *redistest.TLSFiles) *tls.Certificate { return &f.Client }, minV: tls.VersionTLS11, maxV: tls.VersionTLS11},
}

func (hc handshakeCase) config(f *redistest.TLSFiles) *tls.Config {
	cfg := f.ClientConfig(hc.cert(f))
	cfg.MinVersion, cfg.MaxVersion = hc.minV, hc.maxV
	if hc.minV == tls.VersionTLS11 {
		cfg.MinVersion = tls.VersionTLS10
	}
	return cfg
}

// serverSettings are the server sides the handshake cases meet.
var serverSettings = []struct {
	name string
	args []string
	want map[string]bool // case name: handshake and PING succeed
}{
	{"auth-yes", nil, map[string]bool{"client-cert": true, "tls1.2-only": true, "tls1.3-only": true}},
	{"auth-no", []string{"--tls-auth-clients", "no"}, map[string]bool{"client-cert": true, "no-cert": true, "stranger-cert": true, "tls1.2-only": true, "tls1.3-only": true}},
	{"auth-optional", []string{"--tls-auth-clients", "optional"}, map[string]bool{"client-cert": true, "no-cert": true, "tls1.2-only": true, "tls1.3-only": true}},
	{"tls1.3", []string{"--tls-protocols", "TLSv1.3"}, map[string]bool{"client-cert": true, "tls1.3-only": true}},
	{"tls1.2", []string{"--tls-protocols", "TLSv1.2"}, map[string]bool{"client-cert": true, "tls1.2-only": true}},
}

// TestTLSHandshakes: mutual TLS, a refused client certificate (none, or
// one of another CA), tls-auth-clients no and optional, and tls-protocols
// limits, each as the expected outcome table says Redis decides.
func TestTLSHandshakes(t *testing.T) {
	f := redistest.NewTLSFiles(t)
	for _, ss := range serverSettings {
		t.Run(ss.name, func(t *testing.T) {
			srv := startTLSServer(t, f, ss.args...)
			for _, hc := range handshakeCases {
				err := tlsHandshake(srv.TLSAddr(), hc.config(f))
				if (err == nil) != ss.want[hc.name] {
					t.Errorf("%s: handshake error %v, want success %v", hc.name, err, ss.want[hc.name])
				}
			}
		})
	}
}

// TestTLSSameHandshakesAsRedis gives Debian's redis-server 7.0 the same
// certificates and settings and expects the same outcome of every
// handshake case as floodgate's.
func TestTLSSameHandshakesAsRedis(t *testing.T) {
	parallel(t)
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed")
	}
	f := redistest.NewTLSFiles(t)
	for _, ss := range serverSettings {
		t.Run(ss.name, func(t *testing.T) {
			tlsPort := redistest.ReservePort(t)
			args := append([]string{"--tls-port", strconv.Itoa(tlsPort), "--tls-cert-file", f.ServerCert,
				"--tls-key-file", f.ServerKey, "--tls-ca-cert-file", f.CA}, ss.args...)
			redistest.Start(t, args...)
			srv := startTLSServer(t, f, ss.args...)
			redisAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(tlsPort))
			for _, hc := range handshakeCases {
				theirs := tlsHandshake(redisAddr, hc.config(f))
				ours := tlsHandshake(srv.TLSAddr(), hc.config(f))
				if (theirs == nil) != (ours == nil) {
					t.Errorf("%s: Redis's handshake error %v, floodgate's %v", hc.name, theirs, ours)
				}
			}
		})
	}
}

// TestTLSOnly: port 0 with a tls-port serves TLS only, as Redis does.
func TestTLSOnly(t *testing.T) {
	f := redistest.NewTLSFiles(t)
	srv := startTLSServer(t, f, "--port", "0")
	if srv.Addr() != "" {
		t.Fatalf("TCP listens on %s with port 0", srv.Addr())
	}
	if err := tlsHandshake(srv.TLSAddr(), f.ClientConfig(&f.Client)); err != nil {
		t.Fatal(err)
	}
	c := tlsClient(t, srv, f)
	ctx := context.Background()
	_, tlsPort, _ := net.SplitHostPort(srv.TLSAddr())
	if got := c.ConfigGet(ctx, "port").Val()["port"]; got != "0" {
		t.Errorf("CONFIG GET port = %q, want 0", got)
	}
	if info := c.Info(ctx, "server").Val(); !strings.Contains(info, "tcp_port:"+tlsPort+"\r\n") {
		t.Errorf("INFO server has no tcp_port:%s (Redis reports the TLS port with port 0):\n%s", tlsPort, info)
	}
}

// tlsClient is a go-redis client of srv's TLS port with the client
// certificate.
func tlsClient(t *testing.T, srv *Server, f *redistest.TLSFiles) *redis.Client {
	t.Helper()
	c := redis.NewClient(patient(&redis.Options{Addr: srv.TLSAddr(), TLSConfig: f.ClientConfig(&f.Client), Protocol: 2, DisableIdentity: true}))
	t.Cleanup(func() { c.Close() })
	return c
}

// TestTLSGoRedis: go-redis with TLSConfig and with a rediss:// URL, RESP2
// and RESP3, the same commands as over TCP (a blocking pop woken by a
// push over the other transport included), CONFIG GET tls-port, and
// CLIENT LIST's line for a TLS client.
func TestTLSGoRedis(t *testing.T) {
	f := redistest.NewTLSFiles(t)
	srv := startTLSServer(t, f)
	ctx := context.Background()
	opts, err := redis.ParseURL("rediss://" + srv.TLSAddr() + "/2?protocol=3")
	if err != nil {
		t.Fatal(err)
	}
	opts.TLSConfig.RootCAs, opts.TLSConfig.Certificates = f.Pool, []tls.Certificate{f.Client}
	viaURL := redis.NewClient(patient(opts))
	defer viaURL.Close()
	if err := viaURL.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	plain := newRedisClient(t, srv)
	if got := plain.Do(ctx, "SELECT", 2).Err(); got != nil {
		t.Fatal(got)
	}
	c := tlsClient(t, srv, f)
	c.Do(ctx, "SELECT", 2)
	if got := c.Get(ctx, "k").Val(); got != "v" {
		t.Fatalf("GET k over TLS = %q", got)
	}
	_, tlsPort, _ := net.SplitHostPort(srv.TLSAddr())
	if got := c.ConfigGet(ctx, "tls-port").Val()["tls-port"]; got != tlsPort {
		t.Errorf("CONFIG GET tls-port = %q, want %s", got, tlsPort)
	}
	list := c.ClientList(ctx).Val()
	if !strings.Contains(list, "laddr="+srv.TLSAddr()+" ") || strings.Contains(list, "fd=-1 ") {
		t.Errorf("CLIENT LIST has no TLS client with laddr=%s and its socket's fd:\n%s", srv.TLSAddr(), list)
	}
	// BLPOP over TLS, woken by a push over TCP (the goroutine's woke).
	popped := make(chan []string, 1)
	go func() { popped <- viaURL.BLPop(ctx, 0, "list").Val() }()
	waitFor(t, "BLPOP to block", func() bool { return strings.Contains(c.ClientList(ctx).Val(), "cmd=blpop") })
	client2 := redis.NewClient(patient(&redis.Options{Addr: srv.Addr(), DB: 2, Protocol: 2, DisableIdentity: true}))
	defer client2.Close()
	client2.RPush(ctx, "list", "x")
	if got := <-popped; len(got) != 2 || got[1] != "x" {
		t.Errorf("BLPOP over TLS = %q", got)
	}
}

// TestTLSRedisCLI: Debian's redis-cli --tls --cacert talks to the TLS
// port.
func TestTLSRedisCLI(t *testing.T) {
	if _, err := exec.LookPath("redis-cli"); err != nil {
		t.Skip("redis-cli not installed")
	}
	f := redistest.NewTLSFiles(t)
	srv := startTLSServer(t, f, "--tls-auth-clients", "optional")
	_, port, _ := net.SplitHostPort(srv.TLSAddr())
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tls", "--cacert", f.CA, "-p", port, "PING"}, "PONG\n"},
		{[]string{"--tls", "--cacert", f.CA, "--cert", f.ClientCert, "--key", f.ClientKey, "-p", port, "ECHO", "hello"}, "hello\n"},
	} {
		out, err := exec.Command("redis-cli", tc.args...).CombinedOutput()
		if err != nil || string(out) != tc.want {
			t.Errorf("redis-cli %s: %q, %v; want %q", strings.Join(tc.args, " "), out, err, tc.want)
		}
	}
}

// TestTLSReloadUnderLoad: CONFIG SET of the certificate and key swaps them
// for the connections that come next while clients keep sending; not one
// request of theirs fails. A file that does not load fails the CONFIG SET
// with Redis's text and leaves the certificate in effect.
func TestTLSReloadUnderLoad(t *testing.T) {
	parallel(t)
	f := redistest.NewTLSFiles(t)
	srv := startTLSServer(t, f)
	ctx := context.Background()
	admin := tlsClient(t, srv, f)
	var stop atomic.Bool
	var sent atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := redis.NewClient(patient(&redis.Options{Addr: srv.TLSAddr(), TLSConfig: f.ClientConfig(&f.Client), Protocol: 2, DisableIdentity: true, PoolSize: 1}))
			defer c.Close()
			key := "counter:" + strconv.Itoa(i)
			for n := int64(1); !stop.Load(); n++ {
				got, err := c.Incr(ctx, key).Result()
				if err != nil || got != n {
					errs <- fmt.Errorf("INCR %s = %d, %v; want %d", key, got, err, n)
					return
				}
				sent.Add(1)
			}
		}(i)
	}
	served := func() int64 {
		// The serial number of the certificate a new connection gets.
		c, err := tls.Dial("tcp", srv.TLSAddr(), f.ClientConfig(&f.Client))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return c.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
	}
	for round := int64(10); round < 20; round++ {
		before := sent.Load()
		waitFor(t, "requests between reloads", func() bool { return sent.Load() > before+20 || len(errs) > 0 })
		cert, key := f.Issue(t, "server"+strconv.FormatInt(round, 10), round)
		if err := admin.ConfigSet(ctx, "tls-cert-file", cert).Err(); err == nil && round == 10 {
			// Redis reloads after each parameter: a certificate with the
			// old key does not load.
			t.Fatal("CONFIG SET tls-cert-file alone, with the old key, succeeded")
		}
		if err := admin.Do(ctx, "CONFIG", "SET", "tls-cert-file", cert, "tls-key-file", key).Err(); err != nil {
			t.Fatal(err)
		}
		if got := served(); got != round {
			t.Fatalf("after the reload a new connection got certificate %d, want %d", got, round)
		}
	}
	bad := f.Dir + "/missing.crt"
	err := admin.ConfigSet(ctx, "tls-cert-file", bad).Err()
	want := "ERR CONFIG SET failed (possibly related to argument 'tls-cert-file') - Unable to update TLS configuration. Check server logs."
	if err == nil || err.Error() != want {
		t.Errorf("CONFIG SET tls-cert-file to a missing file: %v, want %q", err, want)
	}
	if got := admin.ConfigGet(ctx, "tls-cert-file").Val()["tls-cert-file"]; got == bad {
		t.Errorf("CONFIG GET tls-cert-file = the file that failed")
	}
	if got := served(); got != 19 {
		t.Errorf("after a failed reload a new connection got certificate %d, want 19", got)
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestTLSConfigSet: the refusals and errors of CONFIG SET of the tls-*
// parameters on a server serving TLS, each also sent to Debian's Redis
// 7.0 with the same certificates, which must answer the same (but for
// tls-replication and tls-cluster yes, which floodgate refuses).
func TestTLSConfigSet(t *testing.T) {
	f := redistest.NewTLSFiles(t)
	srv := startTLSServer(t, f)
	ctx := context.Background()
	c := tlsClient(t, srv, f)
	var theirs *redis.Client
	if _, err := exec.LookPath("redis-server"); err == nil {
		tlsPort := redistest.ReservePort(t)
		rs := redistest.Start(t, "--tls-port", strconv.Itoa(tlsPort), "--tls-cert-file", f.ServerCert,
			"--tls-key-file", f.ServerKey, "--tls-ca-cert-file", f.CA)
		theirs = redis.NewClient(patient(&redis.Options{Addr: rs.Addr, Protocol: 2, DisableIdentity: true}))
		defer theirs.Close()
	}
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	for _, tc := range []struct {
		args []any
		want string // "" for OK
	}{
		{[]any{"tls-protocols", "TLSv1.2 TLSv1.3"}, ""},
		{[]any{"tls-protocols", "SSLv3"}, "ERR CONFIG SET failed (possibly related to argument 'tls-protocols') - Unable to update TLS configuration. Check server logs."},
		{[]any{"tls-ciphers", "ECDHE-ECDSA-AES128-GCM-SHA256:!aNULL"}, ""},
		{[]any{"tls-ciphers", "NOSUCHCIPHER"}, "ERR CONFIG SET failed (possibly related to argument 'tls-ciphers') - Unable to update TLS configuration. Check server logs."},
		{[]any{"tls-ciphers", ""}, ""},
		{[]any{"tls-ciphersuites", "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"}, ""},
		{[]any{"tls-session-caching", "no"}, ""},
		{[]any{"tls-session-cache-timeout", "60", "tls-session-caching", "yes"}, ""},
		{[]any{"tls-auth-clients", "maybe"}, "ERR CONFIG SET failed (possibly related to argument 'tls-auth-clients') - argument(s) must be one of the following: no, yes, optional"},
		{[]any{"tls-ca-cert-file", "", "tls-auth-clients", "no"}, ""},
		{[]any{"tls-auth-clients", "yes"}, ""}, // no apply step in Redis: checked at the next reload
		// Any reload now fails: tls-auth-clients yes without a CA.
		{[]any{"tls-key-file-pass", "x"}, "ERR CONFIG SET failed (possibly related to argument 'tls-key-file-pass') - Unable to update TLS configuration. Check server logs."},
		{[]any{"tls-auth-clients", "no"}, ""},
		{[]any{"tls-ca-cert-file", f.CA, "tls-auth-clients", "yes"}, ""},
		{[]any{"tls-key-file-pass", "x"}, ""}, // the key is not encrypted: no pass asked for
		{[]any{"tls-key-file-pass", ""}, ""},
		{[]any{"tls-protocols", "TLSv1 TLSv1.1"}, ""},
		{[]any{"tls-protocols", ""}, ""},
		{[]any{"tls-cert-file", f.Dir + "/none.crt"}, "ERR CONFIG SET failed (possibly related to argument 'tls-cert-file') - Unable to update TLS configuration. Check server logs."},
		{[]any{"tls-key-file", f.CA}, "ERR CONFIG SET failed (possibly related to argument 'tls-key-file') - Unable to update TLS configuration. Check server logs."},
		{[]any{"tls-ca-cert-dir", f.Dir + "/none"}, ""},
		{[]any{"tls-ca-cert-dir", f.Dir}, ""},
		{[]any{"tls-ca-cert-dir", ""}, ""},
		{[]any{"tls-dh-params-file", f.CA}, "ERR CONFIG SET failed (possibly related to argument 'tls-dh-params-file') - Unable to update TLS configuration. Check server logs."},
		{[]any{"tls-replication", "yes"}, "ERR Unknown option or number of arguments for CONFIG SET - 'tls-replication'"},
		{[]any{"tls-cluster", "yes"}, "ERR Unknown option or number of arguments for CONFIG SET - 'tls-cluster'"},
		{[]any{"tls-replication", "no", "tls-cluster", "no"}, ""},
	} {
		cmd := append([]any{"CONFIG", "SET"}, tc.args...)
		if got := errText(c.Do(ctx, cmd...).Err()); got != tc.want {
			t.Errorf("CONFIG SET %v: %q, want %q", tc.args, got, tc.want)
		}
		if theirs == nil || strings.HasPrefix(tc.want, "ERR Unknown option") {
			continue
		}
		if got := errText(theirs.Do(ctx, cmd...).Err()); got != tc.want {
			t.Errorf("Redis: CONFIG SET %v: %q, want %q", tc.args, got, tc.want)
		}
	}
	// The server still serves with what loaded.
	if err := tlsHandshake(srv.TLSAddr(), f.ClientConfig(&f.Client)); err != nil {
		t.Fatal(err)
	}
}

// TestTLSPortConfigSet: CONFIG SET tls-port moves the TLS socket (0
// closes it), and a configuration that does not load stops Start.
func TestTLSPortConfigSet(t *testing.T) {
	f := redistest.NewTLSFiles(t)
	srv := startServer(t, Config{})
	ctx := context.Background()
	c := newRedisClient(t, srv)
	want := "ERR CONFIG SET failed (possibly related to argument 'tls-port') - Unable to update TLS configuration. Check server logs."
	port := redistest.ReservePort(t)
	if err := c.ConfigSet(ctx, "tls-port", strconv.Itoa(port)).Err(); err == nil || err.Error() != want {
		t.Fatalf("CONFIG SET tls-port without a certificate: %v, want %q", err, want)
	}
	if err := c.Do(ctx, "CONFIG", "SET", "tls-port", port, "tls-cert-file", f.ServerCert, "tls-key-file", f.ServerKey, "tls-ca-cert-file", f.CA).Err(); err != nil {
		t.Fatal(err)
	}
	if err := tlsHandshake(srv.TLSAddr(), f.ClientConfig(&f.Client)); err != nil {
		t.Fatal(err)
	}
	if err := c.ConfigSet(ctx, "tls-port", "0").Err(); err != nil {
		t.Fatal(err)
	}
	if srv.TLSAddr() != "" {
		t.Fatal("CONFIG SET tls-port 0 left the TLS socket open")
	}
	if _, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))); err == nil {
		t.Fatal("the old TLS port still accepts")
	}

	bad := Prepare(Config{Addr: "127.0.0.1:0"})
	_, _, options := ConfigArgs([]string{"--tls-port", strconv.Itoa(port), "--tls-cert-file", f.ServerCert})
	if err := bad.LoadConfig("", nil, options); err != nil {
		t.Fatal(err)
	}
	bad.Init()
	if err := bad.Start(); err == nil || err.Error() != "Failed to configure TLS. Check logs for more info." {
		t.Errorf("Start with no tls-key-file: %v", err)
	}
	bad.Close()
}

// TestTLSSessionResumption: tls-session-caching yes resumes a session,
// no does not.
func TestTLSSessionResumption(t *testing.T) {
	f := redistest.NewTLSFiles(t)
	for _, caching := range []string{"yes", "no"} {
		srv := startTLSServer(t, f, "--tls-session-caching", caching)
		cfg := f.ClientConfig(&f.Client)
		cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
		resumed := false
		for i := 0; i < 2; i++ {
			c, err := tls.Dial("tcp", srv.TLSAddr(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			// TLS 1.3 tickets come after the handshake: read a reply.
			c.Write([]byte("PING\r\n"))
			bufio.NewReader(c).ReadString('\n')
			resumed = c.ConnectionState().DidResume
			c.Close()
		}
		if resumed != (caching == "yes") {
			t.Errorf("tls-session-caching %s: second connection resumed %v", caching, resumed)
		}
	}
}

// TestTLSConfigSetBindRebinds: CONFIG SET bind moves the TLS sockets with
// the TCP ones, as Redis's changeBindAddr closes and reopens both; an
// address that cannot be bound is refused and the old addresses serve
// TLS again. With port 0 (TLS only) bind moves the TLS sockets alone.
func TestTLSConfigSetBindRebinds(t *testing.T) {
	for _, tcp := range []bool{true, false} {
		t.Run(map[bool]string{true: "tcp-and-tls", false: "tls-only"}[tcp], func(t *testing.T) {
			f := redistest.NewTLSFiles(t)
			extra := []string{"--bind", "127.0.0.1"}
			if !tcp {
				extra = append(extra, "--port", "0")
			}
			srv := startTLSServer(t, f, extra...)
			_, tlsPort, _ := net.SplitHostPort(srv.TLSAddr())
			c := tlsClient(t, srv, f)
			ctx := context.Background()
			serves := func(host string) error {
				return tlsHandshake(net.JoinHostPort(host, tlsPort), f.ClientConfig(&f.Client))
			}
			for _, step := range []struct {
				bind     string
				err      string
				serve    []string
				refused  []string
				tcpServe []string
			}{
				{"127.0.0.1 127.0.0.2", "", []string{"127.0.0.1", "127.0.0.2"}, nil, []string{"127.0.0.1", "127.0.0.2"}},
				{"127.0.0.2", "", []string{"127.0.0.2"}, []string{"127.0.0.1"}, []string{"127.0.0.2"}},
				// 192.0.2.1 (TEST-NET-1) is no local address.
				{"127.0.0.1 192.0.2.1", "ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses.", []string{"127.0.0.2"}, []string{"127.0.0.1"}, []string{"127.0.0.2"}},
				{"127.0.0.1", "", []string{"127.0.0.1"}, []string{"127.0.0.2"}, []string{"127.0.0.1"}},
			} {
				err := c.ConfigSet(ctx, "bind", step.bind).Err()
				if got := fmt.Sprint(err); (step.err == "" && err != nil) || (step.err != "" && got != step.err) {
					t.Fatalf("CONFIG SET bind %q: %v, want %q", step.bind, err, step.err)
				}
				for _, host := range step.serve {
					if err := serves(host); err != nil {
						t.Errorf("bind %q: TLS at %s: %v", step.bind, host, err)
					}
				}
				for _, host := range step.refused {
					if err := serves(host); err == nil {
						t.Errorf("bind %q: TLS still served at %s", step.bind, host)
					}
				}
				if tcp {
					_, port, _ := net.SplitHostPort(srv.Addr())
					for _, host := range step.tcpServe {
						pingAt(t, net.JoinHostPort(host, port))
					}
				}
				if err := c.Ping(ctx).Err(); err != nil {
					t.Fatalf("the connection open across bind %q: %v", step.bind, err)
				}
			}
		})
	}
}
