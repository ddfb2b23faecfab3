package server

import (
	"bufio"
	"errors"
	"math"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/floodgate/floodgate/aof"
	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/rdb"
)

// MIGRATE is Redis's generic (keyspace) command, in cluster.c; it has a
// file of its own here because it is the only command that opens
// connections to other servers.
var migrateHandlers = map[string]Handler{
	"migrate": cmdMigrate,
}

const (
	errMigrateKeys    = "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"
	errMigrateConnect = "IOERR error or timeout connecting to the client"
	errMigrateWrite   = "IOERR error or timeout writing to target instance"
	errMigrateRead    = "IOERR error or timeout reading to target instance"
	errMigrateTarget  = "ERR Target instance replied with error: "
)

// Redis's MIGRATE_SOCKET_CACHE_ITEMS and MIGRATE_SOCKET_CACHE_TTL.
const (
	migrateCacheItems = 64
	migrateCacheTTL   = 10 // seconds a cached socket may stay unused
	// migrateChunk is how much is written per timed write (Redis's 64K).
	migrateChunk = 64 * 1024
	// migrateLineMax is the size of Redis's reply buffers (1024 with the
	// terminating 0): a longer reply line is read as several.
	migrateLineMax = 1023
)

var cmdRESTORE, argREPLACE = []byte("RESTORE"), []byte("REPLACE")

// migrateOptions are MIGRATE's arguments once parsed.
type migrateOptions struct {
	copy, replace  bool
	user, password []byte // user only with AUTH2; password nil without AUTH
	keys           [][]byte
	db, timeout    int64
}

// parseMigrate reads MIGRATE's options in migrateCommand's order: the
// options first (each error as it is met), then timeout, then the db.
func parseMigrate(c *Client, args [][]byte) (migrateOptions, bool) {
	o := migrateOptions{keys: args[3:4]}
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case eqFold(args[j], "copy"):
			o.copy = true
		case eqFold(args[j], "replace"):
			o.replace = true
		case eqFold(args[j], "auth") && more >= 1:
			o.password = args[j+1]
			j++
		case eqFold(args[j], "auth2") && more >= 2:
			o.user, o.password = args[j+1], args[j+2]
			j += 2
		case eqFold(args[j], "keys"):
			if len(args[3]) != 0 {
				c.w.Error(errMigrateKeys)
				return o, false
			}
			o.keys = args[j+1:]
			j = len(args)
		default:
			c.w.Error(errSyntax)
			return o, false
		}
	}
	var ok bool
	if o.timeout, ok = intArg(c, args[5]); !ok {
		return o, false
	}
	if o.db, ok = intArg(c, args[4]); !ok {
		return o, false
	}
	if o.timeout <= 0 {
		o.timeout = 1000
	}
	return o, true
}

