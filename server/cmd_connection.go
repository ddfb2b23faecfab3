package server

import (
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/floodgate/floodgate/internal/acl"
	"github.com/floodgate/floodgate/internal/number"
)

var connectionHandlers = map[string]Handler{
	"ping":            cmdPing,
	"echo":            cmdEcho,
	"quit":            cmdQuit,
	"select":          cmdSelect,
	"hello":           cmdHello,
	"auth":            cmdAuth,
	"reset":           cmdReset,
	"client|id":       cmdClientID,
	"client|setname":  cmdClientSetName,
	"client|getname":  cmdClientGetName,
	"client|info":     cmdClientInfo,
	"client|list":     cmdClientList,
	"client|no-evict": cmdClientNoEvict,
	"client|kill":     cmdClientKill,
	"client|pause":    cmdClientPause,
	"client|unpause":  cmdClientUnpause,
	"client|unblock":  cmdClientUnblock,
	"client|reply":    cmdClientReply,
	"client|help":     helpHandler(clientHelp),
}

const (
	errNoPassword        = "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"
	errWrongPass         = "WRONGPASS invalid username-password pair or user is disabled."
	errHelloNoAuth       = "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time"
	errUnknownClientType = "ERR Unknown client type '%s'"
	errBadClientName     = "ERR Client names cannot contain spaces, newlines or special characters."
)

func cmdPing(c *Client, args [][]byte) {
	if len(args) <= 2 && c.protocol() == 2 && c.subscribed() {
		// Redis's pingCommand in the RESP2 subscribed state.
		c.w.Array(2)
		c.w.BulkString("pong")
		if len(args) == 1 {
			c.w.BulkString("")
		} else {
			c.w.Bulk(args[1])
		}
		return
	}
	switch len(args) {
	case 1:
		c.w.Status("PONG")
	case 2:
		c.w.Bulk(args[1])
	default:
		c.wrongArity(c.cmd)
	}
}

func cmdEcho(c *Client, args [][]byte) { c.w.Bulk(args[1]) }

func cmdQuit(c *Client, args [][]byte) {
	c.w.Status("OK")
	c.closing = true
}

// cmdSelect reads its index as Redis's getIntFromObjectOrReply, as MOVE's.
func cmdSelect(c *Client, args [][]byte) {
	db, ok := dbArg(c, args[1])
	if !ok {
		return
	}
	c.db = db
	c.w.Status("OK")
}

// authenticate checks user/pass as Redis's ACLAuthenticateUser does: a
// match makes the client that user's, a failure goes into the ACL LOG
// (the object is the command's name as sent).
func (c *Client) authenticate(user, pass []byte) bool {
	s := c.srv
	if u := s.acl.users.User(string(user)); u != nil && u.CheckPassword(pass) {
		c.authed = true
		c.user = u
		return true
	}
	ctx := acl.CtxToplevel
	if c.multi != nil {
		ctx = acl.CtxMulti
	}
	name := c.lastArgv0
	s.aclLogDenial(c, acl.DeniedAuth, ctx, name, string(user))
	return false
}

func cmdAuth(c *Client, args [][]byte) {
	if len(args) > 3 {
		c.w.Error(errSyntax)
		return
	}
	user, pass := []byte("default"), args[len(args)-1]
	if len(args) == 2 {
		if c.srv.acl.users.Default().NoPass() {
			c.w.Error(errNoPassword)
			return
		}
	} else {
		user = args[1]
	}
	c.lastArgv0 = string(args[0])
	if !c.authenticate(user, pass) {
		c.w.Error(errWrongPass)
		return
	}
	c.w.Status("OK")
}

