package server

import (
	"context"
	"errors"
	"net"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/floodgate/floodgate/internal/tlsconf"
	"github.com/floodgate/floodgate/internal/transport"
)

// TLS connections (tls-port) are served by the event loop, through
// crypto/tls: the handshake, the loop's TLS path and its refusals are
// package internal/transport's (tls.go there); here are the settings,
// their reloads and tls-port's sockets.

// tlsState is tls-port and the certificates, keys and settings it serves
// with.
type tlsState struct {
	// settings and port are the values CONFIG GET reports; guarded by
	// the execution lock once the server runs (CONFIG SET holds it).
	// settings stays nil, Redis's defaults (defaultTLSSettings), until a
	// tls-* directive sets one: inline, its 224 B took the Server a size
	// class up, which every test double allocates.
	settings *tlsconf.Settings
	port     int
	started  bool                           // Start has run startTLS
	portZero bool                           // the port directive was 0: with a tls-port, no TCP
	auth     atomic.Uint32                  // tls-auth-clients, read at each handshake
	current  atomic.Pointer[tlsconf.Config] // what a connection accepted now gets

	mu  sync.Mutex     // the listeners
	lns []net.Listener // tls-port's, on every bind address
	// ctx ends every handshake in progress when the server closes.
	ctx    context.Context
	cancel context.CancelFunc
}

// errTLSUpdate is config.c's reason when the settings do not load.
const errTLSUpdate = "Unable to update TLS configuration. Check server logs."

// configureTLS builds the settings in effect (tlsConfigure), logging why
// they do not load.
func (s *Server) configureTLS() (*tlsconf.Config, bool) {
	st := *s.tls.read()
	st.AuthClients = tlsconf.ClientAuth(s.tls.auth.Load())
	cfg, err := tlsconf.Build(st)
	if err != nil {
		s.log.Warn(err.Error())
		return nil, false
	}
	return cfg, true
}

// startTLS configures TLS and listens on tls-port, at Start, as initServer
// does: a configuration that does not load stops the server from starting.
func (s *Server) startTLS(binds []string) error {
	s.tls.started = true
	if s.tls.port == 0 {
		return nil
	}
	cfg, ok := s.configureTLS()
	if !ok {
		// The caller logs it (the binary, as Redis, then exits 1).
		return errors.New("Failed to configure TLS. Check logs for more info.")
	}
	lns, err := listenAll(binds, strconv.Itoa(s.tls.port))
	if err != nil {
		s.log.Warn(err.Error())
		return errors.New("Failed listening on port " + strconv.Itoa(s.tls.port) + " (TLS), aborting.")
	}
	s.tls.current.Store(cfg)
	s.tls.mu.Lock()
	defer s.tls.mu.Unlock()
	s.tls.ctx, s.tls.cancel = context.WithCancel(context.Background())
	s.tls.lns = lns
	for _, ln := range lns {
		go s.acceptTLS(ln)
	}
	return nil
}

// applyTLS is config.c's applyTlsCfg and applyTLSPort, run once by a
// CONFIG SET of any tls-* parameter after every value is stored: with
// tls-port set, the settings are loaded anew (certificates, keys, CAs:
// a certificate renewed on disk is picked up by setting its file again),
// then tls-port is listened on if it changed. Nothing changes unless all
// of it works; connections already open keep their session.
func applyTLS(s *Server) string {
	if !s.tls.started {
		return "" // not started: Start configures
	}
	// Loaded only with a tls-port (applyTlsCfg); before one is set the
	// values are only stored, as Redis stores them.
	var cfg *tlsconf.Config
	if s.tls.port != 0 {
		var ok bool
		if cfg, ok = s.configureTLS(); !ok {
			return errTLSUpdate
		}
	}
	s.tls.mu.Lock()
	defer s.tls.mu.Unlock()
	want := strconv.Itoa(s.tls.port)
	if want == s.tlsListeningPort() || want == "0" && len(s.tls.lns) == 0 {
		if cfg != nil {
			s.tls.current.Store(cfg)
		}
		return ""
	}
	// changeListenPort: close, then open, the old port again on failure.
	// The new configuration is in place before the first accept.
	old := s.tlsListeningPort()
	transport.CloseAll(s.tls.lns)
	s.tls.lns = nil
	listen := func(port string) error {
		if port == "0" || port == "" {
			return nil
		}
		lns, err := listenAll(s.listenBinds(), port)
		if err != nil {
			return err
		}
		s.tls.lns = lns
		return nil
	}
	err := listen(want)
	if err != nil {
		s.log.Warn(err.Error())
		listen(old)
	} else if cfg != nil {
		s.tls.current.Store(cfg)
	}
	if s.tls.ctx == nil {
		s.tls.ctx, s.tls.cancel = context.WithCancel(context.Background())
	}
	for _, ln := range s.tls.lns {
		go s.acceptTLS(ln)
	}
	if err != nil {
		return "Unable to listen on this port. Check server logs."
	}
	return ""
}

