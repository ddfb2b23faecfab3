package tlsconf

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseProtocols(t *testing.T) {
	for _, tc := range []struct {
		in         string
		minV, maxV uint16
		err        string
	}{
		{"", tls.VersionTLS12, tls.VersionTLS13, ""},
		{"TLSv1.2", tls.VersionTLS12, tls.VersionTLS12, ""},
		{"tlsv1.3", tls.VersionTLS13, tls.VersionTLS13, ""},
		{"TLSv1 TLSv1.1 TLSv1.2", tls.VersionTLS10, tls.VersionTLS12, ""},
		{"TLSv1.3  TLSv1.2", tls.VersionTLS12, tls.VersionTLS13, ""},
		{"SSLv3", 0, 0, "Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'."},
		{"TLSv1.2,TLSv1.3", 0, 0, "Invalid tls-protocols specified."},
		{"TLSv1 TLSv1.3", 0, 0, "leaves a gap"},
	} {
		minV, maxV, err := ParseProtocols(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseProtocols(%q) = %v, want error %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || minV != tc.minV || maxV != tc.maxV {
			t.Errorf("ParseProtocols(%q) = %x, %x, %v; want %x, %x", tc.in, minV, maxV, err, tc.minV, tc.maxV)
		}
	}
}

func TestParseCiphers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []uint16 // nil: any non-empty list
		none bool
	}{
		{in: "ECDHE-RSA-AES128-GCM-SHA256", want: []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}},
		{in: "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384", want: []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384}},
		{in: "DEFAULT"},
		{in: "HIGH:!aNULL:!MD5"},
		{in: "ECDHE+AESGCM"},
		{in: "DEFAULT:!ECDHE:!kRSA", none: true},
		{in: "DHE-RSA-AES256-GCM-SHA384", none: true}, // Go has no DHE
		{in: "NOSUCHCIPHER", none: true},
		{in: "ECDHE-ECDSA-AES128-GCM-SHA256:-ECDHE-ECDSA-AES128-GCM-SHA256", none: true},
	} {
		got := ParseCiphers(tc.in)
		switch {
		case tc.none && len(got) != 0:
			t.Errorf("ParseCiphers(%q) = %v, want none", tc.in, got)
		case !tc.none && len(got) == 0:
			t.Errorf("ParseCiphers(%q) = none", tc.in)
		case tc.want != nil && !equal(got, tc.want):
			t.Errorf("ParseCiphers(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func equal(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// files writes a self-signed certificate and its key; encrypted with pass
// the traditional way if pass is not "".
func files(t *testing.T, pass string) (certFile, keyFile string) {
	dir := t.TempDir()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "x"}, NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
	der, _ := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	keyDER, _ := x509.MarshalECPrivateKey(key)
	block := &pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}
	if pass != "" {
		var err error
		//lint:ignore SA1019 the format under test
		if block, err = x509.EncryptPEMBlock(rand.Reader, block.Type, keyDER, []byte(pass), x509.PEMCipherAES256); err != nil { //nolint:staticcheck
			t.Fatal(err)
		}
	}
	certFile, keyFile = filepath.Join(dir, "c.crt"), filepath.Join(dir, "c.key")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600)
	return certFile, keyFile
}

