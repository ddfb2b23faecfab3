// Package tlsconf turns Redis 7.0's tls-* settings into a crypto/tls server
// configuration, as Redis's tlsConfigure (tls.c) turns them into an OpenSSL
// context: the certificate chain and its key (with tls-key-file-pass), the
// CA pool clients are verified against, the protocol versions, the TLS 1.2
// cipher list, the TLS 1.3 cipher suites, session resumption, and the DH
// parameters (checked, then refused: no DHE suites). Build either returns
// a complete configuration or fails with the line Redis logs for the same
// fault, so a reload that fails leaves the configuration in effect
// untouched (tlsConfigure is atomic too).
//
// Where crypto/tls cannot do what OpenSSL would, the setting is refused
// rather than ignored: Go offers no finite-field DHE suites and does not
// let a server restrict its TLS 1.3 suites, so a tls-ciphers list of DHE
// suites only, or a tls-ciphersuites list leaving out one of Go's three
// TLS 1.3 suites while TLS 1.3 is on, fails as an invalid list would; so
// does any tls-dh-params-file, which could only choose the DHE group.
package tlsconf

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// ClientAuth is tls-auth-clients.
type ClientAuth uint8

const (
	AuthYes      ClientAuth = iota // a client certificate is required and verified
	AuthNo                         // none is asked for
	AuthOptional                   // one is verified if the client sends it
)

// Settings are the tls-* parameters as Redis stores them: "" is unset
// (Redis's EMPTY_STRING_IS_NULL).
type Settings struct {
	CertFile, KeyFile, KeyFilePass                   string
	ClientCertFile, ClientKeyFile, ClientKeyFilePass string
	DHParamsFile                                     string
	CACertFile, CACertDir                            string
	Protocols, Ciphers, Ciphersuites                 string
	PreferServerCiphers                              bool
	SessionCaching                                   bool
	SessionCacheSize                                 int // kept: Go resumes with tickets, not a server cache
	SessionCacheTimeout                              int // seconds a session may be resumed
	AuthClients                                      ClientAuth
	Replication, Cluster                             bool
}

// Config is a built configuration: one tls.Config per tls-auth-clients
// mode, since Redis reads tls-auth-clients for each connection it accepts
// (CONFIG SET of it has no apply step) and the rest only on reload.
type Config struct {
	byAuth [3]*tls.Config
	// Client is the certificate for outgoing connections
	// (tls-client-cert-file), nil if none; loaded to check it, as Redis
	// does, though floodgate makes no TLS connections of its own yet.
	Client *tls.Certificate
}

// Server is the configuration a connection accepted now is served with.
func (c *Config) Server(auth ClientAuth) *tls.Config { return c.byAuth[auth] }

// Error is a reason Build failed, in the words Redis logs.
type Error struct{ Line string }

func (e *Error) Error() string { return e.Line }

func fail(format string, args ...any) error { return &Error{Line: fmt.Sprintf(format, args...)} }