// rebindTLS moves the TLS sockets to binds, closing the old ones first
// (CONFIG SET bind, changeBindAddr); nothing to do without a tls-port
// (bind "" leaves a tls-port with no socket, as listenToPort with no
// address, until the next bind). A failure leaves none open: the caller
// binds the old addresses again.
func (s *Server) rebindTLS(binds []string) error {
	if !s.tls.started || s.tls.port == 0 {
		return nil
	}
	port := strconv.Itoa(s.tls.port)
	s.tls.mu.Lock()
	defer s.tls.mu.Unlock()
	transport.CloseAll(s.tls.lns)
	s.tls.lns = nil
	lns, err := listenAll(binds, port)
	if err != nil {
		return err
	}
	s.tls.lns = lns
	for _, ln := range lns {
		go s.acceptTLS(ln)
	}
	return nil
}

// tlsListeningPort is the port the TLS sockets listen on, "" if none;
// tls.mu is held.
func (s *Server) tlsListeningPort() string {
	if len(s.tls.lns) == 0 {
		return ""
	}
	_, port, _ := net.SplitHostPort(s.tls.lns[0].Addr().String())
	return port
}

// TLSAddr is the address tls-port listens on, "" if it does not.
func (s *Server) TLSAddr() string {
	s.tls.mu.Lock()
	defer s.tls.mu.Unlock()
	if len(s.tls.lns) == 0 {
		return ""
	}
	return s.tls.lns[0].Addr().String()
}

// closeTLS stops accepting and ends the handshakes in progress; the
// clients already served close with the others.
func (s *Server) closeTLS() {
	s.tls.mu.Lock()
	defer s.tls.mu.Unlock()
	transport.CloseAll(s.tls.lns)
	if s.tls.cancel != nil {
		s.tls.cancel()
	}
}

// acceptTLS accepts from one of tls-port's sockets until it is closed,
// each connection's handshake on a goroutine of its own.
func (s *Server) acceptTLS(ln net.Listener) {
	transport.AcceptLoop(s.host(), ln, func(nc net.Conn) { go s.serveTLS(nc) })
}

// serveTLS runs the handshake with the settings in effect, then hands the
// connection to the event loop, or, without one, serves it as the
// goroutine transport serves any (transport.ServeTLS).
func (s *Server) serveTLS(nc net.Conn) {
	cfg := s.tls.current.Load()
	s.tls.mu.Lock()
	ctx := s.tls.ctx
	s.tls.mu.Unlock()
	transport.ServeTLS(ctx, s.host(), nc, cfg.Server(tlsconf.ClientAuth(s.tls.auth.Load())), s.startLoop)
}

// tlsParam is a tls-* parameter kept in tlsState.settings and applied
// with the rest of them (applyTLS).
func tlsParam(field func(*tlsconf.Settings) *string) floodgateParam {
	return floodgateParam{effect: effectApplied, commit: tlsCommit,
		get: func(s *Server) string { return *field(s.tls.read()) },
		apply: func(s *Server, v string) string {
			*field(s.tls.write()) = v
			return ""
		}}
}

func tlsBoolParam(field func(*tlsconf.Settings) *bool) floodgateParam {
	return floodgateParam{effect: effectApplied, commit: tlsCommit,
		get: func(s *Server) string { return yesNo(*field(s.tls.read())) },
		apply: func(s *Server, v string) string {
			*field(s.tls.write()) = v == "yes"
			return ""
		}}
}