// cmdMigrate follows migrateCommand: the keys that are here are sent as
// RESTOREs (after AUTH, and SELECT when the cached connection is on another
// db) over a connection kept for the next MIGRATE, the replies are read one
// by one, and each key the target took is deleted here (without COPY) and
// the command logged as DEL of those keys. The execution lock is held
// throughout, as Redis blocks the whole server: each connect, each 64 KB
// written and each read must finish within the timeout.
func cmdMigrate(c *Client, args [][]byte) {
	o, ok := parseMigrate(c, args)
	if !ok {
		return
	}
	type migrated struct {
		key, payload []byte
		ttl          int64
	}
	var keys []migrated
	for _, k := range o.keys {
		e := c.db.Get(k)
		if e == nil {
			continue
		}
		payload, err := rdb.Dump(e.Value(), c.srv.persist.compression)
		if err != nil {
			c.w.Error("ERR " + err.Error())
			return
		}
		keys = append(keys, migrated{k, payload, c.db.ExpireAt(e)})
	}
	if len(keys) == 0 {
		// Not an error: a key that expired meanwhile is a normal case.
		c.w.Status("NOKEY")
		return
	}
	// The TTL is sent relative, from the clock rather than the command's
	// snapshot (Redis's mstime()); a key that expired since its lookup is
	// left out.
	now := c.db.Store().Clock().Now().UnixMilli()
	var restores []byte
	sent := keys[:0]
	for _, k := range keys {
		ttl := int64(0)
		if k.ttl != 0 {
			if ttl = k.ttl - now; ttl < 0 {
				continue
			}
			ttl = max(ttl, 1)
		}
		ttlArg := strconv.AppendInt(nil, ttl, 10)
		if o.replace {
			restores = aof.AppendCommand(restores, cmdRESTORE, k.key, ttlArg, k.payload, argREPLACE)
		} else {
			restores = aof.AppendCommand(restores, cmdRESTORE, k.key, ttlArg, k.payload)
		}
		sent = append(sent, k)
	}
	pool := &c.srv.migrate
	host, port := string(args[1]), string(args[2])
	timeout := time.Duration(min(o.timeout, math.MaxInt64/int64(time.Millisecond))) * time.Millisecond
	mayRetry := true
	for {
		sock := pool.get(c.srv, host, port, timeout)
		if sock == nil {
			c.w.Error(errMigrateConnect)
			return
		}
		var req []byte
		if o.password != nil {
			if o.user != nil {
				req = aof.AppendCommand(req, []byte("AUTH"), o.user, o.password)
			} else {
				req = aof.AppendCommand(req, []byte("AUTH"), o.password)
			}
		}
		selectDB := sock.lastDB != o.db
		if selectDB {
			req = aof.AppendCommand(req, []byte("SELECT"), strconv.AppendInt(nil, o.db, 10))
		}
		req = append(req, restores...)

		var authReply, selectReply []byte
		err := sock.write(req)
		writing := err != nil
		if err == nil && o.password != nil {
			authReply, err = sock.readLine()
		}
		if err == nil && selectDB {
			selectReply, err = sock.readLine()
		}
		if err == nil {
			var deleted [][]byte
			fromTarget := false
			j := 0
			for ; j < len(sent); j++ {
				var reply []byte
				if reply, err = sock.readLine(); err != nil {
					break
				}
				failed := firstByte(authReply) == '-' || firstByte(selectReply) == '-' || firstByte(reply) == '-'
				switch {
				case failed && !fromTarget:
					// The connection may be on another db now.
					sock.lastDB = -1
					fromTarget = true
					msg := reply
					if firstByte(authReply) == '-' {
						msg = authReply
					} else if firstByte(selectReply) == '-' {
						msg = selectReply
					}
					c.w.Error(errMigrateTarget + oneLine(msg[1:]))
				case !failed && !o.copy:
					c.db.Delete(sent[j].key)
					c.notify(notifyGeneric, "del", sent[j].key)
					deleted = append(deleted, sent[j].key)
				}
			}
			// Only a first reply that never came may be retried: then the
			// target ran nothing.
			retry := err != nil && !fromTarget && j == 0 && mayRetry && !isTimeout(err)
			if !retry {
				if err != nil {
					pool.close(sock)
				}
				if len(deleted) > 0 {
					c.logAs(append([][]byte{cmdDEL}, deleted...)...)
				}
				switch {
				case fromTarget: // already answered
				case err != nil:
					c.w.Error(errMigrateRead)
				default:
					sock.lastDB = o.db
					c.w.Status("OK")
				}
				pool.release(sock)
				return
			}
		}
		// A cached connection the target has closed is common: reconnect
		// once, unless it timed out.
		pool.close(sock)
		pool.release(sock)
		if isTimeout(err) || !mayRetry {
			if writing {
				c.w.Error(errMigrateWrite)
			} else {
				c.w.Error(errMigrateRead)
			}
			return
		}
		mayRetry = false
	}
}