// Build checks and loads s as tlsConfigure does, in its order.
func Build(s Settings) (*Config, error) {
	if s.CertFile == "" {
		return nil, fail("No tls-cert-file configured!")
	}
	if s.KeyFile == "" {
		return nil, fail("No tls-key-file configured!")
	}
	if (s.AuthClients != AuthNo || s.Cluster || s.Replication) && s.CACertFile == "" && s.CACertDir == "" {
		return nil, fail("Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, tls-replication or tls-auth-clients are enabled!")
	}
	minV, maxV, err := ParseProtocols(s.Protocols)
	if err != nil {
		return nil, err
	}
	cert, err := loadKeyPair(s.CertFile, s.KeyFile, s.KeyFilePass)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool() // none configured: no client verifies (never the system's roots)
	if s.CACertFile != "" || s.CACertDir != "" {
		if pool, err = loadCAs(s.CACertFile, s.CACertDir); err != nil {
			return nil, fail("Failed to configure CA certificate(s) file/directory: %s", err)
		}
	}
	var suites []uint16
	if s.Ciphers != "" {
		if suites = ParseCiphers(s.Ciphers); len(suites) == 0 && minV <= tls.VersionTLS12 {
			return nil, fail("Failed to configure ciphers: %s", s.Ciphers)
		}
	}
	if s.Ciphersuites != "" && maxV >= tls.VersionTLS13 && !coversGoTLS13(s.Ciphersuites) {
		return nil, fail("Failed to configure ciphersuites: %s", s.Ciphersuites)
	}
	if s.DHParamsFile != "" {
		if err := checkDHParams(s.DHParamsFile); err != nil {
			return nil, err
		}
		// Parameters Redis would load fine still cannot take effect:
		// they choose the group of the DHE suites, and crypto/tls has
		// none. Refused rather than ignored, as a file that does not
		// load is, so a configuration that counts on DHE finds out.
		return nil, fail("%s: DH parameters cannot take effect: floodgate's TLS (Go's crypto/tls) has no DHE cipher suites; leave tls-dh-params-file unset", s.DHParamsFile)
	}
	var client *tls.Certificate
	if s.ClientCertFile != "" && s.ClientKeyFile != "" {
		c, err := loadKeyPair(s.ClientCertFile, s.ClientKeyFile, s.ClientKeyFilePass)
		if err != nil {
			return nil, err
		}
		client = &c
	}
	base := &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   minV,
		MaxVersion:   maxV,
		CipherSuites: suites,
		// Renegotiation is never offered by a Go server (Redis sets
		// SSL_OP_NO_CLIENT_RENEGOTIATION). Go orders suites itself, so
		// tls-prefer-server-ciphers changes nothing it can.
		SessionTicketsDisabled: !s.SessionCaching || s.SessionCacheTimeout == 0,
	}
	// One set of ticket keys per build, shared by the three modes: a
	// reload starts a new set, as a new SSL_CTX starts a new session cache.
	var key [32]byte
	if _, err := rand.Read(key[:]); err != nil {
		return nil, fail("Failed to make session ticket keys: %s", err)
	}
	base.SetSessionTicketKeys([][32]byte{key})
	if !base.SessionTicketsDisabled {
		limitSessionAge(base, time.Duration(s.SessionCacheTimeout)*time.Second)
	}
	c := &Config{Client: client}
	// The client's certificate is verified here rather than by crypto/tls
	// (ClientCAs), which would name the CAs in its certificate request:
	// Redis names none, and a Go client then sends its certificate
	// whatever its CA, to be refused, where told the names it would send
	// none, and pass tls-auth-clients optional.
	verify := func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) == 0 {
			return nil // optional; yes refuses it before this
		}
		certs := make([]*x509.Certificate, len(raw))
		for i, der := range raw {
			var err error
			if certs[i], err = x509.ParseCertificate(der); err != nil {
				return err
			}
		}
		opts := x509.VerifyOptions{Roots: pool, Intermediates: x509.NewCertPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
		for _, ic := range certs[1:] {
			opts.Intermediates.AddCert(ic)
		}
		_, err := certs[0].Verify(opts)
		return err
	}
	for auth, mode := range []tls.ClientAuthType{AuthYes: tls.RequireAnyClientCert, AuthNo: tls.NoClientCert, AuthOptional: tls.RequestClientCert} {
		cfg := base.Clone()
		cfg.ClientAuth = mode
		if mode != tls.NoClientCert {
			cfg.VerifyPeerCertificate = verify
		}
		c.byAuth[auth] = cfg
	}
	return c, nil
}

// limitSessionAge makes a session resumable for timeout only
// (tls-session-cache-timeout, SSL_CTX_set_timeout), where Go's own limit
// is a week: the ticket carries the time it was issued.
func limitSessionAge(cfg *tls.Config, timeout time.Duration) {
	cfg.WrapSession = func(cs tls.ConnectionState, ss *tls.SessionState) ([]byte, error) {
		stamp, _ := time.Now().MarshalBinary()
		ss.Extra = append(ss.Extra, stamp)
		return cfg.EncryptTicket(cs, ss)
	}
	cfg.UnwrapSession = func(identity []byte, cs tls.ConnectionState) (*tls.SessionState, error) {
		ss, err := cfg.DecryptTicket(identity, cs)
		if ss == nil || err != nil || len(ss.Extra) == 0 {
			return nil, err // nil, nil: a full handshake
		}
		var issued time.Time
		if issued.UnmarshalBinary(ss.Extra[len(ss.Extra)-1]) != nil || time.Since(issued) > timeout {
			return nil, nil
		}
		return ss, nil
	}
}

// ParseProtocols reads tls-protocols (parseProtocolsConfig): any of TLSv1,
// TLSv1.1, TLSv1.2 and TLSv1.3, any case, separated by spaces; unset is
// TLSv1.2 and TLSv1.3. Go takes a range, so the versions named must be
// contiguous (OpenSSL too refuses to use a version above a gap).
func ParseProtocols(v string) (minV, maxV uint16, err error) {
	if v == "" {
		return tls.VersionTLS12, tls.VersionTLS13, nil
	}
	versions := map[string]uint16{"tlsv1": tls.VersionTLS10, "tlsv1.1": tls.VersionTLS11, "tlsv1.2": tls.VersionTLS12, "tlsv1.3": tls.VersionTLS13}
	var set [4]bool
	for _, tok := range strings.Split(v, " ") {
		ver, ok := versions[strings.ToLower(tok)]
		if tok == "" {
			continue // sdssplitlen: an empty token between two spaces
		}
		if !ok {
			return 0, 0, fail("Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.")
		}
		set[ver-tls.VersionTLS10] = true
	}
	for i, on := range set {
		if !on {
			continue
		}
		if minV == 0 {
			minV = tls.VersionTLS10 + uint16(i)
		}
		if maxV != 0 && maxV != tls.VersionTLS10+uint16(i)-1 {
			return 0, 0, fail("tls-protocols %q leaves a gap between versions, which floodgate cannot serve", v)
		}
		maxV = tls.VersionTLS10 + uint16(i)
	}
	if minV == 0 {
		// Every version excluded: OpenSSL fails every handshake.
		return 0, 0, fail("Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.")
	}
	return minV, maxV, nil
}