// cmdHello switches the connection to RESP2 or RESP3 (node-redis 5+ and
// go-redis open with HELLO 3) and answers with the server's description,
// already in the chosen protocol.
func cmdHello(c *Client, args [][]byte) {
	proto := c.w.Proto()
	if len(args) >= 2 {
		ver, ok := number.ParseInt(args[1])
		if !ok {
			c.w.Error("ERR Protocol version is not an integer or out of range")
			return
		}
		if ver != 2 && ver != 3 {
			c.w.Error("NOPROTO unsupported protocol version")
			return
		}
		proto = int(ver)
	}
	var user, pass, name []byte
	for i := 2; i < len(args); i++ {
		more := len(args) - 1 - i
		switch {
		case eqFold(args[i], "auth") && more >= 2:
			user, pass = args[i+1], args[i+2]
			i += 2
		case eqFold(args[i], "setname") && more >= 1:
			name = args[i+1]
			i++
		default:
			c.errorf("ERR Syntax error in HELLO option '%s'", sanitizeError(string(args[i])))
			return
		}
	}
	if user != nil {
		c.lastArgv0 = string(args[0])
		if !c.authenticate(user, pass) {
			c.w.Error(errWrongPass)
			return
		}
	}
	if !c.authed {
		c.w.Error(errHelloNoAuth)
		return
	}
	if name != nil {
		if !validName(name) {
			c.w.Error(errBadClientName)
			return
		}
		c.name = string(name)
	}
	// The reply already speaks the protocol just chosen.
	c.setProto(proto)
	c.w.Map(7)
	c.w.BulkString("server")
	c.w.BulkString("redis")
	c.w.BulkString("version")
	c.w.BulkString(Version)
	c.w.BulkString("proto")
	c.w.Int(int64(proto))
	c.w.BulkString("id")
	c.w.Int(c.id)
	c.w.BulkString("mode")
	c.w.BulkString("standalone")
	c.w.BulkString("role")
	c.w.BulkString("master")
	c.w.BulkString("modules")
	c.w.Array(0)
}

// cmdReset returns the connection to its state right after connecting:
// out of MULTI, nothing watched, database 0, no name, not authenticated
// (when a password is required).
func cmdReset(c *Client, args [][]byte) {
	// As clearClientConnectionState: a SKIP already in effect still drops
	// RESET's own reply.
	c.replyOff, c.replySkipNext = false, false
	c.syncMute()
	c.srv.dropSubscriptions(c)
	c.srv.disableTracking(c)
	c.srv.stopMonitoring(c)
	c.setProto(2)
	c.multi = nil
	c.unwatchAll()
	c.db = c.srv.store.DB(0)
	c.name = ""
	c.noEvict = false
	c.user = c.srv.acl.users.Default()
	c.authed = c.srv.acl.open.Load()
	c.w.Status("RESET")
}

// validName reports whether a client name has only
// printable ASCII and no spaces, as Redis requires.
func validName(b []byte) bool {
	for _, ch := range b {
		if ch < '!' || ch > '~' {
			return false
		}
	}
	return true
}

func cmdClientID(c *Client, args [][]byte) { c.w.Int(c.id) }

// cmdClientReply is CLIENT REPLY ON|OFF|SKIP. OFF and SKIP answer nothing:
// OFF mutes at once, SKIP mutes the next command only (and does nothing
// under OFF).
func cmdClientReply(c *Client, args [][]byte) {
	switch strings.ToLower(string(args[2])) {
	case "on":
		c.replyOff, c.replySkip = false, false
		c.syncMute()
		c.w.Status("OK")
	case "off":
		c.replyOff = true
		c.syncMute()
	case "skip":
		if !c.replyOff {
			c.replySkipNext = true
		}
	default:
		c.w.Error(errSyntax)
	}
}

func cmdClientSetName(c *Client, args [][]byte) {
	if !validName(args[2]) {
		c.w.Error(errBadClientName)
		return
	}
	c.name = string(args[2])
	c.w.Status("OK")
}

func cmdClientGetName(c *Client, args [][]byte) {
	if c.name == "" {
		c.w.Null()
		return
	}
	c.w.BulkString(c.name)
}

func cmdClientNoEvict(c *Client, args [][]byte) {
	switch {
	case eqFold(args[2], "on"):
		c.noEvict = true
	case eqFold(args[2], "off"):
		c.noEvict = false
	default:
		c.w.Error(errSyntax)
		return
	}
	c.w.Status("OK")
}

func cmdClientInfo(c *Client, args [][]byte) {
	c.w.Verbatim(c.infoLine(time.Now(), args) + "\n")
}

// Client types, as Redis's getClientType: a floodgate client is normal, or
// pubsub while subscribed to anything; none is a master or a replica.
const (
	clientNormal = iota
	clientReplica
	clientPubsub
	clientMaster
)

// clientTypes are the names CLIENT LIST TYPE and CLIENT KILL TYPE accept.
var clientTypes = map[string]int{"normal": clientNormal, "master": clientMaster, "slave": clientReplica, "replica": clientReplica, "pubsub": clientPubsub}