func TestBuildErrors(t *testing.T) {
	cert, key := files(t, "")
	encCert, encKey := files(t, "secret")
	otherCert, _ := files(t, "")
	dh := filepath.Join(t.TempDir(), "dh.pem")
	if out, err := exec.Command("openssl", "dhparam", "-out", dh, "-dsaparam", "1024").CombinedOutput(); err != nil {
		t.Logf("openssl dhparam: %v %s; DH cases skipped", err, out)
		dh = ""
	}
	base := Settings{CertFile: cert, KeyFile: key, AuthClients: AuthNo, SessionCaching: true, SessionCacheTimeout: 300}
	for _, tc := range []struct {
		name string
		edit func(*Settings)
		err  string // "" for success
	}{
		{"ok", func(*Settings) {}, ""},
		{"no cert", func(s *Settings) { s.CertFile = "" }, "No tls-cert-file configured!"},
		{"no key", func(s *Settings) { s.KeyFile = "" }, "No tls-key-file configured!"},
		{"auth without CA", func(s *Settings) { s.AuthClients = AuthYes }, "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, tls-replication or tls-auth-clients are enabled!"},
		{"auth with CA", func(s *Settings) { s.AuthClients, s.CACertFile = AuthYes, cert }, ""},
		{"missing CA", func(s *Settings) { s.AuthClients, s.CACertFile = AuthYes, "/nonexistent" }, "Failed to configure CA certificate(s) file/directory: "},
		{"CA dir", func(s *Settings) { s.AuthClients, s.CACertDir = AuthYes, filepath.Dir(cert) }, ""},
		{"missing cert", func(s *Settings) { s.CertFile = "/nonexistent" }, "Failed to load certificate: /nonexistent: "},
		{"cert and key mismatch", func(s *Settings) { s.CertFile = otherCert }, "Failed to load private key: " + key},
		{"encrypted key", func(s *Settings) { s.CertFile, s.KeyFile, s.KeyFilePass = encCert, encKey, "secret" }, ""},
		{"encrypted key, wrong pass", func(s *Settings) { s.CertFile, s.KeyFile, s.KeyFilePass = encCert, encKey, "wrong" }, "Failed to load private key: " + encKey},
		{"client cert", func(s *Settings) { s.ClientCertFile, s.ClientKeyFile = cert, key }, ""},
		{"bad client cert", func(s *Settings) { s.ClientCertFile, s.ClientKeyFile = "/nonexistent", key }, "Failed to load certificate: /nonexistent"},
		{"bad protocols", func(s *Settings) { s.Protocols = "TLSv9" }, "Invalid tls-protocols specified."},
		{"bad ciphers", func(s *Settings) { s.Ciphers = "NOPE" }, "Failed to configure ciphers: NOPE"},
		{"ciphers, TLS 1.3 only", func(s *Settings) { s.Ciphers, s.Protocols = "NOPE", "TLSv1.3" }, ""},
		{"narrow ciphersuites", func(s *Settings) { s.Ciphersuites = "TLS_AES_256_GCM_SHA384" }, "Failed to configure ciphersuites: TLS_AES_256_GCM_SHA384"},
		{"narrow ciphersuites, TLS 1.2", func(s *Settings) { s.Ciphersuites, s.Protocols = "TLS_AES_256_GCM_SHA384", "TLSv1.2" }, ""},
		{"missing DH file", func(s *Settings) { s.DHParamsFile = "/nonexistent" }, "Failed to load /nonexistent: No such file or directory"},
		{"not DH params", func(s *Settings) { s.DHParamsFile = cert }, cert + ": failed to read DH params."},
	} {
		s := base
		tc.edit(&s)
		_, err := Build(s)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)) {
			t.Errorf("%s: Build = %v, want %q", tc.name, err, tc.err)
		}
	}
	if dh != "" {
		s := base
		s.DHParamsFile = dh
		// Good parameters, refused all the same: no DHE suite to use them.
		if _, err := Build(s); err == nil || !strings.Contains(err.Error(), "DH parameters cannot take effect") {
			t.Errorf("DH params from openssl dhparam: %v", err)
		}
	}
}

// TestPKCS8EncryptedKeys: keys `openssl pkcs8 -topk8 -v2` encrypts (PBES2:
// PBKDF2 with each PRF, AES-CBC of each size and 3DES) load with
// tls-key-file-pass and match their certificate; a wrong password fails
// with Redis's line, and so does PBES1 (`-v1`), which floodgate lacks.
func TestPKCS8EncryptedKeys(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
			t.Fatalf("openssl %v: %v\n%s", args, err, out)
		}
	}
	for _, alg := range []struct{ name, genpkey string }{
		{"ec", "ec_paramgen_curve:P-256"}, {"rsa", "rsa_keygen_bits:2048"},
	} {
		plain := filepath.Join(dir, alg.name+".key")
		cert := filepath.Join(dir, alg.name+".crt")
		run("genpkey", "-algorithm", strings.ToUpper(alg.name), "-pkeyopt", alg.genpkey, "-out", plain)
		run("req", "-x509", "-key", plain, "-subj", "/CN=x", "-days", "1", "-out", cert)
		for _, tc := range []struct {
			name string
			args []string
			pass string
			err  string
		}{
			{"aes-256-cbc", []string{"-v2", "aes-256-cbc"}, "secret", ""},
			{"aes-128-cbc", []string{"-v2", "aes-128-cbc"}, "secret", ""},
			{"aes-192-cbc", []string{"-v2", "aes-192-cbc"}, "secret", ""},
			{"des3", []string{"-v2", "des3"}, "secret", ""},
			{"sha512 prf", []string{"-v2", "aes-256-cbc", "-v2prf", "hmacWithSHA512"}, "secret", ""},
			{"sha1 prf", []string{"-v2", "aes-256-cbc", "-v2prf", "hmacWithSHA1"}, "secret", ""},
			{"one iteration", []string{"-v2", "aes-128-cbc", "-iter", "1"}, "secret", ""},
			{"wrong password", []string{"-v2", "aes-256-cbc"}, "wrong", "Failed to load private key: "},
			{"no password", []string{"-v2", "aes-256-cbc"}, "", "Failed to load private key: "},
			{"pbes1", []string{"-v1", "PBE-SHA1-3DES"}, "secret", "Failed to load private key: "},
		} {
			enc := filepath.Join(dir, alg.name+"-"+strings.ReplaceAll(tc.name, " ", "-")+".key")
			run(append([]string{"pkcs8", "-topk8", "-in", plain, "-out", enc, "-passout", "pass:secret"}, tc.args...)...)
			s := Settings{CertFile: cert, KeyFile: enc, KeyFilePass: tc.pass, AuthClients: AuthNo}
			cfg, err := Build(s)
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("%s %s: %v", alg.name, tc.name, err)
			case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err+enc)):
				t.Errorf("%s %s: Build = %v, want %q", alg.name, tc.name, err, tc.err+enc)
			case tc.err == "" && cfg.Server(AuthNo).Certificates[0].PrivateKey == nil:
				t.Errorf("%s %s: no private key", alg.name, tc.name)
			}
		}
	}
}
