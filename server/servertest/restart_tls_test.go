package servertest_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server/servertest"
	"github.com/redis/go-redis/v9"
)

// Restart keeps the keys with their TTLs, in every database, and the
// address; what a restart from an RDB file drops (scripts, connections,
// counters, CONFIG SET) is gone.
func TestRestart(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []servertest.Option
	}{
		{"tcp", nil},
		{"dial", []servertest.Option{servertest.WithoutListener()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := append(tc.opts, servertest.WithManualClock(t0), servertest.WithDatabases(2))
			if tc.opts == nil { // Restart listens again on its port: one no other test may take meanwhile
				opts = append(opts, servertest.WithAddr(net.JoinHostPort("127.0.0.1", strconv.Itoa(redistest.ReservePort(t)))))
			}
			s := servertest.RunT(t, opts...)
			addr := s.Addr()
			s.Set("kept", "v")
			s.Set("ttl", "v")
			s.SetTTL("ttl", time.Minute)
			s.Set("expires", "v")
			s.SetTTL("expires", time.Second)
			s.DB(1).ZAdd("z", 1.5, "m")
			s.HSet("h", "f", "1")
			if _, err := s.Call(0, "config", "set", "maxmemory", "12345"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Call(0, "script", "load", "return 1"); err != nil {
				t.Fatal(err)
			}
			s.Close() // as miniredis: Close, then Restart
			s.FastForward(2 * time.Second)
			if err := s.Restart(); err != nil {
				t.Fatal(err)
			}
			if s.Addr() != addr {
				t.Fatalf("address after Restart = %q, want %q", s.Addr(), addr)
			}
			s.CheckGet(t, "kept", "v")
			s.CheckTTL(t, "ttl", time.Minute-2*time.Second)
			s.CheckNotExists(t, "expires")
			s.DB(1).CheckZMembers(t, "z", "m")
			if v, err := s.HGet("h", "f"); err != nil || v != "1" {
				t.Fatalf("HGet after Restart = %q, %v", v, err)
			}
			if got, _ := s.Call(0, "config", "get", "maxmemory"); got.([]any)[1] != "0" {
				t.Fatalf("maxmemory after Restart = %v, want the default 0", got)
			}
			if got, _ := s.Call(0, "script", "exists", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"); got.([]any)[0] != int64(0) {
				t.Fatalf("SCRIPT EXISTS after Restart = %v: scripts should be gone", got)
			}
			var rdb *redis.Client
			if tc.opts == nil {
				rdb = newClient(t, s)
			} else {
				rdb = redis.NewClient(&redis.Options{Dialer: s.DialContext})
				defer rdb.Close()
			}
			if got, err := rdb.Get(ctx, "kept").Result(); err != nil || got != "v" {
				t.Fatalf("a client's GET after Restart = %q, %v", got, err)
			}
			// Restart of a running server closes it first.
			if err := s.Restart(); err != nil {
				t.Fatal(err)
			}
			s.CheckGet(t, "kept", "v")
		})
	}
}

// A TLS server (RunTLS) serves go-redis over TLS, with a certificate from
// a throwaway CA, on the goroutine transport; a plain-text client is not
// served.
func TestRunTLS(t *testing.T) {
	serverCfg, clientCfg := throwawayTLS(t)
	s, err := servertest.RunTLS(serverCfg, servertest.WithManualClock(t0))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), TLSConfig: clientCfg, Protocol: 2})
	defer rdb.Close()
	if err := rdb.Set(ctx, "k", "v", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	s.CheckGet(t, "k", "v")
	s.CheckTTL(t, "k", time.Minute)
	script := redis.NewScript(`return redis.call('INCR', KEYS[1])`)
	if n, err := script.Run(ctx, rdb, []string{"n"}).Int(); err != nil || n != 1 {
		t.Fatalf("EVAL over TLS = %d, %v", n, err)
	}

	plain := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2, MaxRetries: -1, ReadTimeout: time.Second})
	defer plain.Close()
	if err := plain.Ping(ctx).Err(); err == nil {
		t.Fatal("a plain-text PING to the TLS server succeeded")
	}

	s.CloseListener()
	if _, err := tls.Dial("tcp", s.Addr(), clientCfg); err == nil {
		t.Fatal("a TLS dial after CloseListener succeeded")
	}
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatalf("an open TLS connection after CloseListener: %v", err)
	}
}

// throwawayTLS makes a CA and a certificate it signs for 127.0.0.1, and
// the configurations of a server and a client that trusts the CA.
func throwawayTLS(t *testing.T) (serverCfg, clientCfg *tls.Config) {
	t.Helper()
	newKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	caKey, leafKey := newKey(), newKey()
	ca := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "servertest CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &leafKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	serverCfg = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: leafKey}}}
	clientCfg = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
	return serverCfg, clientCfg
}
