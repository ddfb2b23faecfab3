package server

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/internal/resp"
	"github.com/floodgate/floodgate/rdb"
	"github.com/floodgate/floodgate/replication"
	"github.com/floodgate/floodgate/store"
)

// DEBUG, as Redis 7.0's debug.c, for the subcommands floodgate can honour
// exactly; the others get Redis's unknown-subcommand error, so a test that
// needs one sees it is missing instead of a false OK. dispatch refuses
// DEBUG altogether unless enable-debug-command allows the client (check).
// Nothing DEBUG does is propagated (Redis's server.dirty stays, or is
// reset, around its loads).

var debugHandlers = map[string]Handler{
	"debug": cmdDebug,
}

// debugState is what DEBUG sets; guarded by lock.
type debugState struct {
	noActiveExpire bool // SET-ACTIVE-EXPIRE 0: expiryCron deletes nothing
	// loadingInCommand: a load runs inside a command (RELOAD, LOADAOF),
	// whose batch holds the lock: other clients wait for the command
	// rather than being served LOADING from inside it.
	loadingInCommand bool
}

// debugHelp is Redis 7.0.15's DEBUG HELP text for the subcommands built
// here, each entry as Redis words it and in its order: the subcommands
// floodgate lacks (crashes, allocator and dict statistics, cluster links,
// plain quicklist nodes...) are left out rather than listed and refused.
var debugHelp = []string{
	"DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CHANGE-REPL-ID",
	"    Change the replication IDs of the instance.",
	"    Dangerous: should be used only for testing the replication subsystem.",
	"DIGEST",
	"    Output a hex signature representing the current DB content.",
	"DIGEST-VALUE <key> [<key> ...]",
	"    Output a hex signature of the values of all the specified keys.",
	"ERROR <string>",
	"    Return a Redis protocol error with <string> as message. Useful for clients",
	"    unit tests to simulate Redis errors.",
	"LOG <message>",
	"    Write <message> to the server log.",
	"LOADAOF",
	"    Flush the AOF buffers on disk and reload the AOF in memory.",
	"OBJECT <key>",
	"    Show low level info about `key` and associated value.",
	"POPULATE <count> [<prefix>] [<size>]",
	"    Create <count> string keys named key:<num>. If <prefix> is specified then",
	"    it is used instead of the 'key' prefix. These are not propagated to",
	"    replicas. Cluster slots are not respected so keys not belonging to the",
	"    current node can be created in cluster mode.",
	"PROTOCOL <type>",
	"    Reply with a test value of the specified type. <type> can be: string,",
	"    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
	"    true, false.",
	"RELOAD [option ...]",
	"    Save the RDB on disk and reload it back to memory. Valid <option> values:",
	"    * MERGE: conflicting keys will be loaded from RDB.",
	"    * NOFLUSH: the existing database will not be removed before load, but",
	"      conflicting keys will generate an exception and kill the server.",
	"    * NOSAVE: the database will be loaded from an existing RDB file.",
	"    Examples:",
	"    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
	"      the database.",
	"    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
	"      existing RDB file.",
	"    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
	"      file to the database.",
	"SET-ACTIVE-EXPIRE <0|1>",
	"    Setting it to 0 disables expiring keys in background when they are not",
	"    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
	"    default.",
	"QUICKLIST-PACKED-THRESHOLD <size>",
	"    Sets the threshold for elements to be inserted as plain vs packed nodes",
	"    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
	"SET-SKIP-CHECKSUM-VALIDATION <0|1>",
	"    Enables or disables checksum checks for RDB files and RESTORE's payload.",
	"SLEEP <seconds>",
	"    Stop the server for <seconds>. Decimals allowed.",
	"REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
	"    Sets the time (in milliseconds) to wait between client reply buffer peak resets.",
	"    In case NEVER is provided the last observed peak will never be reset",
	"    In case RESET is provided the peak reset time will be restored to the default value",
	"REPLYBUFFER RESIZING <0|1>",
	"    Enable or disable the reply buffer resize cron job",
	"HELP",
	"    Prints this help.",
}

const (
	errReloadOptions   = "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options."
	errReloadLoad      = "ERR Error trying to load the RDB dump"
	errProtocolType    = "ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false"
	errPackedThreshold = "ERR argument must be a memory value bigger than 1 and smaller than 4gb"
	// floodgate keeps no plain quicklist nodes (store/quicklist.go), so a
	// threshold an element could reach is refused rather than ignored.
	errPlainNodes = "ERR floodgate has no plain quicklist nodes: the threshold must exceed proto-max-bulk-len (or be 0)"
	errLoadAOF    = "ERR Error trying to load the AOF files" // Redis exits instead
	errPositive   = "ERR value is out of range, must be positive"
)

