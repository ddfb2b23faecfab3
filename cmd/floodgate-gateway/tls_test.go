package main

import (
	"context"
	"crypto/tls"
	"net"
	"strings"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server/servertest"
)

// testPKI is redistest's throw-away CA and its certificates (the server's
// good for 127.0.0.1 and localhost), and the store's TLS configuration,
// which requires a client certificate from the CA.
func testPKI(t *testing.T) (*redistest.TLSFiles, *tls.Config) {
	t.Helper()
	f := redistest.NewTLSFiles(t)
	cert, err := tls.LoadX509KeyPair(f.ServerCert, f.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	return f, &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: f.Pool}
}

// TestEndToEndTLSStore reaches a floodgate that requires TLS with client
// certificates through rediss:// with --redis-ca, --redis-cert, --redis-key
// and --redis-server-name (localhost, a name of the certificate, while the
// URL dials 127.0.0.1), and checks that without the client certificate
// the start-up check names TLS as the cause.
func TestEndToEndTLSStore(t *testing.T) {
	forEachFrontEnd(t, testEndToEndTLSStore)
}

func testEndToEndTLSStore(t *testing.T, frontEnd string) {
	pki, storeCfg := testPKI(t)
	store, err := servertest.RunTLS(storeCfg, servertest.WithPassword(storePassword))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	up := newUpstream(t)
	_, port, _ := net.SplitHostPort(store.Addr())
	url := "rediss://:" + storePassword + "@127.0.0.1:" + port
	g := startGateway(t, nil, "--front-end", frontEnd, "--upstream", up.URL, "--redis", url, "--ip-limit", "1/1h",
		"--redis-ca", pki.CA, "--redis-cert", pki.ClientCert,
		"--redis-key", pki.ClientKey, "--redis-server-name", "localhost")
	if resp, _ := do(t, "GET", g.proxy+"/"); resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("first request: %d remaining %q", resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining"))
	}
	if resp, _ := do(t, "GET", g.proxy+"/"); resp.StatusCode != 429 {
		t.Errorf("second request: %d, want 429 from the store's count", resp.StatusCode)
	}
	if !strings.Contains(g.log.String(), `msg="store check"`) || strings.Contains(g.log.String(), storePassword) {
		t.Errorf("log:\n%s", g.log)
	}

	var log syncBuffer
	code := run(context.Background(), []string{"--upstream", up.URL, "--redis", url, "--require-store",
		"--redis-ca", pki.CA, "--redis-server-name", "localhost",
		"--listen", "127.0.0.1:0", "--admin-addr", "", "--log-format", "text"}, &log, nil, nil)
	if code != 1 || !strings.Contains(log.String(), "store check failed") {
		t.Errorf("without a client certificate: exit %d, log:\n%s", code, &log)
	}
}
