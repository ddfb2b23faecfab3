package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/server/servertest"
)

// testPKI writes a throwaway CA, a store certificate for store.internal
// and 127.0.0.1, and a client certificate, as PEM files in a temporary
// directory, and returns the store's TLS configuration, which requires a
// client certificate from the CA.
func testPKI(t *testing.T) (dir string, storeCfg *tls.Config) {
	t.Helper()
	dir = t.TempDir()
	newKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	write := func(name, kind string, der []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	caKey := newKey()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gateway test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	write("ca.pem", "CERTIFICATE", caDER)
	leaf := func(serial int64, usage x509.ExtKeyUsage, names ...string) ([]byte, *ecdsa.PrivateKey) {
		key := newKey()
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "leaf"},
			DNSNames: names, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return der, key
	}
	storeDER, storeKey := leaf(2, x509.ExtKeyUsageServerAuth, "store.internal")
	clientDER, clientKey := leaf(3, x509.ExtKeyUsageClientAuth)
	write("client.pem", "CERTIFICATE", clientDER)
	keyDER, err := x509.MarshalECPrivateKey(clientKey)
	if err != nil {
		t.Fatal(err)
	}
	write("client.key", "EC PRIVATE KEY", keyDER)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	storeCfg = &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{storeDER}, PrivateKey: storeKey}},
		ClientAuth:   tls.RequireAndVerifyClientCert, ClientCAs: pool,
	}
	return dir, storeCfg
}

// TestEndToEndTLSStore reaches a floodgate that requires TLS with client
// certificates through rediss:// with --redis-ca, --redis-cert, --redis-key
// and --redis-server-name, and checks that without the client certificate
// the start-up check names TLS as the cause.
func TestEndToEndTLSStore(t *testing.T) {
	dir, storeCfg := testPKI(t)
	store, err := servertest.RunTLS(storeCfg, servertest.WithPassword(storePassword))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	up := newUpstream(t)
	_, port, _ := net.SplitHostPort(store.Addr())
	url := "rediss://:" + storePassword + "@127.0.0.1:" + port
	g := startGateway(t, nil, "--upstream", up.URL, "--redis", url, "--ip-limit", "1/1h",
		"--redis-ca", filepath.Join(dir, "ca.pem"), "--redis-cert", filepath.Join(dir, "client.pem"),
		"--redis-key", filepath.Join(dir, "client.key"), "--redis-server-name", "store.internal")
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
		"--redis-ca", filepath.Join(dir, "ca.pem"), "--redis-server-name", "store.internal",
		"--listen", "127.0.0.1:0", "--admin-addr", "", "--log-format", "text"}, &log, nil, nil)
	if code != 1 || !strings.Contains(log.String(), "store check failed") {
		t.Errorf("without a client certificate: exit %d, log:\n%s", code, &log)
	}
}
