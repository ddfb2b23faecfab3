package server

import (
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// frontListener is what the transports accept from: the sockets of every
// bind address merged into one, so CONFIG SET port and bind can swap them
// while the accept loop runs (Redis's changeListenPort), and the place
// where Redis's acceptance rules apply before a client exists: protected
// mode and maxclients.
type frontListener struct {
	srv   *Server
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once

	mu  sync.Mutex
	lns []net.Listener

	spareMu sync.Mutex
	spare   spareFD // see refuseOutOfFDs
}

// errProtected is networking.c's reply to a non-local client in protected mode.
const errProtected = "-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. In this mode connections are only accepted from the loopback interface. If you want to connect from external computers to Redis you may adopt one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the server. 3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. 4) Setup a an authentication password for the default user. NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside.\r\n"

const errMaxClients = "-ERR max number of clients reached\r\n"

// listenAll opens a socket for every bind address on port. An address
// with a leading '-' may be unavailable (bind's optional addresses); '*'
// is every IPv4 interface and '::*' every IPv6 one. Port 0 picks a free
// port for the first address and uses it for the others.
func listenAll(binds []string, port string) ([]net.Listener, error) {
	var lns []net.Listener
	fail := func(err error) ([]net.Listener, error) {
		for _, ln := range lns {
			ln.Close()
		}
		return nil, err
	}
	for _, b := range binds {
		optional := strings.HasPrefix(b, "-")
		host := strings.TrimPrefix(b, "-")
		network := "tcp"
		switch host {
		case "*":
			host, network = "0.0.0.0", "tcp4"
		case "::*":
			host, network = "::", "tcp6"
		}
		ln, err := net.Listen(network, net.JoinHostPort(host, port))
		if err != nil {
			if optional {
				continue
			}
			return fail(err)
		}
		if port == "0" {
			_, port, _ = net.SplitHostPort(ln.Addr().String())
		}
		lns = append(lns, ln)
	}
	if len(lns) == 0 {
		return fail(errors.New("no bind address could be used"))
	}
	return lns, nil
}

func newFrontListener(s *Server, lns []net.Listener) *frontListener {
	f := &frontListener{srv: s, conns: make(chan net.Conn), done: make(chan struct{})}
	f.spare.open()
	f.swap(lns)
	return f
}

// swap starts accepting from lns and closes the sockets it replaces;
// connections already accepted stay open.
func (f *frontListener) swap(lns []net.Listener) {
	f.mu.Lock()
	old := f.lns
	f.lns = lns
	f.mu.Unlock()
	for _, ln := range lns {
		go f.acceptFrom(ln)
	}
	for _, ln := range old {
		ln.Close()
	}
}

func (f *frontListener) acceptFrom(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			if isOutOfFDs(err) {
				// Answered with the spare descriptor; without one, wait
				// for descriptors rather than spin.
				if !f.refuseOutOfFDs(ln, err) {
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
	var refusal string
	switch {
	case s.protectedMode.Load() && s.requirePass() == "" && !isLocalAddr(c.RemoteAddr()):
		refusal = errProtected
	case int64(s.clientCount()) >= s.maxClients.Load():
		refusal = errMaxClients
	default:
		setKeepAlive(c, s.tcpKeepalive.Load())
		return true
	}
	s.rejectedConns.Add(1)
	c.Write([]byte(refusal))
	c.Close()
	return false
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
		f.spareMu.Lock()
		if f.spare.f != nil {
			f.spare.f.Close()
		}
		f.spareMu.Unlock()
		f.mu.Lock()
		for _, ln := range f.lns {
			ln.Close()
		}
		f.mu.Unlock()
	})
	return nil
}

// Addr is the first socket's address.
func (f *frontListener) Addr() net.Addr {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lns[0].Addr()
}

// parseBind reads bind's addresses ("" alone: none, which floodgate, with
// no Unix socket, cannot serve).
func parseBind(v string) (string, string) {
	f := strings.Fields(v)
	if len(f) > 16 {
		return "", "Too many bind addresses specified."
	}
	if len(f) == 0 {
		return "", "floodgate listens on TCP only: bind needs at least one address"
	}
	return strings.Join(f, " "), ""
}

func getBind(s *Server) string {
	if len(s.binds) == 0 {
		host, _ := s.bindAddr()
		return host
	}
	return strings.Join(s.binds, " ")
}

// setBind takes effect at start, or at once on a running server (Redis
// 7.0 rebinds too), keeping the port.
func setBind(s *Server, v string) string {
	binds := strings.Fields(v)
	if s.front == nil {
		s.binds = binds
		return ""
	}
	_, port := s.bindAddr()
	lns, err := listenAll(binds, port)
	if err != nil {
		return "Failed to bind to specified addresses."
	}
	s.binds = binds
	s.front.swap(lns)
	return ""
}

func setPort(s *Server, v string) string {
	if s.front == nil {
		host, _, _ := net.SplitHostPort(s.cfg.Addr)
		s.cfg.Addr = net.JoinHostPort(host, v)
		return ""
	}
	binds := s.binds
	if len(binds) == 0 {
		host, _ := s.bindAddr()
		binds = []string{host}
	}
	lns, err := listenAll(binds, v)
	if err != nil {
		return "Unable to listen on this port"
	}
	s.front.swap(lns)
	return ""
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
	binds := s.binds
	if len(binds) == 0 {
		binds = []string{host}
	}
	if _, err := strconv.Atoi(port); err != nil {
		return nil, err
	}
	return listenAll(binds, port)
}