func tlsIntParam(field func(*tlsconf.Settings) *int) floodgateParam {
	return floodgateParam{effect: effectApplied, commit: tlsCommit,
		get: func(s *Server) string { return strconv.Itoa(*field(s.tls.read())) },
		apply: func(s *Server, v string) string {
			*field(s.tls.write()), _ = strconv.Atoi(v)
			return ""
		}}
}

// tlsCommit is applyTLS, run once per CONFIG SET.
var tlsCommit = &configCommit{run: applyTLS}

// tlsAuthValues are tls-auth-clients' values by tlsconf.ClientAuth.
var tlsAuthValues = [...]string{tlsconf.AuthYes: "yes", tlsconf.AuthNo: "no", tlsconf.AuthOptional: "optional"}

// tlsParams are the tls-* parameters. tls-replication and tls-cluster
// stay Redis's default only: floodgate has neither replication nor a
// cluster bus to carry over TLS.
var tlsParams = map[string]floodgateParam{
	"tls-port": {effect: effectApplied, commit: tlsCommit,
		get: func(s *Server) string { return strconv.Itoa(s.tls.port) },
		apply: func(s *Server, v string) string {
			s.tls.port, _ = strconv.Atoi(v)
			return ""
		}},
	// No apply step in Redis either: read by each handshake.
	"tls-auth-clients": {effect: effectApplied,
		get: func(s *Server) string { return tlsAuthValues[s.tls.auth.Load()] },
		apply: func(s *Server, v string) string {
			for i, name := range tlsAuthValues {
				if name == v {
					s.tls.auth.Store(uint32(i))
				}
			}
			return ""
		}},
	"tls-cert-file":             tlsParam(func(t *tlsconf.Settings) *string { return &t.CertFile }),
	"tls-key-file":              tlsParam(func(t *tlsconf.Settings) *string { return &t.KeyFile }),
	"tls-key-file-pass":         tlsParam(func(t *tlsconf.Settings) *string { return &t.KeyFilePass }),
	"tls-client-cert-file":      tlsParam(func(t *tlsconf.Settings) *string { return &t.ClientCertFile }),
	"tls-client-key-file":       tlsParam(func(t *tlsconf.Settings) *string { return &t.ClientKeyFile }),
	"tls-client-key-file-pass":  tlsParam(func(t *tlsconf.Settings) *string { return &t.ClientKeyFilePass }),
	"tls-dh-params-file":        tlsParam(func(t *tlsconf.Settings) *string { return &t.DHParamsFile }),
	"tls-ca-cert-file":          tlsParam(func(t *tlsconf.Settings) *string { return &t.CACertFile }),
	"tls-ca-cert-dir":           tlsParam(func(t *tlsconf.Settings) *string { return &t.CACertDir }),
	"tls-protocols":             tlsParam(func(t *tlsconf.Settings) *string { return &t.Protocols }),
	"tls-ciphers":               tlsParam(func(t *tlsconf.Settings) *string { return &t.Ciphers }),
	"tls-ciphersuites":          tlsParam(func(t *tlsconf.Settings) *string { return &t.Ciphersuites }),
	"tls-prefer-server-ciphers": tlsBoolParam(func(t *tlsconf.Settings) *bool { return &t.PreferServerCiphers }),
	"tls-session-caching":       tlsBoolParam(func(t *tlsconf.Settings) *bool { return &t.SessionCaching }),
	"tls-session-cache-size":    tlsIntParam(func(t *tlsconf.Settings) *int { return &t.SessionCacheSize }),
	"tls-session-cache-timeout": tlsIntParam(func(t *tlsconf.Settings) *int { return &t.SessionCacheTimeout }),
}

// defaultTLSSettings are Redis's defaults of the tls-* settings; nothing
// writes them.
var defaultTLSSettings = tlsconf.Settings{SessionCaching: true, SessionCacheSize: 20 * 1024, SessionCacheTimeout: 300}

// read returns the settings for reading.
func (t *tlsState) read() *tlsconf.Settings {
	if t.settings == nil {
		return &defaultTLSSettings
	}
	return t.settings
}

// write returns the settings for a directive to change, made from the
// defaults the first time.
func (t *tlsState) write() *tlsconf.Settings {
	if t.settings == nil {
		st := defaultTLSSettings
		t.settings = &st
	}
	return t.settings
}
