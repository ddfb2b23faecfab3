package server

// Controls of a running server for an embedding program or a test: fault
// injection (SetError, Pause, CloseListener, CloseClients), counters, and
// running expiry now. servertest builds the test double on them; nothing
// here imports testing, so the floodgate binary does not link it.

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate/floodgate/internal/transport"
)

// ServeDialOnly serves the connections of Dial only: no listener, no network
// at all, so the server can be started inside a testing/synctest bubble.
//
// The expiry cron starts with the first use, a connection or a Do (firstUse),
// at once if there was one already: until then there is nothing it could
// expire nor anyone to see its statistics, and its timer, armed and stopped,
// was a third of the start and close of a test double nobody used. (A TCP
// server defers it too when nothing else could give it work: serve.)
func (s *Server) ServeDialOnly() error {
	s.deferExpiry()
	return nil
}

// deferExpiry leaves the expiry cron to the first use, or starts it now if
// that came already. Each side (this, firstUse) stores its flag, then
// reads the other's: one of the two sees both, and starting twice does
// nothing.
func (s *Server) deferExpiry() {
	s.expiryOnUse.Store(true)
	if s.used.Load() {
		s.startExpiry()
	}
}

// idleUntilUsed reports whether only a client (or Do) can give the
// server's crons work: no save point, nothing loading, no master to sync
// from, the AOF off and no metrics endpoint. A TCP server then defers
// its expiry cron as a dial-only one does.
func (s *Server) idleUntilUsed() bool {
	s.metrics.mu.Lock()
	metricsOn := s.metrics.addr != ""
	s.metrics.mu.Unlock()
	return len(s.persist.points) == 0 && !s.loading.active.Load() && !s.repl.configuredMaster.Load() && !s.aof.on.Load() && !metricsOn
}

// firstUse notes that the server is used (a connection, a Do), and starts
// what ServeDialOnly left for then.
func (s *Server) firstUse() {
	if s.used.Load() {
		return
	}
	s.used.Store(true)
	if s.expiryOnUse.Load() {
		s.startExpiry()
	}
}

// StartAddr listens on addr and serves in the background. With the AOF on,
// or Config.LoadRDB and an RDB file, it then loads the data and returns once
// loaded, as Redis 7.0 listens, then loads (loadDataFromDisk): clients
// connect meanwhile and get LOADING for every command without the loading
// flag. A file that fails to load closes the server and is the error (its
// text, or the log, is Redis's); a SHUTDOWN or AbortLoading meanwhile
// closes it with ErrShutdownWhileLoading.
func (s *Server) StartAddr(addr string) error {
	loading := s.aof.cfg.Enabled || (s.cfg.LoadRDB && s.rdbExists())
	if !loading && !s.cfg.LazyAOFManifest {
		// With the AOF off this only reads the manifest: nothing to load.
		if err := s.startAOF(); err != nil {
			return err
		}
	}
	// The port directive 0 with a tls-port serves TLS only, as Redis
	// does; port 0 alone, or Config.Addr's, picks a free port.
	host, _, _ := net.SplitHostPort(addr)
	tlsOnly := s.tls.portZero && s.tls.port != 0
	var lns []net.Listener
	if !tlsOnly {
		var err error
		if lns, err = s.listenersFor(addr); err != nil {
			return err
		}
	}
	binds := s.binds
	if len(binds) == 0 {
		binds = []string{host}
	}
	if err := s.startTLS(binds); err != nil {
		transport.CloseAll(lns)
		return err
	}
	// Before the load, so that /healthz answers 503 while it runs.
	if err := s.startMetrics(); err != nil {
		transport.CloseAll(lns)
		s.closeTLS()
		return err
	}
	if s.onListening != nil {
		s.onListening()
	}
	s.store.OnExpire = s.expiredKey
	var dl *detachableListener
	if !tlsOnly {
		openSpare() // see refuseOutOfFDs
		s.front = transport.NewFront(s.host(), lns)
		dl = &detachableListener{Listener: s.front, stop: s.stop}
		s.double.mu.Lock()
		s.double.listener = dl
		s.double.mu.Unlock()
	}
	if loading {
		s.startLoading() // before any client can connect
		s.holdForLoad()
	}
	if tlsOnly {
		s.startExpiry()
		if !loading {
			s.log.Info("Ready to accept connections", "addr", s.TLSAddr())
		}
	} else {
		s.serve(dl, s.front)
	}
	var err error
	if !loading {
		return nil
	}
	if s.beforeLoad != nil {
		s.beforeLoad()
	}
	if s.aof.cfg.Enabled {
		err = s.startAOF()
	} else {
		err = s.loadRDB()
	}
	s.releaseLoadHold()
	if err != nil {
		// Closed while still loading: a client waiting for the lock gets
		// LOADING, never an answer from the keyspace of a failed load
		// (Redis exits there without serving anyone).
		s.Close()
		s.Do(s.stopLoading)
		return err
	}
	s.Do(s.stopLoading)
	s.startConfiguredReplication()
	s.log.Info("Ready to accept connections", "addr", s.Addr())
	return nil
}

