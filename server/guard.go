package server

import (
	"errors"
	"math"
	"net"
)

// redcon parses requests but has no limits: a client could announce a
// 100 GB bulk string and the server would buffer whatever arrives. The
// guard wraps each connection and follows the request framing as bytes are
// read (headers only: bulk payloads are copied, not scanned), so it can
// refuse what Redis refuses, with Redis's error, before anything is buffered:
// bulk strings over proto-max-bulk-len, absurd multibulk counts, oversized
// inline requests, and a query buffer over client-query-buffer-limit.
//
// It also hands redcon only what redcon parses as Redis does: inline
// requests are split with Redis's rules (sdssplitargs: "\x41" escapes,
// quotes) and passed on as multibulk requests, empty requests ("*0",
// "*-1") are dropped, and the two bytes after a bulk payload are taken as
// its CRLF whatever they are, as Redis takes them.
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
	gsBulkBody                    // copying a payload
	gsBulkCRLF                    // the two bytes after a payload
	gsOff                         // malformed: passed through for redcon to report
)

var errGuardClosed = errors.New("connection closed by input guard")

type guardConn struct {
	net.Conn
	srv     *Server
	client  *Client // set on accept; read and written only by this connection's goroutine
	state   guardState
	num     int64 // number being parsed
	bad     bool  // the number has a character that is not a digit
	neg     bool
	line    []byte // the header or inline line being read, held back until complete
	args    int64  // bulks left in this request
	skip    int64  // payload (or CRLF) bytes left
	pending int64  // bytes of the request so far (query buffer)
	out     []byte // requests for redcon; out[outPos:] is not yet read by it
	outPos  int
	reqOut  int    // where the current request starts in out
	readErr error  // the connection's error, returned once out is drained
	held    []byte // input not yet fed: an unauthenticated client's next requests
	fail    string
	failed  bool
	ahead   *readAhead // reads while the client is blocked (block_goroutine.go)
}

func (g *guardConn) Read(p []byte) (int, error) {
	for {
		if g.outPos < len(g.out) {
			n := copy(p, g.out[g.outPos:])
			g.outPos += n
			return n, nil
		}
		if g.failed {
			if g.fail != "" {
				g.Conn.Write([]byte("-" + g.fail + "\r\n"))
				g.fail = ""
			}
			return 0, errGuardClosed
		}
		g.out, g.outPos, g.reqOut = g.out[:0], 0, 0
		if len(g.held) > 0 {
			g.feed(g.held)
			continue
		}
		if g.readErr != nil {
			return 0, g.readErr
		}
		n, err := g.readConn(p)
		g.readErr = err
		g.feed(p[:n])
	}
}

// feed follows the framing through b and appends to out what redcon should
// parse. On a request that breaks a limit it keeps only the complete
// requests before it and fails the connection.
func (g *guardConn) feed(b []byte) {
	g.held = g.held[:0]
	for i := 0; i < len(b) && !g.failed; {
		if g.state == gsStart {
			// Until AUTH, hand redcon one request at a time: the limits on
			// the next one depend on whether this one authenticates.
			if len(g.out) > 0 && g.client != nil && !g.client.authed {
				g.held = append(g.held, b[i:]...) // copy: b may be held itself
				return
			}
			g.reqOut, g.pending = len(g.out), 0
			g.line = g.line[:0]
			g.num, g.bad, g.neg = 0, false, false
			if b[i] == '*' {
				g.state = gsMultiLen
			} else {
				g.state = gsInline
			}
		}
		start := i
		switch g.state {
		case gsInline:
			i = g.readLine(b, i)
			if i < 0 {
				i = len(b)
				if len(g.line) > inlineMaxSize {
					g.reject("ERR Protocol error: too big inline request")
				}
				break
			}
			g.inline()
		case gsMultiLen, gsBulkLen:
			i = g.readLine(b, i)
			if i < 0 {
				i = len(b)
				if len(g.line) > inlineMaxSize {
					if g.state == gsMultiLen {
						g.reject("ERR Protocol error: too big mbulk count string")
					} else {
						g.reject("ERR Protocol error: too big bulk count string")
					}
				}
				break
			}
			g.header()
		case gsBulkStart:
			if b[i] != '$' {
				// redcon answers "expected '$', got 'x'" as Redis does.
				g.state = gsOff
				g.line = g.line[:0]
				break
			}
			i++
			g.state = gsBulkLen
			g.num, g.bad, g.neg = 0, false, false
			g.line = g.line[:0]
		case gsBulkBody:
			n := min(int64(len(b)-i), g.skip)
			g.out = append(g.out, b[i:i+int(n)]...)
			i += int(n)
			if g.skip -= n; g.skip == 0 {
				g.state, g.skip = gsBulkCRLF, 2
			}
		case gsBulkCRLF:
			i++
			if g.skip--; g.skip == 0 {
				g.out = append(g.out, '\r', '\n')
				if g.args--; g.args == 0 {
					g.state = gsStart
				} else {
					g.state = gsBulkStart
				}
			}
		case gsOff:
			g.out = append(g.out, b[i:]...)
			return
		}
		if g.state == gsOff {
			g.out = append(g.out, g.line...)
			g.out = append(g.out, b[start:]...)
			return
		}
		g.pending += int64(i - start)
		if g.state != gsStart && g.pending > g.srv.cfg.QueryBufferLimit {
			g.reject("")
		}
	}
}

// readLine appends b[i:] up to a newline to line and returns the index after
// the newline, or -1 when the line goes on in a later read.
func (g *guardConn) readLine(b []byte, i int) int {
	j := indexByte(b[i:], '\n')
	if j < 0 {
		g.line = append(g.line, b[i:]...)
		return -1
	}
	g.line = append(g.line, b[i:i+j]...)
	if n := len(g.line); n > 0 && g.line[n-1] == '\r' {
		g.line = g.line[:n-1]
	}
	return i + j + 1
}

