package server

import (
	"errors"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/floodgate/floodgate/internal/transport"
)

// The listening sockets (the front, transport.Front) and the first-
// connection watch are package internal/transport's; here is the policy:
// which addresses bind and port name, what a new client is refused with,
// and the errors' text.

// errProtected is networking.c's reply to a non-local client in protected mode.
const errProtected = "-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. In this mode connections are only accepted from the loopback interface. If you want to connect from external computers to Redis you may adopt one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the server. 3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. 4) Setup a an authentication password for the default user. NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside.\r\n"

const errMaxClients = "-ERR max number of clients reached\r\n"

// listenAll opens a socket for every bind address on port
// (transport.ListenAll), an address that cannot be had being a
// *ListenError.
func listenAll(binds []string, port string) ([]net.Listener, error) {
	lns, err := transport.ListenAll(binds, port)
	if err == nil {
		return lns, nil // before errors.As, whose target would cost a start an allocation
	}
	if be := (*transport.BindError)(nil); errors.As(err, &be) {
		return nil, &ListenError{Addr: be.Addr, Port: be.Port, Err: be.Err}
	}
	return nil, err
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
		if err := s.front.Rebind(func() ([]net.Listener, error) { return listenAll(binds, port) },
			func() ([]net.Listener, error) { return listenAll(old, port) }); err != nil {
			s.log.Warn("Failed to bind: " + err.Error())
			return "Failed to bind to specified addresses."
		}
	}
	if err := s.rebindTLS(binds); err != nil {
		s.log.Warn("Failed to bind: " + err.Error())
		if s.front != nil {
			s.front.Rebind(func() ([]net.Listener, error) { return listenAll(old, port) },
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
		s.front.SetPort(v) // no socket to move
		return ""
	}
	if err := s.front.Rebind(func() ([]net.Listener, error) { return listenAll(binds, v) },
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