// clientType looks up a CLIENT ... TYPE name.
func clientType(b []byte) (typ int, known bool) {
	typ, known = clientTypes[strings.ToLower(string(b))]
	return typ, known
}

// kind is the client's type.
func (c *Client) kind() int {
	if c.isReplica() {
		return clientReplica
	}
	if c.subscribed() {
		return clientPubsub
	}
	return clientNormal
}

func cmdClientList(c *Client, args [][]byte) {
	var ids map[int64]bool
	typ := -1
	switch {
	case len(args) == 2:
	case len(args) == 4 && eqFold(args[2], "type"):
		t, known := clientType(args[3])
		if !known {
			c.errorf(errUnknownClientType, sanitizeError(string(args[3])))
			return
		}
		typ = t
	case len(args) > 3 && eqFold(args[2], "id"):
		ids = make(map[int64]bool)
		for _, a := range args[3:] {
			id, ok := number.ParseInt(a)
			if !ok {
				c.w.Error("ERR Invalid client ID")
				return
			}
			ids[id] = true
		}
	default:
		c.w.Error(errSyntax)
		return
	}
	var b strings.Builder
	now := time.Now()
	for _, cl := range c.srv.clientsByID() {
		if (ids == nil || ids[cl.id]) && (typ < 0 || cl.kind() == typ) {
			b.WriteString(cl.infoLine(now, selfArgs(cl, c, args)))
			b.WriteByte('\n')
		}
	}
	c.w.Verbatim(b.String())
}

// clientsByID returns the connected clients in the order they connected.
func (s *Server) clientsByID() []*Client {
	s.clientsMu.Lock()
	list := make([]*Client, 0, len(s.clients))
	for cl := range s.clients {
		list = append(list, cl)
	}
	s.clientsMu.Unlock()
	sort.Slice(list, func(i, j int) bool { return list[i].id < list[j].id })
	return list
}

// infoLine formats a client as CLIENT LIST and CLIENT INFO do, with the
// same fields in the same order.
func (c *Client) infoLine(now time.Time, argv [][]byte) string {
	var ci clientInfo
	c.snapshotInfo(&ci, now, argv)
	return ci.String()
}

// clientInfo is what a CLIENT LIST line says of a client at one moment,
// not yet formatted: the ACL LOG keeps one per entry, taken at each event
// (as Redis's addACLLogEntry formats catClientInfoString at each), and
// formats it only when ACL LOG is read, which a stream of wrong AUTH
// guesses aggregated into one entry never needs (formatting was a quarter
// of the server's CPU per guess, scripts/bench-auth.sh).
type clientInfo struct {
	addr, laddr, name, flags, events, cmd, user string

	id, fd, age, idle, db, sub, psub, ssub, multi int64
	qbuf, qbufFree, argvMem, multiMem, rbs, rbp   int64
	obl, oll, omem, totMem, redir, resp           int64
}

// String is the CLIENT LIST line.
func (ci *clientInfo) String() string { return string(ci.appendTo(make([]byte, 0, 384))) }

func (ci *clientInfo) appendTo(b []byte) []byte {
	field := func(name, value string) {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(append(append(b, name...), '='), value...)
	}
	num := func(name string, n int64) {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(append(append(b, name...), '='), n, 10)
	}
	num("id", ci.id)
	field("addr", ci.addr)
	field("laddr", ci.laddr)
	num("fd", ci.fd)
	field("name", ci.name)
	num("age", ci.age)
	num("idle", ci.idle)
	field("flags", ci.flags)
	num("db", ci.db)
	num("sub", ci.sub)
	num("psub", ci.psub)
	num("ssub", ci.ssub)
	num("multi", ci.multi)
	num("qbuf", ci.qbuf)
	num("qbuf-free", ci.qbufFree)
	num("argv-mem", ci.argvMem)
	num("multi-mem", ci.multiMem)
	num("rbs", ci.rbs)
	num("rbp", ci.rbp)
	num("obl", ci.obl)
	num("oll", ci.oll)
	num("omem", ci.omem)
	num("tot-mem", ci.totMem)
	field("events", ci.events)
	field("cmd", ci.cmd)
	field("user", ci.user)
	num("redir", ci.redir)
	num("resp", ci.resp)
	return b
}