// loadKeyPair is SSL_CTX_use_certificate_chain_file then
// SSL_CTX_use_PrivateKey_file, with Redis's log lines.
func loadKeyPair(certFile, keyFile, pass string) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, fail("Failed to load certificate: %s: %s", certFile, err)
	}
	var cert tls.Certificate
	for rest := certPEM; ; {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		if block.Type == "CERTIFICATE" || block.Type == "TRUSTED CERTIFICATE" {
			cert.Certificate = append(cert.Certificate, block.Bytes)
		}
	}
	if len(cert.Certificate) == 0 {
		return tls.Certificate{}, fail("Failed to load certificate: %s: no certificate found", certFile)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, fail("Failed to load private key: %s: %s", keyFile, err)
	}
	keyDER, err := privateKeyPEM(keyPEM, pass)
	if err != nil {
		return tls.Certificate{}, fail("Failed to load private key: %s: %s", keyFile, err)
	}
	// X509KeyPair parses both and checks that they belong together.
	pair, err := tls.X509KeyPair(pemOf("CERTIFICATE", cert.Certificate...), keyDER)
	if err != nil {
		return tls.Certificate{}, fail("Failed to load private key: %s: %s", keyFile, err)
	}
	return pair, nil
}

// privateKeyPEM finds the key in a PEM file and decrypts it with pass if
// it is encrypted: the traditional OpenSSL way (Proc-Type: 4,ENCRYPTED,
// `openssl genrsa -aes256 -traditional`), or as a PKCS#8 "ENCRYPTED
// PRIVATE KEY" with PBES2 (decryptPKCS8; OpenSSL 3's default).
func privateKeyPEM(data []byte, pass string) ([]byte, error) {
	for rest := data; ; {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			return nil, errors.New("no private key found")
		}
		switch {
		case block.Type == "ENCRYPTED PRIVATE KEY":
			der, err := decryptPKCS8(block.Bytes, pass)
			if err != nil {
				return nil, err
			}
			return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
		case !strings.HasSuffix(block.Type, "PRIVATE KEY"):
			continue
		//lint:ignore SA1019 legacy PEM encryption is what OpenSSL's -traditional keys use
		case x509.IsEncryptedPEMBlock(block): //nolint:staticcheck
			der, err := x509.DecryptPEMBlock(block, []byte(pass)) //nolint:staticcheck
			if err != nil {
				return nil, errors.New("bad decrypt")
			}
			return pem.EncodeToMemory(&pem.Block{Type: block.Type, Bytes: der}), nil
		}
		return pem.EncodeToMemory(block), nil
	}
}

func pemOf(typ string, ders ...[]byte) []byte {
	var out []byte
	for _, der := range ders {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})...)
	}
	return out
}

// hashedName is how OpenSSL's CA directories name certificates (c_rehash,
// `openssl rehash`): the subject hash, a dot, a sequence number.
var hashedName = regexp.MustCompile(`^[0-9a-f]{8}\.[0-9]+$`)

// loadCAs is SSL_CTX_load_verify_locations: every certificate of the
// file, and those of the directory's hash-named files (OpenSSL looks
// only those up; floodgate loads them all at once rather than by hash).
func loadCAs(file, dir string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		if !pool.AppendCertsFromPEM(data) {
			return nil, fmt.Errorf("%s: no certificate found", file)
		}
	}
	if dir != "" {
		// A directory that cannot be read is no error: OpenSSL adds it to
		// the lookup path and finds nothing there (Redis 7.0 accepts
		// tls-ca-cert-dir /nonexistent).
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !hashedName.MatchString(e.Name()) {
				continue
			}
			if data, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
				pool.AppendCertsFromPEM(data)
			}
		}
	}
	return pool, nil
}

// checkDHParams reads tls-dh-params-file as Redis does, with its log
// lines, so that a file Redis would refuse gets Redis's reason first;
// Build then refuses a good one too (no DHE suites to use it).
func checkDHParams(file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fail("Failed to load %s: %s", file, errnoText(err))
	}
	// PKCS#3's DH PARAMETERS (p, g) or X9.42's (p, g, q, ...), as
	// `openssl dhparam` and `openssl dhparam -dsaparam` write them.
	block, _ := pem.Decode(data)
	if block == nil || (block.Type != "DH PARAMETERS" && block.Type != "X9.42 DH PARAMETERS") {
		return fail("%s: failed to read DH params.", file)
	}
	var seq asn1.RawValue
	if rest, err := asn1.Unmarshal(block.Bytes, &seq); err != nil || len(rest) > 0 || seq.Tag != asn1.TagSequence {
		return fail("%s: failed to read DH params.", file)
	}
	inner := seq.Bytes
	for range 2 { // p, then g
		var n *big.Int
		var err error
		if inner, err = asn1.Unmarshal(inner, &n); err != nil || n.Sign() <= 0 {
			return fail("%s: failed to read DH params.", file)
		}
	}
	return nil
}

// errnoText is strerror's text for the common errors (Go's are lower case).
func errnoText(err error) string {
	s := err.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
