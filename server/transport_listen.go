package server

import (
	"context"
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/floodgate/floodgate/internal/transport"
)

// frontListener is what the transports accept from: the sockets of every
// bind address merged into one, so CONFIG SET port and bind can swap them
// while the accept loop runs (Redis's changeListenPort), and the place
// where Redis's acceptance rules apply before a client exists: protected
// mode and maxclients.
//
// On Linux the event loop accepts from the sockets itself, as Redis's ae
// loop does, from the first connection on (await); elsewhere, and with
// GoroutineConns, a goroutine per socket accepts (acceptFrom) and Accept
// hands the connections on.
type frontListener struct {
	srv   *Server
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once

	mu       sync.Mutex
	lns      []net.Listener
	addr     net.Addr        // lns[0]'s, kept while there is none (bind "")
	serving  bool            // serve has run: swap starts accepting at once
	awaiting bool            // the sockets wait for the first connection (await)
	loop     *transport.Loop // accepts from lns; nil: acceptFrom goroutines do

	acceptLoop sync.Once // startAcceptLoop's
}

// errProtected is networking.c's reply to a non-local client in protected mode.
const errProtected = "-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. In this mode connections are only accepted from the loopback interface. If you want to connect from external computers to Redis you may adopt one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the server. 3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. 4) Setup a an authentication password for the default user. NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside.\r\n"

const errMaxClients = "-ERR max number of clients reached\r\n"

// listenAll opens a socket for every bind address on port. An address
// with a leading '-' may be unavailable (bind's optional addresses); '*'
// is every IPv4 interface and '::*' every IPv6 one. Port 0 picks a free
// port for the first address and uses it for the others.
func listenAll(binds []string, port string) ([]net.Listener, error) {
	if len(binds) == 0 {
		return nil, nil // bind "": listenToPort listens on nothing
	}
	var lns []net.Listener
	fail := func(err error) ([]net.Listener, error) {
		for _, ln := range lns {
			ln.Close()
		}
		return nil, err
	}
	for i, b := range binds {
		if a, ok := firstAddr(lns).(*net.TCPAddr); ok && i > 0 && port == "0" {
			port = strconv.Itoa(a.Port) // the others use the port picked for the first
		}
		optional := strings.HasPrefix(b, "-")
		host := strings.TrimPrefix(b, "-")
		network := "tcp"
		switch host {
		case "*":
			host, network = "0.0.0.0", "tcp4"
		case "::*":
			host, network = "::", "tcp6"
		}
		ln, err := listenTCP(network, net.JoinHostPort(host, port))
		if err != nil {
			if optional {
				continue
			}
			return fail(&ListenError{Addr: strings.TrimPrefix(b, "-"), Port: port, Err: err})
		}
		lns = append(lns, ln)
	}
	if len(lns) == 0 {
		return fail(errors.New("no bind address could be used"))
	}
	return lns, nil
}

func firstAddr(lns []net.Listener) net.Addr {
	if len(lns) == 0 {
		return nil
	}
	return lns[0].Addr()
}

// listenGo is net.Listen with a plain TCP socket, as Redis's, where Go
// 1.24 makes an MPTCP one by default (which also costs more to make).
func listenGo(network, address string) (net.Listener, error) {
	var lc net.ListenConfig
	lc.SetMultipathTCP(false)
	return lc.Listen(context.Background(), network, address)
}

// ListenError is a bind address that could not be listened on. Its text
// is Redis's listenToPort warning ("Warning: Could not create server TCP
// listening socket 127.0.0.1:6379: bind: Address already in use"); Port is
// for the line Redis logs next.
type ListenError struct {
	Addr, Port string // the bind address as configured, and the port
	Err        error
}

func (e *ListenError) Error() string {
	// anet's text: the failed call, then strerror.
	reason := e.Err.Error()
	if se := (*os.SyscallError)(nil); errors.As(e.Err, &se) {
		reason = se.Syscall + ": " + errnoText(se.Err)
	}
	return "Warning: Could not create server TCP listening socket " + e.Addr + ":" + e.Port + ": " + reason
}

func (e *ListenError) Unwrap() error { return e.Err }

func newFrontListener(s *Server, lns []net.Listener) *frontListener {
	openSpare() // see refuseOutOfFDs
	return &frontListener{srv: s, conns: make(chan net.Conn), done: make(chan struct{}), lns: lns, addr: lns[0].Addr()}
}

// serve starts accepting, on goroutines or, if useLoop, on the event loop
// once a connection comes (await).
func (f *frontListener) serve(useLoop bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.serving, f.awaiting = true, useLoop
	f.startAccepting(f.lns)
}

