package transport

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FrontHost is what a Front needs of the server besides Host.
type FrontHost interface {
	Host
	// StartLoop returns the server's event loop, making it if need be;
	// nil where there is none (connections are served on goroutines).
	StartLoop() *Loop
	// StartAcceptLoop starts the server's accept loop, which takes the
	// connections the Front's goroutines accept (Front.Accept).
	StartAcceptLoop()
}

// Front is what the server accepts from: the sockets of every bind
// address merged into one, so CONFIG SET port and bind can swap them
// while the accept loop runs (Redis's changeListenPort), and the place
// where the server's acceptance rules (Host.Admit: protected mode,
// maxclients) apply before a client exists.
//
// On Linux the event loop accepts from the sockets itself, as Redis's ae
// loop does, from the first connection on (await); elsewhere, and without
// the loop, a goroutine per socket accepts (acceptFrom) and Accept hands
// the connections on.
type Front struct {
	host  FrontHost
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once

	mu       sync.Mutex
	lns      []net.Listener
	addr     net.Addr // lns[0]'s, kept while there is none (bind "")
	serving  bool     // Serve has run: Rebind starts accepting at once
	awaiting bool     // the sockets wait for the first connection (await)
	loop     *Loop    // accepts from lns; nil: acceptFrom goroutines do

	acceptLoop sync.Once // startAcceptLoop's
}

// NewFront is a Front over lns, which must hold a socket; nothing is
// accepted until Serve.
func NewFront(h FrontHost, lns []net.Listener) *Front {
	return &Front{host: h, conns: make(chan net.Conn), done: make(chan struct{}), lns: lns, addr: lns[0].Addr()}
}

// ListenAll opens a socket for every bind address on port. An address
// with a leading '-' may be unavailable (bind's optional addresses); '*'
// is every IPv4 interface and '::*' every IPv6 one. Port 0 picks a free
// port for the first address and uses it for the others. An address that
// cannot be had is a *BindError.
func ListenAll(binds []string, port string) ([]net.Listener, error) {
	if len(binds) == 0 {
		return nil, nil // bind "": listenToPort listens on nothing
	}
	var lns []net.Listener
	fail := func(err error) ([]net.Listener, error) {
		CloseAll(lns)
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
			return fail(&BindError{Addr: strings.TrimPrefix(b, "-"), Port: port, Err: err})
		}
		lns = append(lns, ln)
	}
	if len(lns) == 0 {
		return fail(errors.New("no bind address could be used"))
	}
	return lns, nil
}

// BindError is a bind address (as configured, without its '-') that
// ListenAll could not listen on; the server words it.
type BindError struct {
	Addr, Port string
	Err        error
}

func (e *BindError) Error() string {
	return "listen on " + e.Addr + ":" + e.Port + ": " + e.Err.Error()
}
func (e *BindError) Unwrap() error { return e.Err }

// CloseAll closes lns.
func CloseAll(lns []net.Listener) {
	for _, ln := range lns {
		ln.Close()
	}
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

// Serve starts accepting, on goroutines or, if useLoop, on the event loop
// once a connection comes (await).
func (f *Front) Serve(useLoop bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.serving, f.awaiting = true, useLoop
	f.startAccepting(f.lns)
}

// startAccepting starts accepting from lns the way the front does; f.mu
// is held. It fails only if the event loop cannot take them.
func (f *Front) startAccepting(lns []net.Listener) error {
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

// Rebind closes the front's sockets and accepts from those open opens in
// their place; connections already accepted stay open. It closes first,
// as Redis's changeBindAddr and changeListenPort do, so the new addresses
// may be the old ones or overlap them (CONFIG SET bind to its own value,
// or "127.0.0.1 127.0.0.2" over 127.0.0.1). If open fails, the sockets
// restore opens are served again, as Redis's CONFIG SET restores the old
// value and applies it, and open's error is returned.
func (f *Front) Rebind(open, restore func() ([]net.Listener, error)) error {
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
				CloseAll(lns)
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
func (f *Front) closeSockets(lns []net.Listener) {
	if f.loop != nil {
		f.loop.Unlisten(lns)
	}
	CloseAll(lns)
}

// StartAcceptLoop starts the server's accept loop, which Accept feeds,
// once: the server does without the event loop, else the first
// acceptFrom.
func (f *Front) StartAcceptLoop() {
	f.acceptLoop.Do(f.host.StartAcceptLoop)
}

func (f *Front) acceptFrom(ln net.Listener) {
	f.StartAcceptLoop()
	for {
		c, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			if IsOutOfFDs(err) {
				// Answered with the spare descriptor; without one, wait
				// for descriptors rather than spin.
				if !f.host.OutOfFDs(err, func(reply string) bool { return refuseFrom(ln, reply) }) {
					select {
					case <-time.After(10 * time.Millisecond):
					case <-f.done:
						return
					}
				}
				continue
			}
			return // closed: by Rebind or Close
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

// refuseFrom is Host.OutOfFDs's refuse for a socket accepted from on a
// goroutine: Accept waits for the client, who is sent reply.
func refuseFrom(ln net.Listener, reply string) bool {
	c, err := ln.Accept()
	if err != nil {
		return false
	}
	c.Write([]byte(reply))
	c.Close()
	return true
}

// admit applies the server's rules for a new connection (Host.Admit): a
// refused one is told why and closed.
func (f *Front) admit(c net.Conn) bool {
	if refusal := f.host.Admit(c.RemoteAddr()); refusal != "" {
		c.Write([]byte(refusal))
		c.Close()
		return false
	}
	SetKeepAlive(c, f.host.KeepAlive())
	return true
}

// Accept returns a connection the front's goroutines accepted.
func (f *Front) Accept() (net.Conn, error) {
	select {
	case c := <-f.conns:
		return c, nil
	case <-f.done:
		return nil, net.ErrClosed
	}
}

// Close stops accepting and closes the sockets.
func (f *Front) Close() error {
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
func (f *Front) Addr() net.Addr {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.addr
}

// SetPort records the port of a front without sockets (bind ""), which
// the next CONFIG SET bind listens on.
func (f *Front) SetPort(port string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	host, _, _ := net.SplitHostPort(f.addr.String())
	if a, err := net.ResolveTCPAddr("tcp", net.JoinHostPort(host, port)); err == nil {
		f.addr = a
	}
}