func firstByte(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// oneLine replaces CR and LF as addReplyErrorFormat does, so that a
// target's text cannot break the reply.
func oneLine(b []byte) string {
	out := []byte(string(b))
	for i, ch := range out {
		if ch == '\r' || ch == '\n' {
			out[i] = ' '
		}
	}
	return string(out)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// migrateKeys returns MIGRATE's key positions for COMMAND GETKEYS as Redis
// finds them. Its key specs come first: the key argument, and the keys
// after a KEYS found searching back from the next-to-last argument. That
// spec is incomplete, so once it finds a KEYS migrateGetKeys decides
// instead: the arguments after the first KEYS from the options on (AUTH's
// and AUTH2's arguments skipped), none if the key argument is not empty.
func migrateKeys(args [][]byte) []int {
	found := false
	for i := len(args) - 2; i >= 1 && !found; i-- {
		found = eqFold(args[i], "keys")
	}
	if !found {
		return []int{3}
	}
	for i := 6; i < len(args); i++ {
		switch {
		case eqFold(args[i], "keys"):
			if len(args[3]) > 0 {
				return nil
			}
			pos := []int{}
			for p := i + 1; p < len(args); p++ {
				pos = append(pos, p)
			}
			return pos
		case eqFold(args[i], "auth"):
			i++
		case eqFold(args[i], "auth2"):
			i += 2
		}
	}
	return []int{3}
}

// migrateSocket is a connection to a MIGRATE target, kept for the next
// MIGRATE to the same host and port (Redis's migrateCachedSocket).
type migrateSocket struct {
	name    string // host:port as given, the cache's key
	conn    net.Conn
	failed  error // why conn is nil: the connect failed after it began
	rd      *bufio.Reader
	timeout time.Duration
	lastDB  int64 // the db the target has selected, -1 if unknown
	lastUse int64 // unix seconds on the server's clock
	inUse   bool  // the idle closer leaves it alone
	closed  bool
}

// migratePool is the server's cache of MIGRATE connections. MIGRATE uses
// it under the execution lock; mu is for the idle closer and Close.
type migratePool struct {
	mu      sync.Mutex
	sockets map[string]*migrateSocket
	idle    *time.Timer // runs closeIdle every second while sockets are cached
	closed  bool
}

// get returns the cached connection to host:port or a new one, nil if it
// cannot connect (see dialTarget).
func (p *migratePool) get(s *Server, host, port string, timeout time.Duration) *migrateSocket {
	name := host + ":" + port
	now := s.store.Clock().Now().Unix()
	p.mu.Lock()
	if ms := p.sockets[name]; ms != nil {
		ms.lastUse, ms.inUse, ms.timeout = now, true, timeout
		p.mu.Unlock()
		return ms
	}
	if len(p.sockets) >= migrateCacheItems {
		skip := rand.IntN(len(p.sockets)) // Redis drops one at random
		for _, ms := range p.sockets {
			if skip--; skip < 0 {
				p.drop(ms)
				break
			}
		}
	}
	p.mu.Unlock()
	conn, err := dialTarget(host, port, timeout)
	if conn == nil && err == nil {
		return nil
	}
	ms := &migrateSocket{name: name, conn: conn, failed: err, timeout: timeout, lastDB: -1, lastUse: now, inUse: true}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		p.drop(ms)
		return nil
	}
	if conn == nil {
		return ms // not worth caching: its first write fails
	}
	ms.rd = bufio.NewReader(deadlineReader{ms})
	if p.sockets == nil {
		p.sockets = make(map[string]*migrateSocket)
	}
	p.sockets[name] = ms
	if p.idle == nil {
		p.idle = time.AfterFunc(time.Second, func() { p.closeIdle(s) })
	}
	return ms
}

// dialTarget connects as Redis's connBlockingConnect. The port is read
// with atoi and printed into anetTcpGenericConnect's 6-byte buffer, so
// only its first 5 characters reach getaddrinfo, which refuses a negative
// one and takes the rest modulo 2^16. Only what fails before the
// non-blocking connect is under way (the name, the port, no route) is a
// failure to connect (nil, nil); a connection refused or not made within
// the timeout is returned as the error its first write meets, since Redis
// takes the socket for connected once it is writable or the wait is over.
func dialTarget(host, port string, timeout time.Duration) (net.Conn, error) {
	n, ok := migratePort(port)
	if host == "" || !ok {
		return nil, nil
	}
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(n)), timeout)
	if err != nil {
		var dnsErr *net.DNSError
		var addrErr *net.AddrError
		if errors.As(err, &dnsErr) || errors.As(err, &addrErr) ||
			errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EADDRNOTAVAIL) ||
			errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EAFNOSUPPORT) {
			return nil, nil
		}
		return nil, err
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	return conn, nil
}