// startAccepting starts accepting from lns the way the front does; f.mu
// is held. It fails only if the event loop cannot take them.
func (f *frontListener) startAccepting(lns []net.Listener) error {
	switch {
	case f.loop != nil:
		return f.loop.Listen(lns)
	case f.awaiting:
		for _, ln := range lns {
			f.await(ln)
		}
	default:
		for _, ln := range lns {
			go f.acceptFrom(ln)
		}
	}
	return nil
}

// rebind closes the front's sockets and accepts from those open opens in
// their place; connections already accepted stay open. It closes first,
// as Redis's changeBindAddr and changeListenPort do, so the new addresses
// may be the old ones or overlap them (CONFIG SET bind to its own value,
// or "127.0.0.1 127.0.0.2" over 127.0.0.1). If open fails, the sockets
// restore opens are served again, as Redis's CONFIG SET restores the old
// value and applies it, and open's error is returned.
func (f *frontListener) rebind(open, restore func() ([]net.Listener, error)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-f.done: // closed: no more accepting
		return nil
	default:
	}
	f.closeSockets(f.lns)
	accept := func(open func() ([]net.Listener, error)) error {
		lns, err := open()
		if err == nil && f.serving {
			if err = f.startAccepting(lns); err != nil {
				closeAll(lns)
			}
		}
		if err == nil {
			f.lns = lns
			if len(lns) > 0 {
				f.addr = lns[0].Addr()
			}
		}
		return err
	}
	err := accept(open)
	if err != nil {
		// If even the old addresses cannot be had again, f.lns keeps the
		// closed sockets (Addr still names them), as Redis is left with
		// no listener.
		accept(restore)
	}
	return err
}

// closeSockets closes sockets of the front; f.mu is held. The event loop
// holds duplicates of its sockets' descriptors (which only it may close:
// a descriptor closed under it could be reused), so it first shuts them
// down, which makes them refuse connections at once.
func (f *frontListener) closeSockets(lns []net.Listener) {
	if f.loop != nil {
		f.loop.Unlisten(lns)
	}
	closeAll(lns)
}

func closeAll(lns []net.Listener) {
	for _, ln := range lns {
		ln.Close()
	}
}

// startAcceptLoop starts the server's accept loop, which Accept feeds,
// once: serve does without the event loop, else the first acceptFrom.
// The loop accepts from the front through the server's listener (serve
// set it before any acceptFrom started).
func (f *frontListener) startAcceptLoop() {
	f.acceptLoop.Do(func() { f.srv.startAcceptLoop(f.srv.ln) })
}

func (f *frontListener) acceptFrom(ln net.Listener) {
	f.startAcceptLoop()
	for {
		c, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			if transport.IsOutOfFDs(err) {
				// Answered with the spare descriptor; without one, wait
				// for descriptors rather than spin.
				if !f.refuseOutOfFDs(err, func() { refuseOne(f.srv, ln) }) {
					select {
					case <-time.After(10 * time.Millisecond):
					case <-f.done:
						return
					}
				}
				continue
			}
			return // closed: by swap or Close
		}
		if !f.admit(c) {
			continue
		}
		select {
		case f.conns <- c:
		case <-f.done:
			c.Close()
			return
		}
	}
}

// admit applies Redis's rules for a new connection: in protected mode a
// non-local client is told why and closed; past maxclients every client
// is.
func (f *frontListener) admit(c net.Conn) bool {
	s := f.srv
	refusal := s.acceptRefusal(c.RemoteAddr())
	if refusal == "" {
		transport.SetKeepAlive(c, s.tcpKeepalive.Load())
		return true
	}
	s.rejectedConns.Add(1)
	c.Write([]byte(refusal))
	c.Close()
	return false
}

// acceptRefusal is what a new client from remote is told before it is
// closed, "" if it is admitted: in protected mode a non-local client is
// told why; past maxclients every client is. Both transports ask it
// (Redis's acceptCommonHandler and clientAcceptHandler).
func (s *Server) acceptRefusal(remote net.Addr) string {
	switch {
	case s.protectedMode.Load() && s.acl.open.Load() && !isLocalAddr(remote): // the default user is nopass
		return errProtected
	case int64(s.clientCount()) >= s.maxClients.Load():
		return errMaxClients
	}
	return ""
}

// isLocalAddr is networking.c's islocalClient: a Unix socket, or exactly
// 127.0.0.1 or ::1 (not the rest of 127.0.0.0/8).
func isLocalAddr(a net.Addr) bool {
	switch a := a.(type) {
	case *net.UnixAddr:
		return true
	case *net.TCPAddr:
		ip := a.IP.String()
		return ip == "127.0.0.1" || ip == "::1"
	}
	return false
}

func (f *frontListener) Accept() (net.Conn, error) {
	select {
	case c := <-f.conns:
		return c, nil
	case <-f.done:
		return nil, net.ErrClosed
	}
}