// inline passes a complete inline request on as a multibulk request.
func (g *guardConn) inline() {
	g.state = gsStart
	if len(g.line) > inlineMaxSize {
		g.reject("ERR Protocol error: too big inline request")
		return
	}
	args, ok := splitInline(g.line)
	if !ok {
		g.reject("ERR Protocol error: unbalanced quotes in request")
		return
	}
	if len(args) == 0 {
		return
	}
	g.out = appendHeader(g.out, '*', int64(len(args)))
	for _, a := range args {
		g.out = appendHeader(g.out, '$', int64(len(a)))
		g.out = append(g.out, a...)
		g.out = append(g.out, '\r', '\n')
	}
}

// header checks a complete "*<n>" or "$<n>" line (without '*' for the
// multibulk count, which line still holds).
func (g *guardConn) header() {
	digits := g.line
	if g.state == gsMultiLen {
		digits = digits[1:]
	}
	n, ok := parseHeaderInt(digits)
	// Before AUTH, Redis keeps requests small: a client without the
	// password cannot make it buffer much.
	unauthed := g.client != nil && !g.client.authed
	if g.state == gsMultiLen {
		switch {
		case !ok || n > maxMultibulk:
			g.reject("ERR Protocol error: invalid multibulk length")
		case unauthed && n > 10:
			g.reject("ERR Protocol error: unauthenticated multibulk length")
		case n <= 0:
			g.state = gsStart // an empty request: Redis skips it
		default:
			g.args = n
			g.out = appendHeader(g.out, '*', n)
			g.state = gsBulkStart
		}
		return
	}
	if !ok || n < 0 || n > g.srv.cfg.ProtoMaxBulkLen {
		g.reject("ERR Protocol error: invalid bulk length")
		return
	}
	if unauthed && n > 16384 {
		g.reject("ERR Protocol error: unauthenticated bulk length")
		return
	}
	g.out = appendHeader(g.out, '$', n)
	g.skip = n
	g.state = gsBulkBody
	if n == 0 {
		g.state, g.skip = gsBulkCRLF, 2
	}
}

// parseHeaderInt parses a header's number as Redis's string2ll does.
func parseHeaderInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n int64
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		n = n*10 + int64(ch-'0')
		if n < 0 {
			return 0, false
		}
	}
	if neg {
		n = -n
	}
	return n, true
}

func appendHeader(dst []byte, kind byte, n int64) []byte {
	dst = append(dst, kind)
	dst = appendInt(dst, n)
	return append(dst, '\r', '\n')
}

func appendInt(dst []byte, n int64) []byte {
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(dst, buf[i:]...)
}

// splitInline splits an inline request as Redis's sdssplitargs does:
// arguments separated by white space, "double quotes" with \n \r \t \b \a
// \xHH and \<any> escapes, 'single quotes' with \' only; a closing quote
// must be followed by white space. ok is false for unbalanced quotes.
func splitInline(line []byte) (args [][]byte, ok bool) {
	i := 0
	at := func(k int) byte {
		if k < len(line) {
			return line[k]
		}
		return 0 // C reads the NUL terminator
	}
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i >= len(line) || line[i] == 0 {
			return args, true
		}
		var cur []byte
		inq, insq := false, false
		for done := false; !done; {
			ch := at(i)
			switch {
			case inq:
				switch {
				case ch == '\\' && at(i+1) == 'x' && isHex(at(i+2)) && isHex(at(i+3)):
					cur = append(cur, unhex(at(i+2))<<4|unhex(at(i+3)))
					i += 3
				case ch == '\\' && at(i+1) != 0:
					i++
					cur = append(cur, unescape(line[i]))
				case ch == '"' && endsArg(at(i+1)):
					done = true
				case ch == '"' || ch == 0:
					return nil, false
				default:
					cur = append(cur, ch)
				}
			case insq:
				switch {
				case ch == '\\' && at(i+1) == '\'':
					i++
					cur = append(cur, '\'')
				case ch == '\'' && endsArg(at(i+1)):
					done = true
				case ch == '\'' || ch == 0:
					return nil, false
				default:
					cur = append(cur, ch)
				}
			default:
				switch ch {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inq = true
				case '\'':
					insq = true
				default:
					cur = append(cur, ch)
				}
			}
			if at(i) != 0 {
				i++
			}
		}
		if cur == nil {
			cur = []byte{}
		}
		args = append(args, cur)
	}
}

// endsArg reports whether a closing quote may be followed by ch: only
// white space or the end of the line.
func endsArg(ch byte) bool { return ch == 0 || isSpace(ch) }

func isSpace(ch byte) bool {
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f'
}

func isHex(ch byte) bool {
	return ('0' <= ch && ch <= '9') || ('a' <= ch && ch <= 'f') || ('A' <= ch && ch <= 'F')
}

func unhex(ch byte) byte {
	switch {
	case ch <= '9':
		return ch - '0'
	case ch >= 'a':
		return ch - 'a' + 10
	}
	return ch - 'A' + 10
}

func unescape(ch byte) byte {
	switch ch {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return ch
}

// reject fails the connection: redcon gets the complete requests before
// this one, then the client gets msg (none for the query buffer limit:
// Redis just closes, and logs).
func (g *guardConn) reject(msg string) {
	g.out = g.out[:g.reqOut]
	g.fail = msg
	g.failed = true
	if msg == "" {
		g.srv.log.Warn("closing client that reached max query buffer length", "addr", g.RemoteAddr().String())
	}
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
