package server

import (
	"sync"

	"github.com/tidwall/redcon"
)

// The goroutine transport's side of blocking commands (see blocking.go).
// A connection served on a goroutine of its own parks that goroutine while
// its client is blocked: the client's further requests wait in redcon's
// buffer, and its reply arrives on Client.woken. So that a client that
// disconnects while blocked is forgotten at once, as Redis does, a
// read-ahead goroutine keeps reading the socket meanwhile; what it reads is
// handed back to redcon afterwards, in order.

// parkBlocked waits, with the execution lock released, until c is
// unblocked or its connection closes; it returns with the lock held.
func (s *Server) parkBlocked(c *Client, conn redcon.Conn) {
	var gone <-chan struct{}
	g, _ := conn.NetConn().(*guardConn)
	if g != nil {
		gone = g.startReadAhead()
	}
	s.release()
	// The replies before the blocked command go out now, as Redis would
	// send them; redcon flushes only once the handler returns.
	if w := redcon.BaseWriter(conn); w != nil {
		w.Flush()
	}
	select {
	case reply := <-c.woken:
		conn.WriteRaw(reply)
		s.lock <- struct{}{}
	case <-gone:
		s.lock <- struct{}{}
		if c.isBlocked() {
			s.clientGone(c)
		} else {
			<-c.woken // unblocked meanwhile: the reply has nowhere to go
		}
		c.closing = true
	}
	if g != nil {
		g.ahead.stop()
	}
}

// readAhead reads a parked connection: the bytes it reads wait in data for
// the guard's next Read, and a failed read (the peer gone) closes gone.
type readAhead struct {
	mu       sync.Mutex
	data     []byte
	err      error
	reading  bool          // a goroutine is reading
	stopping bool          // it is to return after its read in flight
	done     chan struct{} // closed when that goroutine has returned
	gone     chan struct{}
}

// startReadAhead starts reading the connection on a goroutine (or keeps
// the one left from an earlier wait reading) and returns the channel
// closed when the peer goes away.
func (g *guardConn) startReadAhead() <-chan struct{} {
	ra := g.ahead
	if ra == nil {
		ra = &readAhead{gone: make(chan struct{})}
		g.ahead = ra
	}
	ra.mu.Lock()
	defer ra.mu.Unlock()
	ra.stopping = false
	if !ra.reading && ra.err == nil {
		ra.reading = true
		ra.done = make(chan struct{})
		go ra.run(g.Conn, ra.done)
	}
	return ra.gone
}

func (ra *readAhead) run(conn interface{ Read([]byte) (int, error) }, done chan struct{}) {
	defer close(done)
	buf := make([]byte, 16<<10)
	for {
		n, err := conn.Read(buf)
		ra.mu.Lock()
		ra.data = append(ra.data, buf[:n]...)
		if err != nil {
			ra.err = err
			close(ra.gone)
		}
		exit := err != nil || ra.stopping
		if exit {
			ra.reading = false
		}
		ra.mu.Unlock()
		if exit {
			return
		}
	}
}

// stop asks the read-ahead to return after the read in flight, which the
// guard's next Read then waits for (it is the same byte stream).
func (ra *readAhead) stop() {
	ra.mu.Lock()
	ra.stopping = true
	ra.mu.Unlock()
}

// readConn is the guard's read of the connection: first what a read-ahead
// took, then the connection itself. With nothing taken yet, it waits for
// the read-ahead's read in flight, as reading the socket would.
func (g *guardConn) readConn(p []byte) (int, error) {
	ra := g.ahead
	if ra == nil {
		return g.Conn.Read(p)
	}
	ra.mu.Lock()
	if len(ra.data) > 0 {
		n := copy(p, ra.data)
		ra.data = ra.data[n:]
		ra.mu.Unlock()
		return n, nil
	}
	done := ra.done
	ra.mu.Unlock()
	if done != nil {
		<-done
	}
	if len(ra.data) > 0 {
		n := copy(p, ra.data)
		ra.data = ra.data[n:]
		return n, nil
	}
	g.ahead = nil
	if ra.err != nil {
		return 0, ra.err
	}
	return g.Conn.Read(p)
}
