package transport

import (
	"log/slog"
	"net"
	"time"
)

// Conn is a client connection as the server has it, Redis's client struct
// reduced to its I/O. Only the goroutine serving the connection calls it.
type Conn interface {
	// ReadBuf returns where the next read goes: scratch (the transport's
	// own buffer) while no partial request is held, else the free part of
	// the connection's query buffer; nil scratch: always the query buffer.
	ReadBuf(scratch []byte) []byte
	// Received runs the complete requests among the n bytes read into buf
	// (as ReadBuf returned it). inHook is set inside a busy script's hook.
	// It returns false when the client must be closed now, without a word
	// (the replies before still go out).
	Received(buf []byte, n int, inHook bool) bool
	// Blocked reports whether the client waits in a blocking command.
	Blocked() bool
	// Resume takes a blocked client's reply after Woke: woken is false if
	// there was none; keep as Received's.
	Resume(inHook bool) (woken, keep bool)
	// TakePushes moves the pub/sub messages published to the client into
	// its replies, reporting whether there were any.
	TakePushes() bool
	// Closing reports whether the client asked to be closed (QUIT, a
	// protocol error): it is, once its replies are written.
	Closing() bool
	// Moved records that bytes were read or written at now (Clock).
	Moved(now int64)
	// Flushing readies the replies for a write (a client over its output
	// limit has them dropped) and returns their size.
	Flushing() int
	// Buffers appends the pending replies, in order, to bufs.
	Buffers(bufs [][]byte) [][]byte
	// Flushed drops the written bytes of the replies and returns how
	// many are left.
	Flushed(written int) int
	// Pending is the size of the replies not yet written.
	Pending() int
	// WriteBlocked records that the socket takes no more for now
	// (CLIENT LIST's events=w) though the replies are all written out
	// (a TLS connection's records wait).
	WriteBlocked()
	// ResizeQueryBuffer is Redis's clientsCronResizeQueryBuffer, run
	// between batches; it reports whether the buffer still holds more
	// than 4 KB of free room (so the next cron should look again).
	ResizeQueryBuffer(now int64) bool
}

// Host is what the server gives its transports.
type Host interface {
	// Accept registers a new connection from addr, served through h; nil
	// when the server is closing (the transport then closes the socket).
	Accept(h Handle, addr string) Conn
	// Closed unregisters a connection the transport has closed.
	Closed(c Conn)
	// FlushAOF writes the AOF feed, before any reply goes out.
	FlushAOF()
	// Closing reports whether the server is closing.
	Closing() bool
	// CountRead counts a read that found the end of the stream (Redis
	// counts it too).
	CountRead()
	// Done is closed when the server is asked to stop.
	Done() <-chan struct{}
	// Log is the server's logger.
	Log() *slog.Logger
	// Admit is what a new client from remote is told before it is
	// closed (protected mode, maxclients), counted as a rejection; ""
	// if it is admitted.
	Admit(remote net.Addr) string
	// KeepAlive is tcp-keepalive, in seconds, for a new TCP socket.
	KeepAlive() int64
	// OutOfFDs handles an accept that failed for want of descriptors
	// (err): with the process's spare descriptor closed meanwhile, it
	// calls refuse with the reply for one waiting client (refuse
	// reports whether one was waiting). It reports whether the spare was
	// there to use; without it the caller waits for descriptors.
	OutOfFDs(err error, refuse func(reply string) bool) bool
	// CallEnd is when the last command ended, on Clock's scale.
	CallEnd() int64
	// Broadcast sends the BCAST invalidations of tracking, with the
	// execution lock, standing for the running connection meanwhile
	// (see Batcher); false when the lock is taken (try again later).
	Broadcast(standIn Handle) bool
}

// DirectPusher is a Handle that can take a pub/sub message without the
// connection's inbox: Direct reports whether the batch running is
// running's, on the same goroutine as this connection's transport, so the
// message may go straight into the replies (and the transport writes
// them after its round).
type DirectPusher interface {
	Direct(running Handle) bool
}

// Batcher is a Handle whose transport sends BCAST invalidations once per
// round of its batches (Host.Broadcast) rather than after each one.
type Batcher interface {
	BroadcastAfterRound()
}

// BusyPoller is a Handle whose transport serves its other connections
// from a busy script's hook when that script runs on its goroutine.
type BusyPoller interface {
	PollBusy()
}

// Handle is what a transport does for a connection besides moving bytes;
// any goroutine may call it.
type Handle interface {
	Kill()             // close the connection (CLIENT KILL)
	Interrupt()        // wake an idle reader so it sees the server closing
	LocalAddr() string // for CLIENT LIST and CLIENT KILL LADDR
	SocketFD() int     // for CLIENT LIST; -1 when none
	Woke()             // have the transport's goroutine resume the connection soon; never blocks
}

// clockStart anchors Clock.
var clockStart = time.Now()

// Clock is the clock of I/O times: monotonic nanoseconds since the process
// started, one clock read where time.Now makes two, and deaf to steps of
// the wall clock (which would make every client look idle, or never).
func Clock() int64 { return int64(time.Since(clockStart)) }

// ClockAt is t (read with its monotonic clock) on Clock's scale.
func ClockAt(t time.Time) int64 { return int64(t.Sub(clockStart)) }