// OnListening sets a function Start runs once its sockets are open and
// before it loads any data: where Redis writes its pid file, so a second
// server failing to listen never touches the running one's.
func (s *Server) OnListening(fn func()) { s.onListening = fn }

// Host returns the host part of Addr.
func (s *Server) Host() string {
	host, _, _ := net.SplitHostPort(s.Addr())
	return host
}

// Port returns the port part of Addr.
func (s *Server) Port() string {
	_, port, _ := net.SplitHostPort(s.Addr())
	return port
}

// testDouble is the state of the controls (this file) and of Dial, kept
// apart from the server's own. (The name is older than package servertest.)
type testDouble struct {
	err atomic.Pointer[string] // SetError's reply; nil: none

	mu       sync.Mutex
	listener *detachableListener // the TCP listener StartAddr opened
	resume   chan struct{}       // non-nil while paused
}

// detachableListener lets CloseListener stop new connections without
// closing the open ones: the accept loop is kept waiting for Close rather
// than ending (which would close the server's connections with it).
type detachableListener struct {
	net.Listener
	stop     <-chan struct{}
	detached atomic.Bool
}

func (l *detachableListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil && l.detached.Load() {
		<-l.stop
		return nil, net.ErrClosed
	}
	return c, err
}

// Now returns the current time of the server's clock.
func (s *Server) Now() time.Time { return s.store.Clock().Now() }

// ExpireNow deletes every key whose time has come, as active expiry would,
// and times out every blocked client (BLPOP and friends) whose timeout has
// passed, at once: after moving the clock a test sees both done. The
// store's expiry heap pops only the keys that have expired, so it costs
// O(log n) per expired key.
func (s *Server) ExpireNow() {
	s.Do(func() {
		s.store.ActiveExpire(0) // expiredKey counts them
		if s.timeOutBlocked() >= 0 {
			s.rearmBlockTimer() // the wall-clock wait it had is now too long
		}
	})
}

// SetError makes the server answer every command with the error msg (sent
// as it is, so include the code: "ERR boom", "LOADING ...") until
// SetError("") clears it. Connections stay open. Use it to test how code
// behaves when Redis fails (fail open, fail closed).
func (s *Server) SetError(msg string) {
	if msg == "" {
		s.double.err.Store(nil)
		return
	}
	msg = sanitizeError(msg)
	s.double.err.Store(&msg)
}

// Pause makes the server stop answering, as a frozen server would: it
// returns once no command is running, and until Resume every command waits
// (clients time out on their own deadlines). Expiry, FastForward and the
// inspection methods wait too. Close still works while paused.
func (s *Server) Pause() {
	s.double.mu.Lock()
	defer s.double.mu.Unlock()
	if s.double.resume != nil {
		return
	}
	select {
	case s.lock <- struct{}{}:
	case <-s.stop:
		return
	}
	resume := make(chan struct{})
	s.double.resume = resume
	// The lock is held on behalf of the test and released by Resume, or by
	// Close, which must be able to take it.
	go func() {
		select {
		case <-resume:
		case <-s.stop:
		}
		<-s.lock
	}()
}

// Resume undoes Pause.
func (s *Server) Resume() {
	s.double.mu.Lock()
	defer s.double.mu.Unlock()
	if s.double.resume != nil {
		close(s.double.resume)
		s.double.resume = nil
	}
}

// CloseListener stops accepting connections: new dials are refused, while
// connections already open keep working until they close or the server
// closes. Dial keeps working. Use CloseClients as well to cut everyone off.
func (s *Server) CloseListener() {
	s.double.mu.Lock()
	dl := s.double.listener
	s.double.mu.Unlock()
	if dl != nil && dl.detached.CompareAndSwap(false, true) {
		dl.Listener.Close()
	}
}

// CloseClients closes every open client connection (TCP and Dial), as a
// network failure or a server restart would; the server keeps its keys and
// keeps accepting connections.
func (s *Server) CloseClients() {
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	for c := range s.clients {
		if c.conn != nil {
			c.conn.tr.Kill()
		}
	}
}

// CommandCount returns how many commands the server has run (commands
// refused by SetError are not counted; those rejected by generic checks
// such as arity or NOAUTH are not counted either).
func (s *Server) CommandCount() int {
	var n int64
	s.Do(func() { n = s.processed })
	return int(n)
}

// CurrentConnectionCount returns the number of open client connections.
func (s *Server) CurrentConnectionCount() int { return s.clientCount() }

// TotalConnectionCount returns how many client connections were ever
// accepted.
func (s *Server) TotalConnectionCount() int { return int(s.totalConns.Load()) }

// scriptCommands are the commands ScriptCalls counts.
var scriptCommands = []string{"eval", "evalsha", "eval_ro", "evalsha_ro"}

// ScriptCalls returns how many scripts the server has been asked to run
// (EVAL, EVALSHA, EVAL_RO and EVALSHA_RO calls, failed ones included).
func (s *Server) ScriptCalls() int {
	var n int64
	s.Do(func() {
		for _, name := range scriptCommands {
			if cmd := commandTable.byName[name]; cmd != nil {
				n += s.stat(cmd.id).calls
			}
		}
	})
	return int(n)
}