func (f *frontListener) Close() error {
	f.once.Do(func() {
		close(f.done)
		f.mu.Lock()
		f.closeSockets(f.lns)
		f.mu.Unlock()
	})
	return nil
}

// Addr is the first socket's address, or the last one's while bind ""
// leaves none (its port is the port setting's).
func (f *frontListener) Addr() net.Addr {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.addr
}

// setPort records the port of a front without sockets (bind ""), which
// the next CONFIG SET bind listens on.
func (f *frontListener) setPort(port string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	host, _, _ := net.SplitHostPort(f.addr.String())
	if a, err := net.ResolveTCPAddr("tcp", net.JoinHostPort(host, port)); err == nil {
		f.addr = a
	}
}

// parseBind reads bind's addresses ("" alone: none, as Redis's
// setConfigBindOption, so no TCP socket).
func parseBind(v string) (string, string) {
	f := strings.Fields(v)
	if len(f) > 16 {
		return "", "Too many bind addresses specified."
	}
	return strings.Join(f, " "), ""
}

func getBind(s *Server) string {
	if s.bindNone {
		return ""
	}
	if len(s.binds) == 0 {
		host, _ := s.bindAddr()
		return host
	}
	return strings.Join(s.binds, " ")
}

// setBind takes effect at start, or at once on a running server (Redis
// 7.0 rebinds too, whatever the value: its own included), keeping the
// port.
//
// The TLS sockets move with the TCP ones, as changeBindAddr closes and
// reopens both; if either cannot be had, both go back to the old
// addresses (CONFIG SET restores the old value and applies it again).
func setBind(s *Server, v string) string {
	binds := strings.Fields(v)
	if s.front == nil && !s.tls.started {
		s.binds, s.bindNone = binds, len(binds) == 0
		return ""
	}
	old := s.listenBinds()
	_, port := s.bindAddr()
	if s.front != nil {
		if err := s.front.rebind(func() ([]net.Listener, error) { return listenAll(binds, port) },
			func() ([]net.Listener, error) { return listenAll(old, port) }); err != nil {
			s.log.Warn("Failed to bind: " + err.Error())
			return "Failed to bind to specified addresses."
		}
	}
	if err := s.rebindTLS(binds); err != nil {
		s.log.Warn("Failed to bind: " + err.Error())
		if s.front != nil {
			s.front.rebind(func() ([]net.Listener, error) { return listenAll(old, port) },
				func() ([]net.Listener, error) { return listenAll(old, port) })
		}
		s.rebindTLS(old)
		return "Failed to bind to specified addresses."
	}
	s.binds, s.bindNone = binds, len(binds) == 0
	return ""
}

// setPort moves every bind address to port v. The port in effect changes
// nothing, as Redis applies a numeric parameter only when it changes; 0
// picks a free port (Redis: no TCP at all).
func setPort(s *Server, v string) string {
	if s.front == nil {
		s.tls.portZero = v == "0"
		host, _, _ := net.SplitHostPort(s.cfg.Addr)
		s.cfg.Addr = net.JoinHostPort(host, v)
		return ""
	}
	binds := s.listenBinds()
	_, old := s.bindAddr()
	if v == old {
		return ""
	}
	if s.bindNone {
		s.front.setPort(v) // no socket to move
		return ""
	}
	if err := s.front.rebind(func() ([]net.Listener, error) { return listenAll(binds, v) },
		func() ([]net.Listener, error) { return listenAll(binds, old) }); err != nil {
		s.log.Warn("Could not create server TCP listening socket: " + err.Error())
		return "Unable to listen on this port. Check server logs."
	}
	return ""
}

// listenBinds is the bind addresses the server listens on.
func (s *Server) listenBinds() []string {
	if s.bindNone {
		return nil
	}
	if len(s.binds) == 0 {
		host, _ := s.bindAddr()
		return []string{host}
	}
	return s.binds
}

// bindAddr splits the address the server listens on.
func (s *Server) bindAddr() (host, port string) {
	addr := s.cfg.Addr
	if s.front != nil {
		addr = s.front.Addr().String()
	} else if s.ln != nil {
		addr = s.ln.Addr().String()
	}
	host, port, _ = net.SplitHostPort(addr)
	return host, port
}

// listenersFor opens the sockets Start serves: every bind address, or
// cfg.Addr.
func (s *Server) listenersFor(addr string) ([]net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if s.bindNone {
		// Redis would still serve a Unix socket, which floodgate has not.
		return nil, errors.New("Configured to not listen anywhere, exiting.")
	}
	binds := s.binds
	if len(binds) == 0 {
		binds = []string{host}
	}
	if _, err := strconv.Atoi(port); err != nil {
		return nil, err
	}
	return listenAll(binds, port)
}