// cmdDebug dispatches as debugCommand: by name and argument count, and
// anything else is addReplySubcommandSyntaxError.
func cmdDebug(c *Client, args [][]byte) {
	c.logNone()
	sub := strings.ToLower(string(args[1]))
	n := len(args)
	switch {
	case sub == "help" && n == 2:
		helpHandler(debugHelp)(c, args)
	case sub == "log" && n == 3:
		c.srv.log.Warn("DEBUG LOG: " + string(cString(args[2])))
		c.w.Status("OK")
	case sub == "reload":
		debugReload(c, args)
	case sub == "loadaof":
		debugLoadAOF(c)
	case sub == "object" && n == 3:
		debugObject(c, args[2])
	case sub == "populate" && n >= 3 && n <= 5:
		debugPopulate(c, args)
	case sub == "digest" && n == 2:
		c.w.Status(fmt.Sprintf("%x", datasetDigest(c.srv.store)))
	case sub == "digest-value":
		c.w.Array(n - 2)
		for _, key := range args[2:] {
			var d [20]byte
			// dictFind: a logically expired key still has its digest.
			if e := c.db.Entry(key); e != nil {
				objectDigest(&d, c.db, e)
			}
			c.w.Status(fmt.Sprintf("%x", d))
		}
	case sub == "protocol" && n == 3:
		debugProtocol(c, args[2])
	case sub == "sleep" && n == 3:
		debugSleep(args[2])
		c.w.Status("OK")
	case sub == "set-active-expire" && n == 3:
		c.srv.debug.noActiveExpire = cAtoi(args[2]) == 0
		c.w.Status("OK")
	case sub == "quicklist-packed-threshold" && n == 3:
		debugPackedThreshold(c, args[2])
	case sub == "set-skip-checksum-validation" && n == 3:
		c.srv.persist.skipChecksum.Store(cAtoi(args[2]) != 0)
		c.w.Status("OK")
	case sub == "error" && n == 3:
		msg := strings.NewReplacer("\r", " ", "\n", " ").Replace(string(args[2]))
		c.w.Error(msg)
	case sub == "replybuffer" && n == 4:
		debugReplyBuffer(c, args)
	case sub == "change-repl-id" && n == 2:
		c.srv.log.Warn("Changing replication IDs after receiving DEBUG change-repl-id")
		r := &c.srv.repl
		r.id, r.id2, r.secondOffset = replication.NewID(), replication.NoID, -1
		c.w.Status("OK")
	default:
		subcommandSyntaxError(c, args)
	}
}

// cAtoi is C's atoi: optional space and sign, then digits, 0 if none.
func cAtoi(b []byte) int64 {
	i := 0
	for i < len(b) && number.IsSpace(b[i]) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	var n int64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		n = n*10 + int64(b[i]-'0')
		if n > math.MaxInt32 {
			n = math.MaxInt32 // glibc's atoi is strtol cut to an int; beyond, anything nonzero
		}
	}
	if neg {
		n = -n
	}
	return n
}

// debugSleep blocks the server, execution lock held, as Redis's nanosleep
// blocks its one thread: strtod's prefix of the argument, in microseconds.
func debugSleep(arg []byte) {
	secs, _, _ := number.Strtod(cString(arg))
	us := secs * 1e6
	if !(us > 0) { // also NaN; a negative nanosleep fails at once
		return
	}
	if us > float64(math.MaxInt64/1000) {
		us = float64(math.MaxInt64 / 1000)
	}
	time.Sleep(time.Duration(int64(us)) * time.Microsecond)
}

// debugPackedThreshold is QUICKLIST-PACKED-THRESHOLD: Redis's check
// (quicklistisSetPackedThreshold), then only a threshold no element can
// reach is taken, since floodgate builds no plain nodes.
func debugPackedThreshold(c *Client, arg []byte) {
	sz, ok := memToBytes(string(cString(arg)))
	if !ok || sz > 1<<32-1<<20 {
		c.w.Error(errPackedThreshold)
		return
	}
	if sz != 0 && int64(sz) <= c.srv.protoMaxBulkLen.Load() {
		c.w.Error(errPlainNodes)
		return
	}
	c.w.Status("OK")
}

