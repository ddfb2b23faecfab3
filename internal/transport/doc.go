// Package transport moves a client connection's bytes between a socket (or
// an in-memory pipe) and the server's connection, which owns everything
// else: the query buffer, the one request parser, dispatch and the reply
// list. It knows nothing of commands: the server gives it a Host, and each
// connection is a Conn; the transport gives each connection a Handle.
// Each transport's goroutine does the same few steps, as Redis's ae
// handlers:
//
//   - accept: a socket Host.Admit refuses (protected mode, maxclients)
//     is sent its text and closed; else Host.Accept registers the
//     client, served through its Handle (nil: the server is closing);
//   - read: into Conn.ReadBuf, then Conn.Received runs the complete
//     requests (false: close now, without a word);
//   - when Handle.Woke is called (a blocked client's reply is ready, or a
//     pub/sub message), call Conn.Resume and Conn.TakePushes on the
//     transport's goroutine;
//   - write: Host.FlushAOF first (the AOF is written before replies go,
//     as Redis's beforeSleep does), then Conn.Flushing, Conn.Buffers, and
//     Conn.Flushed with the bytes written; a client closing
//     (Conn.Closing) with its replies written is closed;
//   - close: Host.Closed.
//
// An interface call per read and per write costs a few nanoseconds beside
// the system call's microsecond (BENCHMARKS.md, "Transports").
//
// The transports:
//
//   - epoll_linux.go: the epoll event loop (Loop), serving TCP and Unix
//     sockets on Linux; epoll_accept_linux.go is its accept path (the
//     refusals are Host.Admit's), epoll_other.go its stand-in elsewhere.
//   - goroutine.go: a goroutine per connection (Serve), for
//     Config.GoroutineConns, systems without epoll, Dial (over
//     package internal/pipe) and TLS connections without an event loop.
//   - tls.go: a tls-port connection's handshake on a goroutine, then the
//     event loop over crypto/tls (epoll_tls_linux.go, tls_wire.go), or the
//     goroutine transport without a loop.
//
// The listening sockets:
//
//   - front.go: the sockets a server listens on (ListenAll: raw IPv4
//     sockets on Linux, listen_linux.go; net.Listen elsewhere), merged
//     into a Front that CONFIG SET bind and port rebind (Front.Rebind),
//     served by the event loop from their first connection on
//     (front_watch_linux.go: one epoll set for the process waits for
//     it) or by a goroutine per socket. A Front's server is a FrontHost:
//     it makes the loop (StartLoop), runs the accept loop the goroutines
//     feed (StartAcceptLoop), and decides what is refused (Admit). A
//     closed front's socket that never had a client is kept for the next
//     one (listen_keep_linux.go).
//
// Left to package server: policy. Which addresses bind and port name,
// what a new client is refused with and the errors' text
// (server/transport_listen.go), the loop's creation
// (server/transport_loop.go), the process's spare descriptor
// (server/fdlimit.go), and tls-port's settings and sockets
// (server/transport_tls.go).
package transport