// snapshotInfo fills ci with the client's CLIENT LIST fields now; argv is
// the running command's when the client lists itself.
func (c *Client) snapshotInfo(ci *clientInfo, now time.Time, argv [][]byte) {
	flags := ""
	// Redis: a replica-flagged client is O when it is a monitor, else S.
	if c.monitor {
		flags += "O"
	} else if c.isReplica() {
		flags += "S"
	}
	if c.subscribed() {
		flags += "P"
	}
	if c.multi != nil {
		flags += "x"
	}
	if c.blockedOn != nil {
		flags += "b"
	}
	flags += c.trackingFlags()
	if c.watch.dirty {
		flags += "d"
	}
	if c.closing {
		flags += "c"
	}
	if c.noEvict {
		flags += "e"
	}
	if flags == "" {
		flags = "N"
	}
	multi := -1
	if c.multi != nil {
		multi = len(c.multi.queued)
	}
	cmd := c.lastCmd
	if cmd == "" {
		cmd = "NULL"
	}
	laddr, fd := "", -1
	if c.conn != nil {
		laddr = c.conn.tr.LocalAddr()
		fd = c.conn.tr.SocketFD()
	}
	idle := int64(0)
	if c.conn != nil {
		idle = (ioTime(now) - c.conn.lastIO.Load()) / int64(time.Second)
	}
	var sub, psub, ssub int
	if cs := c.pubsub; cs != nil {
		sub, psub, ssub = cs.channels.len(), cs.patterns.len(), cs.shard.len()
	}
	var qbuf, qbufFree, argvMem, oll, omem, obl int64
	rbs, rbp := int64(replyBufMax), int64(replyBufMax)
	if c.conn != nil {
		qbuf, qbufFree, argvMem = c.conn.qbuf.Load(), c.conn.qbufFree.Load(), c.conn.argvMem.Load()
		oll, omem = int64(c.conn.oll.Load()), c.conn.omem.Load()
		rbs, rbp = c.conn.rbuf.size.Load(), c.conn.rbuf.peak.Load()
	}
	if argv != nil {
		// The client listing itself: its argv is the running command's.
		argvMem = 0
		for _, a := range argv {
			argvMem += int64(len(a))
		}
		// The replies of the commands before it in the same read are still
		// in its buffer, as in Redis. Another client's went out after its
		// own round (obl 0), as Redis writes them before the next event.
		if c.conn != nil {
			obl = c.conn.rbuf.held(c.conn.pendingBytes())
			rbp = max(rbp, obl)
		}
	}
	multiMem := int64(0)
	if c.multi != nil {
		multiMem = c.multi.mem // mstate.argv_len_sums: the queued arguments and their pointers
	}
	// Redis's getClientMemoryUsage: the client, its query buffer, its
	// arguments and their pointers, its reply list.
	// The query buffer's parsed part is counted in argv-mem. The MULTI
	// queue and watched keys as client eviction last noted them.
	totMem := clientBytes + qbuf + qbufFree + argvMem + 8*int64(len(argv)) + omem + c.queuedMem.Load()
	// aeGetFileEvents: Redis reads while its write handler waits for the
	// socket, so a client with replies pending is "rw"; floodgate's event
	// loop reads it again once they are out, as the same requests follow.
	events := "r"
	if c.conn != nil && c.conn.writeWait.Load() {
		events = "rw"
	}
	*ci = clientInfo{
		addr: c.addr, laddr: laddr, name: c.name, flags: flags, events: events, cmd: cmd, user: c.userName(),
		id: c.id, fd: int64(fd), age: int64(now.Sub(c.created) / time.Second), idle: max(idle, 0),
		db: int64(c.db.Index()), sub: int64(sub), psub: int64(psub), ssub: int64(ssub), multi: int64(multi),
		qbuf: qbuf, qbufFree: qbufFree, argvMem: argvMem, multiMem: multiMem, rbs: rbs, rbp: rbp,
		obl: obl, oll: oll, omem: omem, totMem: totMem, redir: c.trackingRedirect(), resp: int64(c.protocol()),
	}
}

// clientBytes is what a connected client costs without its buffers.
const clientBytes = int64(unsafe.Sizeof(Client{}) + unsafe.Sizeof(conn{}))

// selfArgs is args, the arguments of the command the caller runs, when cl
// is the caller, else nil.
func selfArgs(cl, caller *Client, args [][]byte) [][]byte {
	if cl == caller {
		return args
	}
	return nil
}