// debugProtocol answers DEBUG PROTOCOL's test value of each type.
func debugProtocol(c *Client, name []byte) {
	switch strings.ToLower(string(name)) {
	case "string":
		c.w.BulkString("Hello World")
	case "integer":
		c.w.Int(12345)
	case "double":
		c.w.Double(3.141)
	case "bignum":
		c.w.BigNumber("1234567999999999999999999999999999999")
	case "null":
		c.w.Null()
	case "array", "set":
		if strings.EqualFold(string(name), "set") {
			c.w.Set(3)
		} else {
			c.w.Array(3)
		}
		for j := range 3 {
			c.w.Int(int64(j))
		}
	case "map":
		c.w.Map(3)
		for j := range 3 {
			c.w.Int(int64(j))
			c.w.Bool(j == 1)
		}
	case "attrib":
		if rw, ok := c.w.(*resp.Writer); ok && c.w.Proto() >= 3 {
			rw.Raw([]byte("|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n"))
		}
		c.w.BulkString("Some real reply following the attribute")
	case "push":
		if c.w.Proto() < 3 {
			c.w.Error("ERR RESP2 is not supported by this command")
			return
		}
		if rw, ok := c.w.(*resp.Writer); ok {
			rw.Raw([]byte(">2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n"))
		}
		c.w.BulkString("Some real reply following the push reply")
	case "true":
		c.w.Bool(true)
	case "false":
		c.w.Bool(false)
	case "verbatim":
		c.w.Verbatim("This is a verbatim\nstring")
	default:
		c.w.Error(errProtocolType)
	}
}

// debugObject is DEBUG OBJECT's line. Value at is the Go address of the
// value; refcount, lru and lru_seconds_idle are Redis's (a shared integer
// has INT_MAX references; the access field is the LRU clock or LFU data);
// serializedlength is the length of the RDB encoding floodgate writes
// for the value, which is Redis's for the same encoding; a list, always a
// quicklist in 7.0, gets the quicklist fields.
func debugObject(c *Client, key []byte) {
	e := c.db.Entry(key) // dictFind: a logically expired key is still shown
	if e == nil {
		c.w.Error(errNoSuchKey)
		return
	}
	v := e.Value()
	refcount := 1
	if s, ok := v.(*store.String); ok && s.Shared() {
		refcount = math.MaxInt32
	}
	serialized := 0
	if b, err := rdb.AppendValue(nil, v, c.srv.persist.compression); err == nil {
		serialized = len(b) - 1 // without the type byte, as rdbSavedObjectLen
	}
	var extra string
	if l, ok := v.(*store.List); ok && l.NodeCount() > 0 {
		fill, depth := l.NodeOptions()
		size := 0
		l.Nodes(func(lp []byte, _ bool) { size += len(lp) })
		extra = fmt.Sprintf(" ql_nodes:%d ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:%d ql_uncompressed_size:%d",
			l.NodeCount(), float64(l.Len())/float64(l.NodeCount()), fill, boolInt(depth != 0), size)
	}
	c.w.Status(fmt.Sprintf("Value at:%p refcount:%d encoding:%s serializedlength:%d lru:%d lru_seconds_idle:%d%s",
		v, refcount, v.Encoding(), serialized, e.Access(), c.srv.store.IdleTime(e)/time.Second, extra))
}

// debugPopulate creates count string keys prefix:N holding value:N (cut
// or padded with zero bytes to size), skipping the keys that exist, as
// Redis's dbAdd: not counted as changes, though watchers and tracking
// hear of them (signalModifiedKey).
func debugPopulate(c *Client, args [][]byte) {
	count, ok := positiveLong(c, args[2])
	if !ok {
		return
	}
	var size int64
	if len(args) == 5 {
		if size, ok = positiveLong(c, args[4]); !ok {
			return
		}
	}
	prefix := "key"
	if len(args) >= 4 {
		prefix = string(cString(args[3]))
	}
	var key, val []byte
	for j := range count {
		key = strconv.AppendInt(append(append(key[:0], prefix...), ':'), j, 10)
		if len(key) > 127 { // snprintf into a 128-byte buffer
			key = key[:127]
		}
		if c.db.Get(key) != nil {
			continue
		}
		val = strconv.AppendInt(append(val[:0], "value:"...), j, 10)
		if size > 0 {
			padded := make([]byte, size)
			copy(padded, val)
			c.db.Add(key, store.NewRawString(padded))
		} else {
			c.db.Add(key, store.NewString(val))
		}
		c.db.ModifiedBy(key, 0)
	}
	c.w.Status("OK")
}

// positiveLong is getPositiveLongFromObjectOrReply, whose one text
// covers a number that does not parse too.
func positiveLong(c *Client, arg []byte) (int64, bool) {
	if n, ok := number.ParseInt(arg); ok && n >= 0 {
		return n, true
	}
	c.w.Error(errPositive)
	return 0, false
}