// migratePort is the port Redis connects to for MIGRATE's port argument
// (see dialTarget), false if getaddrinfo refuses it.
func migratePort(port string) (int, bool) {
	v, _, _ := number.Strtoul(port, 10)
	digits := strconv.Itoa(int(int32(v))) // atoi's int
	if digits[0] == '-' {
		return 0, false
	}
	n, _ := strconv.Atoi(digits[:min(len(digits), 5)])
	return int(uint16(n)), true
}

// release ends a MIGRATE's use of ms.
func (p *migratePool) release(ms *migrateSocket) {
	p.mu.Lock()
	ms.inUse = false
	p.mu.Unlock()
}

// close drops ms from the cache and closes it (migrateCloseSocket): the
// next MIGRATE connects anew, and selects its db again.
func (p *migratePool) close(ms *migrateSocket) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drop(ms)
}

func (p *migratePool) drop(ms *migrateSocket) {
	if !ms.closed && ms.conn != nil {
		ms.conn.Close()
	}
	ms.closed = true
	if p.sockets[ms.name] == ms {
		delete(p.sockets, ms.name)
	}
}

// closeIdle closes the connections unused for more than 10 seconds
// (migrateCloseTimedoutSockets, which serverCron runs every second).
func (p *migratePool) closeIdle(s *Server) {
	now := s.store.Clock().Now().Unix()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ms := range p.sockets {
		if !ms.inUse && now-ms.lastUse > migrateCacheTTL {
			p.drop(ms)
		}
	}
	if len(p.sockets) == 0 || p.closed {
		p.idle = nil
		return
	}
	p.idle.Reset(time.Second)
}

// closeAll closes every cached connection, for Close.
func (p *migratePool) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.idle != nil {
		p.idle.Stop()
		p.idle = nil
	}
	for _, ms := range p.sockets {
		p.drop(ms)
	}
}

// count is INFO's migrate_cached_sockets.
func (p *migratePool) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.sockets)
}

// write sends b in 64 KB pieces, each within the timeout (syncWrite).
func (ms *migrateSocket) write(b []byte) error {
	if ms.conn == nil {
		return ms.failed
	}
	for len(b) > 0 {
		n := min(len(b), migrateChunk)
		ms.conn.SetWriteDeadline(time.Now().Add(ms.timeout))
		if _, err := ms.conn.Write(b[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// readLine reads a reply line as Redis's syncReadLine: up to 1023 bytes
// or a newline, a CR before the newline dropped. A line with nothing
// before its newline counts as a failed read, as there.
func (ms *migrateSocket) readLine() ([]byte, error) {
	var line []byte
	for len(line) < migrateLineMax {
		ch, err := ms.rd.ReadByte()
		if err != nil {
			return nil, err
		}
		if ch == '\n' {
			if len(line) == 0 {
				return nil, errEmptyLine
			}
			if line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			return line, nil
		}
		line = append(line, ch)
	}
	return line, nil
}

var errEmptyLine = errors.New("empty reply line")

// deadlineReader gives each read from the target the whole timeout, as
// Redis allows each byte its timeout.
type deadlineReader struct{ ms *migrateSocket }

func (r deadlineReader) Read(b []byte) (int, error) {
	r.ms.conn.SetReadDeadline(time.Now().Add(r.ms.timeout))
	return r.ms.conn.Read(b)
}
