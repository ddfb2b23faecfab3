package server

import (
	"errors"
	"math"
	"net"
)

// redcon parses requests but has no limits: a client could announce a
// 100 GB bulk string and the server would buffer whatever arrives. The
// guard wraps each connection and follows the request framing as bytes are
// read (headers only: bulk payloads are skipped, not scanned), so it can
// refuse what Redis refuses, with Redis's error, before anything is buffered:
// bulk strings over proto-max-bulk-len, absurd multibulk counts, oversized
// inline requests, and a query buffer over client-query-buffer-limit.
type guardListener struct {
	net.Listener
	srv *Server
}

func (l *guardListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		if l.srv.closed.Load() {
			<-l.srv.drained
		}
		return nil, err
	}
	return &guardConn{Conn: c, srv: l.srv}, nil
}

const (
	inlineMaxSize = 64 << 10 // Redis's PROTO_INLINE_MAX_SIZE
	maxMultibulk  = math.MaxInt32
)

type guardState uint8

const (
	gsStart     guardState = iota // before a request
	gsInline                      // inside an inline request
	gsMultiLen                    // reading "*<n>\r\n"
	gsBulkStart                   // expecting '$'
	gsBulkLen                     // reading "$<n>\r\n"
	gsBulkBody                    // skipping a payload and its CRLF
	gsOff                         // malformed: redcon reports it
)

var errGuardClosed = errors.New("connection closed by input guard")

type guardConn struct {
	net.Conn
	srv     *Server
	state   guardState
	num     int64 // number being parsed
	digits  int   // characters of the header line seen
	neg     bool
	args    int64 // bulks left in this request
	skip    int64 // payload bytes left (plus CRLF)
	pending int64 // bytes of the request so far (query buffer)
	fail    string
	failed  bool
}

func (g *guardConn) Read(p []byte) (int, error) {
	if g.failed {
		if g.fail != "" {
			g.Conn.Write([]byte("-" + g.fail + "\r\n"))
			g.fail = ""
		}
		return 0, errGuardClosed
	}
	n, err := g.Conn.Read(p)
	if n > 0 {
		if bad := g.scan(p[:n]); bad >= 0 {
			g.failed = true
			g.srv.rejected.Add(1)
			// Hand redcon the complete requests before the bad one; the
			// next Read sends the error and closes.
			return bad, nil
		}
	}
	return n, err
}

// scan follows the framing through b and returns the offset of the request
// that breaks a limit, or -1.
func (g *guardConn) scan(b []byte) int {
	reqStart := 0
	carried := g.pending // bytes of a request begun in earlier reads
	for i := 0; i < len(b); i++ {
		switch g.state {
		case gsStart:
			reqStart = i
			carried = 0
			if b[i] == '*' {
				g.state, g.num, g.digits, g.neg = gsMultiLen, 0, 0, false
			} else {
				g.state = gsInline
				i--
			}
			continue
		case gsInline:
			j := indexByte(b[i:], '\n')
			if j < 0 {
				i = len(b)
				break
			}
			i += j
			g.state = gsStart
		case gsMultiLen, gsBulkLen:
			ch := b[i]
			g.digits++
			switch {
			case ch == '\r':
			case ch == '\n':
				if g.state == gsMultiLen {
					if g.num > maxMultibulk {
						return g.reject(reqStart, "ERR Protocol error: invalid multibulk length")
					}
					g.args = g.num
					if g.neg || g.args <= 0 {
						g.state = gsStart
					} else {
						g.state = gsBulkStart
					}
				} else {
					if g.neg || g.num > g.srv.cfg.ProtoMaxBulkLen {
						return g.reject(reqStart, "ERR Protocol error: invalid bulk length")
					}
					g.skip = g.num + 2
					g.state = gsBulkBody
				}
			case ch == '-' && g.digits == 1:
				g.neg = true
			case ch >= '0' && ch <= '9' && g.num < math.MaxInt64/10:
				g.num = g.num*10 + int64(ch-'0')
			default:
				g.state = gsOff
				return -1
			}
		case gsBulkStart:
			if b[i] != '$' {
				g.state = gsOff
				return -1
			}
			g.state, g.num, g.digits, g.neg = gsBulkLen, 0, 0, false
		case gsBulkBody:
			avail := int64(len(b) - i)
			if avail < g.skip {
				g.skip -= avail
				i = len(b)
				break
			}
			i += int(g.skip) - 1
			g.skip = 0
			g.args--
			if g.args == 0 {
				g.state = gsStart
			} else {
				g.state = gsBulkStart
			}
		case gsOff:
			return -1
		}
	}
	switch g.state {
	case gsStart, gsOff:
		g.pending = 0
		return -1
	}
	g.pending = carried + int64(len(b)-reqStart)
	if g.state == gsInline && g.pending > inlineMaxSize {
		return g.reject(reqStart, "ERR Protocol error: too big inline request")
	}
	if g.pending > g.srv.cfg.QueryBufferLimit {
		return g.reject(reqStart, "")
	}
	return -1
}

// reject records the error to send (none for the query buffer limit: Redis
// just closes, and logs) and returns where the bad request starts.
func (g *guardConn) reject(at int, msg string) int {
	g.fail = msg
	if msg == "" {
		g.srv.log.Warn("closing client that reached max query buffer length", "addr", g.RemoteAddr().String())
	}
	return at
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