// debugReload is DEBUG RELOAD: save the RDB (unless NOSAVE), empty the
// keyspace and the functions (unless NOFLUSH), and load the file back;
// MERGE lets the file's keys and libraries replace those in memory. Where
// Redis dies (a key of the file already in memory without MERGE) the load
// stops with an error; a key is never replaced without MERGE.
func debugReload(c *Client, args [][]byte) {
	flush, save, merge := true, true, false
	for _, opt := range args[2:] {
		switch strings.ToLower(string(cString(opt))) {
		case "merge":
			merge = true
		case "noflush":
			flush = false
		case "nosave":
			save = false
		default:
			c.w.Error(errReloadOptions)
			return
		}
	}
	s := c.srv
	if save {
		if err := s.saveRDB(); err != nil {
			c.w.Error("ERR") // shared.err
			return
		}
	}
	if flush {
		s.emptyData()
	}
	if err := s.reloadRDB(merge); err != nil {
		s.log.Warn(err.Error())
		c.w.Error(errReloadLoad)
		return
	}
	s.log.Warn("DB reloaded by DEBUG RELOAD")
	c.w.Status("OK")
}

// emptyData is Redis's emptyData(-1, EMPTYDB_NO_FLAGS): every database
// and the functions, with what FLUSHALL tells watchers, blocked readers
// and tracking clients.
func (s *Server) emptyData() {
	s.store.FlushAll()
	for i := range s.store.Databases() {
		s.keysReadyIn(i)
	}
	s.trackingFlushed()
	s.flushFunctions()
}

// reloadRDB loads dir/dbfilename into the keyspace from inside a command
// (the caller holds the lock): rdbLoad with RDBFLAGS_ALLOW_DUP for merge.
// Keys whose time has passed are skipped, as a master skips them.
func (s *Server) reloadRDB(merge bool) error {
	f, err := os.Open(s.rdbPath())
	if err != nil {
		return fmt.Errorf("Fatal error loading the DB: %s", strerror(err))
	}
	defer f.Close()
	s.store.Refresh()
	function := s.loadFunctionCode
	if merge {
		function = func(code string) error {
			_, err := s.scripting.engine().LoadLibrary(code, true, 0)
			return err
		}
	}
	_, err = rdb.Load(f, s.store, rdb.LoadOptions{Now: s.store.Now(), SkipChecksum: s.skipChecksum(),
		Aux: s.rdbAux, Function: function, AllowDup: merge})
	s.persist.dirtyAtSave = s.store.Dirty()
	return err
}

// debugLoadAOF is DEBUG LOADAOF: write out what the AOF has buffered,
// empty the keyspace, and replay the files of the manifest on disk. With
// no AOF files at all Redis exits; floodgate answers an error and keeps
// the keyspace.
func debugLoadAOF(c *Client) {
	s := c.srv
	a := &s.aof
	if a.on.Load() {
		a.mu.Lock()
		s.aofWriteLocked(true)
		a.mu.Unlock()
	}
	m, err := s.readManifest()
	if err != nil {
		c.w.Error(errLoadAOF)
		return
	}
	files, _, err := s.aofFiles(m)
	if err != nil || len(files) == 0 {
		if err == nil {
			s.log.Warn("DEBUG LOADAOF: no AOF files to load")
		}
		c.w.Error(errLoadAOF)
		return
	}
	s.emptyData()
	a.manifest = m
	s.debug.loadingInCommand = true
	err = s.replayAOF(files)
	s.debug.loadingInCommand = false
	s.persist.dirtyAtSave = s.store.Dirty()
	if err != nil {
		c.w.Error(errLoadAOF)
		return
	}
	s.log.Warn("Append Only File loaded by DEBUG LOADAOF")
	c.w.Status("OK")
}

// debugReplyBuffer is DEBUG REPLYBUFFER PEAK-RESET-TIME <NEVER|RESET|ms>
// and RESIZING <0|1>, the clients cron's reply buffer settings.
func debugReplyBuffer(c *Client, args [][]byte) {
	s := c.srv
	switch strings.ToLower(string(cString(args[2]))) {
	case "peak-reset-time":
		switch v := strings.ToLower(string(cString(args[3]))); v {
		case "never":
			s.replyPeakResetMs.Store(-1)
		case "reset":
			s.replyPeakResetMs.Store(replyBufPeakTime)
		default:
			ms, ok := number.ParseInt(args[3])
			if !ok {
				c.w.Error(errNotInteger)
				return
			}
			s.replyPeakResetMs.Store(ms)
		}
	case "resizing":
		s.replyResizing.Store(cAtoi(args[3]) != 0)
	default:
		subcommandSyntaxError(c, args)
		return
	}
	c.w.Status("OK")
}
