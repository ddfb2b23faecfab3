//go:build linux

package transport

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// On Linux, ListenAll's IPv4 sockets are made with socket(2), bind(2) and
// listen(2) directly, as Redis's anetTcpServer makes them, rather than by
// Go's net.Listen: the event loop accepts from them itself, so they need
// not be in Go's netpoller, and until the first connection nothing waits
// on them but the process's first-connection watch (connWatch), one epoll
// set for every server. A test double that starts and stops without a
// client then pays five system calls for its socket; net.Listen made an
// MPTCP socket (Go 1.24's default), registered it with the netpoller and
// took it out again, and a goroutine per socket waited for the first
// connection: 43 µs of CPU against 20 µs, most of it the goroutine's
// wake-ups (BENCHMARKS.md, "Test double").

// listenBacklog is listen(2)'s backlog: the kernel caps it at
// net.core.somaxconn, which is what Go's net.Listen asks for.
const listenBacklog = 65535

// listenTCP opens a listening TCP socket on address: a raw socket for an
// IPv4 address, net.Listen for the rest (host names, IPv6 and its
// dual-stack rules).
func listenTCP(network, address string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil || network == "tcp6" || strings.Contains(host, ":") {
		return listenGo(network, address)
	}
	ip, ierr := netip.ParseAddr(host) // unlike net.ParseIP, allocates nothing
	p, perr := strconv.Atoi(port)
	if ierr != nil || !ip.Is4() || perr != nil || p < 0 || p > 65535 {
		return listenGo(network, address)
	}
	return listenRaw(ip.As4(), p)
}

// listenRaw makes a listening socket on ip:port, reading back the port
// the kernel picked for port 0.
func listenRaw(ip4 [4]byte, port int) (net.Listener, error) {
	addr := &net.TCPAddr{IP: net.IP(ip4[:]), Port: port}
	fail := func(call string, fd int, err error) (net.Listener, error) {
		if fd >= 0 {
			unix.Close(fd)
		}
		// net.Listen's error, so that ListenError reads the same.
		return nil, &net.OpError{Op: "listen", Net: "tcp", Addr: addr, Err: os.NewSyscallError(call, err)}
	}
	if port == 0 {
		// A closed server's socket, already bound to ip: listen(2) gives
		// it a free port, as bind(2) to port 0 would (keptSocket).
		// Should listen fail, a new socket fails as the caller expects.
		if fd, ok := connWatch.takeKept(ip4); ok {
			if unix.Listen(fd, listenBacklog) == nil {
				return boundListener(fd, ip4, addr, fail)
			}
			unix.Close(fd)
		}
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		return fail("socket", -1, err)
	}
	// As anetSetReuseAddr and net.Listen: a restarted server may bind a
	// port whose old connections are in TIME_WAIT.
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return fail("setsockopt", fd, err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: ip4}); err != nil {
		return fail("bind", fd, err)
	}
	if err := unix.Listen(fd, listenBacklog); err != nil {
		return fail("listen", fd, err)
	}
	if port == 0 {
		return boundListener(fd, ip4, addr, fail)
	}
	return &rawListener{fd: fd, addr: addr}, nil
}

// boundListener is the listening socket fd, which the kernel gave a port
// of its choosing, read back into addr. Such a socket gives its port back
// when shut down, so Close may keep it for the next server (keptSocket).
func boundListener(fd int, ip4 [4]byte, addr *net.TCPAddr, fail func(string, int, error) (net.Listener, error)) (net.Listener, error) {
	// syscall's, not x/sys/unix's: that one asks SO_PROTOCOL too, to
	// tell L2TP sockets apart.
	got, err := syscall.Getsockname(fd)
	if err != nil {
		return fail("getsockname", fd, err)
	}
	if in4, ok := got.(*syscall.SockaddrInet4); ok {
		addr.Port = in4.Port
	}
	return &rawListener{fd: fd, addr: addr, ip4: ip4, anyPort: true}, nil
}

// rawListener is a listening socket outside Go's netpoller. The event loop
// accepts from a duplicate of its descriptor (dupSocket, through
// SyscallConn); Accept, for the goroutine transport when the loop cannot
// be had, goes through a net.Listener made from another duplicate on the
// first call.
type rawListener struct {
	fd      int
	addr    *net.TCPAddr
	ip4     [4]byte // the address it is bound to
	anyPort bool    // bound to port 0: shut down, it holds no port

	mu     sync.Mutex
	closed bool
	goln   net.Listener // Accept's
	lent   bool         // its descriptor was given to Control (a duplicate may be open)
	token  uint64       // its entry in connWatch while watched; guarded by connWatch.mu
}

func (l *rawListener) Addr() net.Addr { return l.addr }

func (l *rawListener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return net.ErrClosed
	}
	l.closed = true
	if l.anyPort && !l.lent && l.goln == nil && connWatch.keep(l) {
		return nil // no duplicate of it is open: it refuses connections now
	}
	connWatch.forget(l)
	if l.goln != nil {
		l.goln.Close()
	}
	// A socket still watched has no duplicate: closing it takes it out
	// of the watch's epoll set too.
	return unix.Close(l.fd)
}

func (l *rawListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, net.ErrClosed
	}
	if l.goln == nil {
		ln, err := l.goListener()
		if err != nil {
			l.mu.Unlock()
			return nil, err
		}
		l.goln = ln
	}
	ln := l.goln
	l.mu.Unlock()
	return ln.Accept()
}

// goListener makes a net.Listener over a duplicate of the socket.
func (l *rawListener) goListener() (net.Listener, error) {
	fd, err := unix.FcntlInt(uintptr(l.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("fcntl", err)
	}
	f := os.NewFile(uintptr(fd), "listener")
	defer f.Close() // FileListener holds a duplicate of its own
	return net.FileListener(f)
}

// SyscallConn gives the descriptor to Control (dupSocket, unlisten's
// shutdown); there is nothing to Read or Write on a listening socket.
func (l *rawListener) SyscallConn() (syscall.RawConn, error) { return rawListenerConn{l}, nil }

type rawListenerConn struct{ l *rawListener }

func (c rawListenerConn) Control(f func(fd uintptr)) error {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if c.l.closed {
		return net.ErrClosed
	}
	c.l.lent = true
	f(uintptr(c.l.fd))
	return nil
}

func (rawListenerConn) Read(func(fd uintptr) bool) error  { return errors.ErrUnsupported }
func (rawListenerConn) Write(func(fd uintptr) bool) error { return errors.ErrUnsupported }
