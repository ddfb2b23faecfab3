package server

// A transport moves a client connection's bytes between a socket (or an
// in-memory pipe) and its conn, which owns everything else: the query
// buffer, the one request parser, dispatch and the reply list. Each
// transport's goroutine does the same few steps, as Redis's ae handlers:
//
//   - accept: a TCP socket is first checked as Redis refuses one
//     (acceptRefusal: maxclients, protected mode), then newConn(s, tr)
//     and Server.accept register the client (false: the server is
//     closing);
//   - read: into conn.readBuf, then conn.received runs the complete
//     requests (false: close now, without a word);
//   - when woke is called (a blocked client's reply is ready), call
//     conn.resume on the transport's goroutine;
//   - write: Server.aofFlush first (the AOF is written before replies go,
//     as Redis's beforeSleep does), then conn.buffers, then conn.flushed
//     with the bytes written; a client closing with its replies written
//     is closed;
//   - close: Server.closedConn.
//
// The transports:
//
//   - transport_epoll_linux.go: the epoll event loop (loopConn), serving
//     TCP and Unix sockets on Linux; transport_epoll_accept_linux.go is
//     its accept path, transport_epoll_other.go its stand-in elsewhere.
//   - transport_goroutine.go: a goroutine per connection (goConn), for
//     Config.GoroutineConns, systems without epoll, and Dial.
//   - transport_dial.go: Dial, the goroutine transport over an in-memory
//     pipe (package internal/pipe).
//   - transport_tls.go: tls-port: the handshake on a goroutine, then the
//     event loop over crypto/tls (transport_epoll_tls_linux.go, tls_wire.go),
//     or the goroutine transport without a loop (settings: internal/tlsconf).
//   - transport_listen.go: the sockets Start opens and the refusals every
//     TCP transport applies (bind, protected mode, maxclients).
//   - transport_direct.go: Call, no transport at all: a command run with
//     a Writer that builds Go values, for the test double.
//
// The transports stay in package server: the event loop embeds conn in
// loopConn and works on its buffers directly (the query buffer it reads
// into and resizes for the clients cron, the reply list it writes with
// writev), and a busy script's hook calls back into the loop (pollBusy)
// to serve other clients. A package of their own would need conn's
// buffers and those Server calls behind exported interfaces called on
// every read and write, and the event loop rewritten around them.

// transport is what a connection's transport does besides moving bytes.
type transport interface {
	kill()             // close the connection, from any goroutine (CLIENT KILL)
	interrupt()        // wake an idle reader so it sees the server closing
	localAddr() string // for CLIENT LIST and CLIENT KILL LADDR
	socketFD() int     // for CLIENT LIST; -1 when none
	woke()             // have the transport's goroutine call resume soon; never blocks
}