// cmdClientKill supports both forms: CLIENT KILL addr (an error when
// nobody matched) and CLIENT KILL <filter> <value> ... (a count).
func cmdClientKill(c *Client, args [][]byte) {
	var addr, laddr string
	var id int64
	skipMe, anyAddr, anyLaddr, typ := true, false, false, -1
	var byUser *acl.User
	if len(args) == 3 {
		addr, anyAddr, skipMe = string(args[2]), true, false
	} else {
		for i := 2; i < len(args); i += 2 {
			if i+1 >= len(args) {
				c.w.Error(errSyntax)
				return
			}
			opt, val := args[i], args[i+1]
			switch {
			case eqFold(opt, "id"):
				n, ok := number.ParseInt(val)
				if !ok || n < 1 {
					c.w.Error("ERR client-id should be greater than 0")
					return
				}
				id = n
			case eqFold(opt, "type"):
				t, known := clientType(val)
				if !known {
					c.errorf(errUnknownClientType, sanitizeError(string(val)))
					return
				}
				typ = t // the last TYPE counts, as in Redis
			case eqFold(opt, "addr"):
				addr, anyAddr = string(val), true
			case eqFold(opt, "laddr"):
				laddr, anyLaddr = string(val), true
			case eqFold(opt, "user"):
				u := c.srv.acl.users.User(string(val))
				if u == nil {
					c.errorf("ERR No such user '%s'", sanitizeError(string(val)))
					return
				}
				byUser = u
			case eqFold(opt, "skipme"):
				switch {
				case eqFold(val, "yes"):
					skipMe = true
				case eqFold(val, "no"):
					skipMe = false
				default:
					c.w.Error(errSyntax)
					return
				}
			default:
				c.w.Error(errSyntax)
				return
			}
		}
	}
	killed := 0
	for _, cl := range c.srv.clientsByID() {
		switch {
		case typ >= 0 && cl.kind() != typ,
			anyAddr && cl.addr != addr,
			anyLaddr && (cl.conn == nil || cl.conn.tr.LocalAddr() != laddr),
			id != 0 && cl.id != id,
			byUser != nil && cl.user != byUser,
			cl == c && skipMe:
			continue
		}
		if cl == c {
			c.closing = true
		} else if cl.conn != nil {
			c.srv.killClient(cl)
		}
		killed++
	}
	if len(args) == 3 {
		if killed == 0 {
			c.w.Error("ERR No such client")
		} else {
			c.w.Status("OK")
		}
		return
	}
	c.w.Int(int64(killed))
}

var clientHelp = []string{
	"CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CACHING (YES|NO)",
	"    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
	"GETREDIR",
	"    Return the client ID we are redirecting to when tracking is enabled.",
	"GETNAME",
	"    Return the name of the current connection.",
	"ID",
	"    Return the ID of the current connection.",
	"INFO",
	"    Return information about the current client connection.",
	"KILL <ip:port>",
	"    Kill connection made from <ip:port>.",
	"KILL <option> <value> [<option> <value> [...]]",
	"    Kill connections. Options are:",
	"    * ADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made from the specified address",
	"    * LADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made to specified local address",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Kill connections by type.",
	"    * USER <username>",
	"      Kill connections authenticated by <username>.",
	"    * SKIPME (YES|NO)",
	"      Skip killing current connection (default: yes).",
	"LIST [options ...]",
	"    Return information about client connections. Options:",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Return clients of specified type.",
	"UNPAUSE",
	"    Stop the current client pause, resuming traffic.",
	"PAUSE <timeout> [WRITE|ALL]",
	"    Suspend all, or just write, clients for <timeout> milliseconds.",
	"REPLY (ON|OFF|SKIP)",
	"    Control the replies sent to the current connection.",
	"SETNAME <name>",
	"    Assign the name <name> to the current connection.",
	"UNBLOCK <clientid> [TIMEOUT|ERROR]",
	"    Unblock the specified blocked client.",
	"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
	"         [OPTIN] [OPTOUT] [NOLOOP]",
	"    Control server assisted client side caching.",
	"TRACKINGINFO",
	"    Report tracking status for the current connection.",
	"NO-EVICT (ON|OFF)",
	"    Protect current client connection from eviction.",
	"HELP",
	"    Prints this help.",
}

// userName is CLIENT LIST's user field: the client's user, or "default"
// for the server's own clients.
func (c *Client) userName() string {
	if c.user == nil {
		return "default"
	}
	return c.user.Name()
}
