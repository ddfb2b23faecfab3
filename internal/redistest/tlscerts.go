package redistest

import (
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
	"testing"
	"time"
)

// TLSFiles is a throw-away certificate authority written to a test's
// directory: a CA, a server certificate for 127.0.0.1 and localhost it
// signed, a client certificate it signed, and a client certificate of
// another CA (one the server must refuse).
type TLSFiles struct {
	Dir                       string
	CA                        string // ca.crt
	ServerCert, ServerKey     string
	ClientCert, ClientKey     string
	StrangerCert, StrangerKey string // signed by a CA the server does not trust
	Pool                      *x509.CertPool
	Client, Stranger          tls.Certificate
	caCert                    *x509.Certificate
	caKey                     *ecdsa.PrivateKey
}

// NewTLSFiles makes a CA and its certificates in a directory of t's.
func NewTLSFiles(t testing.TB) *TLSFiles {
	t.Helper()
	dir := t.TempDir()
	f := &TLSFiles{Dir: dir, Pool: x509.NewCertPool()}
	var caPEM []byte
	f.caCert, f.caKey, caPEM = newCA(t, "floodgate test CA")
	f.CA = write(t, dir, "ca.crt", caPEM)
	f.Pool.AppendCertsFromPEM(caPEM)
	f.ServerCert, f.ServerKey = f.Issue(t, "server", 1)
	f.ClientCert, f.ClientKey = f.Issue(t, "client", 2)
	otherCA, otherKey, _ := newCA(t, "stranger CA")
	certPEM, keyPEM := issue(t, otherCA, otherKey, "stranger", 3)
	f.StrangerCert, f.StrangerKey = write(t, dir, "stranger.crt", certPEM), write(t, dir, "stranger.key", keyPEM)
	var err error
	if f.Client, err = tls.LoadX509KeyPair(f.ClientCert, f.ClientKey); err != nil {
		t.Fatal(err)
	}
	if f.Stranger, err = tls.LoadX509KeyPair(f.StrangerCert, f.StrangerKey); err != nil {
		t.Fatal(err)
	}
	return f
}

// Issue writes name.crt and name.key, a certificate of the CA with that
// serial number, good for 127.0.0.1 and localhost as a server and as a
// client.
func (f *TLSFiles) Issue(t testing.TB, name string, serial int64) (certFile, keyFile string) {
	t.Helper()
	certPEM, keyPEM := issue(t, f.caCert, f.caKey, name, serial)
	return write(t, f.Dir, name+".crt", certPEM), write(t, f.Dir, name+".key", keyPEM)
}

// ClientConfig is a client's TLS configuration trusting the CA, with cert
// (none if nil).
func (f *TLSFiles) ClientConfig(cert *tls.Certificate) *tls.Config {
	cfg := &tls.Config{RootCAs: f.Pool, ServerName: "127.0.0.1"}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	return cfg
}

func newCA(t testing.TB, name string) (*x509.Certificate, *ecdsa.PrivateKey, []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(100), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return cert, key, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func issue(t testing.TB, ca *x509.Certificate, caKey *ecdsa.PrivateKey, name string, serial int64) ([]byte, []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
}

func write(t testing.TB, dir, name string, data []byte) string {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
