// Package server is floodgate's RESP server: connections (an epoll event
// loop on Linux, a goroutine per connection for Dial and elsewhere, both
// feeding one parser and one dispatch), the command table, dispatch and
// transactions, and the controls an embedding program or test uses (Do,
// Dial, SetError, Pause, counters); the test double built on them is package
// servertest.
//
// Every connection, whatever moves its bytes (the epoll event loop for TCP
// and Unix sockets on Linux, a goroutine per connection for Dial, non-Linux
// systems and Config.GoroutineConns), has one input buffer, one request
// parser (requestParser, Redis's processMultibulkBuffer) and one output
// buffer (conn). Commands execute one at a time: a connection takes the
// execution lock once for every batch of pipelined requests it has read,
// runs them all through dispatch, releases the lock, and its transport
// writes the replies with one write. A script or an EXEC block runs inside
// one batch, so nothing is ever interleaved with it; while a script is past
// lua-time-limit, its hook serves the other clients in turn, as Redis's
// processEventsWhileBlocked does (Server.acquire).
package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate/floodgate/internal/acl"
	"github.com/floodgate/floodgate/internal/resp"
	"github.com/floodgate/floodgate/internal/transport"
	"github.com/floodgate/floodgate/luaengine"
	"github.com/floodgate/floodgate/store"
)

// Version is the Redis version floodgate reports (and matches): the one
// scripts see as redis.REDIS_VERSION.
const Version = luaengine.Version

// Config holds a server's settings. The zero value is usable: see defaults.
type Config struct {
	Addr      string      // listen address, "127.0.0.1:6379" by default; port 0 picks a free one
	Databases int         // number of databases, 16 by default
	Password  string      // requirepass; empty: no AUTH needed
	Clock     store.Clock // store.RealClock{} by default
	Logger    *slog.Logger

	// ProtoMaxBulkLen is the largest bulk string a client may send (512 MB,
	// as Redis's proto-max-bulk-len).
	ProtoMaxBulkLen int64
	// QueryBufferLimit closes a client whose unparsed input exceeds it (1 GB,
	// as Redis's client-query-buffer-limit).
	QueryBufferLimit int64
	// LuaTimeLimit is how long a script runs before other clients get BUSY.
	LuaTimeLimit time.Duration
	// ActiveExpiryInterval is how often expired keys are reclaimed (100 ms).
	ActiveExpiryInterval time.Duration
	// GoroutineConns serves every connection on a goroutine of its own
	// (transport_goroutine.go) instead of the epoll event loop, which Linux TCP
	// and Unix-socket connections get by default (transport_epoll_linux.go). In-memory
	// connections (Dial) are always served the goroutine way. Either way
	// the bytes go through the same parser and dispatch.
	GoroutineConns bool
	// LoopOwnsProcessor lets the event loop keep a processor (a P) of its
	// own and sleep in epoll_wait on it, one system call a round as in
	// Redis, when GOMAXPROCS leaves one for everything else (transport_epoll_linux.go,
	// wait). The binary sets it and adds a processor to GOMAXPROCS. Left
	// false, as suits a server embedded in a test, the loop parks in Go's
	// netpoller and holds no processor while it waits.
	LoopOwnsProcessor bool
	// IOThreads is what CONFIG GET io-threads reports (the binary sets
	// GOMAXPROCS from it).
	IOThreads int
	// DisableProtectedMode is protected-mode no. By default, as in Redis,
	// a client not on 127.0.0.1, ::1 or a Unix socket is refused with
	// DENIED while no password is set.
	DisableProtectedMode bool

	// Dir and DBFilename name the RDB file that SAVE, BGSAVE, SHUTDOWN and
	// LoadRDB use: the working directory and "dump.rdb" by default.
	Dir        string
	DBFilename string
	// Save is Redis's "save" setting, "<seconds> <changes> ..." pairs
	// ("3600 1 300 100"): a background save starts once that many changes
	// happened in that many seconds, and SHUTDOWN saves. Empty: none, the
	// library's default (cmd/floodgate defaults to Redis's).
	Save string
	// AOF configures the append-only file (off by default); with it on,
	// Start loads the data from it, instead of the RDB.
	AOF AOFConfig
	// LazyAOFManifest makes a Start with the AOF off read no file: the AOF
	// manifest is read when the AOF is turned on or rewritten instead.
	// Redis, and the binary, read it at start, so that a broken manifest
	// stops the server there; a test double (servertest) sets it and
	// opens no file to start.
	LazyAOFManifest bool
	// LoadRDB makes Start load dir/dbfilename (unless the AOF is on), as
	// redis-server does; cmd/floodgate sets it. Start listens first and
	// answers LOADING while it loads, as Redis 7.0.
	LoadRDB bool
}

// discardLogger is the logger of a server given none; one for all, as
// slog loggers are safe for concurrent use.
var discardLogger = slog.New(discardHandler{})

// discardHandler drops every record, and says so (Enabled), so that
// nothing is formatted for it. (slog.DiscardHandler is Go 1.24's.)
type discardHandler struct{}

func (discardHandler) Enabled(context.Context, slog.Level) bool  { return false }
func (discardHandler) Handle(context.Context, slog.Record) error { return nil }
func (d discardHandler) WithAttrs([]slog.Attr) slog.Handler      { return d }
func (d discardHandler) WithGroup(string) slog.Handler           { return d }

func (cfg *Config) setDefaults() {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:6379"
	}
	if cfg.Databases <= 0 {
		cfg.Databases = 16
	}
	if cfg.Clock == nil {
		cfg.Clock = store.RealClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = discardLogger
	}
	if cfg.ProtoMaxBulkLen <= 0 {
		cfg.ProtoMaxBulkLen = 512 << 20
	}
	if cfg.QueryBufferLimit <= 0 {
		cfg.QueryBufferLimit = 1 << 30
	}
	if cfg.LuaTimeLimit <= 0 {
		cfg.LuaTimeLimit = 5 * time.Second
	}
	if cfg.ActiveExpiryInterval <= 0 {
		cfg.ActiveExpiryInterval = 100 * time.Millisecond
	}
	if cfg.DBFilename == "" {
		cfg.DBFilename = "dump.rdb"
	}
	// "" stays "": the working directory, which paths joined to it resolve
	// against when used, as Redis's relative paths do. Resolving it here
	// cost a test double two stat calls (os.Getwd) per start.
	if cfg.Dir != "" {
		if dir, err := filepath.Abs(cfg.Dir); err == nil {
			cfg.Dir = dir
		}
	}
	cfg.AOF.setDefaults()
}

// Server is one floodgate server: a keyspace and the connections to it.
// Many may run in one process; they share nothing.
type Server struct {
	cfg   Config
	log   *slog.Logger
	store *store.Store

	// lock is the execution lock: holding it means having sent into it.
	// A channel rather than a mutex so a waiter can take a busy turn
	// instead (acquire).
	lock chan struct{}
	// busyTurn is where a client waiting for the lock offers its turnDone
	// to a busy script's hook, which receives it, waits for it, and goes
	// on (serveBusyTurns).
	busyTurn chan chan struct{}

	ln      net.Listener
	stop    chan struct{} // closed by Close
	closing sync.Mutex    // held by Close until it has finished
	closed  atomic.Bool
	stopped sync.WaitGroup // the goroutines Close waits for
	bg      background     // starts them (spawn)
	expiry  cron           // expiryCron
	// used and expiryOnUse start a dial-only server's expiry cron with
	// its first use (firstUse).
	used, expiryOnUse atomic.Bool

	clientsMu    sync.Mutex
	clients      map[*Client]struct{}
	nextClientID atomic.Int64
	totalConns   atomic.Int64
	// replyBufShrinks and replyBufExpands are INFO's reply_buffer_shrinks
	// and reply_buffer_expands (cronClientBuffers).
	replyBufShrinks, replyBufExpands atomic.Int64
	// errnoERANGE is whether C's errno would hold ERANGE in Redis, for its
	// one reader, SORT, which tests errno after each strtod without
	// clearing it first: strtod sets it on overflow and never clears it,
	// so a SORT that met "1e400" makes every later numeric SORT of a
	// string that is not int-encoded fail, deterministically, until a new
	// connection's accept leaves EAGAIN there, or a string2d or string2ld
	// argument (ZADD's scores, WEIGHTS, GEO's numbers, timeouts,
	// HINCRBYFLOAT) sets errno to 0 before its own strtod. Redis's other
	// errno writers (ZRANGEBYSCORE's bounds, SCAN's cursor, INCRBYFLOAT,
	// Lua's tonumber, failing system calls) are not modelled.
	errnoERANGE atomic.Bool

	onListening func() // OnListening's

	started time.Time
	// callEnd is when the last command ended, on ioClock's scale (started
	// is ioOffset after ioStart): the event loop stamps a round's replies
	// with it instead of reading the clock again.
	callEnd  atomic.Int64
	ioOffset int64
	// beforeLoad, for tests, runs once the server listens and before the
	// load begins (StartAddr).
	beforeLoad func()
	stats      []cmdStat       // by Command.id, made by stat; guarded by lock
	processed  int64           // guarded by lock
	slowlog    slowlog         // guarded by lock (cmd_slowlog.go)
	latency    latencyTracking // guarded by lock (latency.go)
	latencyMon latencyMonitor  // guarded by lock (latency_monitor.go)
	debug      debugState      // what DEBUG set; guarded by lock (cmd_debug.go)
	// activeChild: a background save or AOF rewrite is running
	// (childChanged), read where the lock is not held.
	activeChild atomic.Bool
	// DEBUG REPLYBUFFER's settings, read by the clients cron: how often a
	// reply buffer's peak is reset (ms; -1 never) and whether buffers are
	// resized at all.
	replyPeakResetMs atomic.Int64
	replyResizing    atomic.Bool
	pause            clientPause   // guarded by lock (pause.go)
	shut             shutdownState // a SHUTDOWN under way (shutdown.go)
	// inst is made by the first sample (sampleStats): inline, its 504 B
	// put the Server past 4 KB, a 4.75 KB allocation per test double.
	inst *instStats // guarded by lock (stats.go)
	// expireCycle is the time active expiry has taken; guarded by lock.
	expireCycle time.Duration
	net         netStats          // stats.go
	expired     int64             // keys reclaimed by active expiry; guarded by lock
	memory      memoryLimit       // maxmemory and eviction (evict.go); guarded by lock
	settings    map[string]string // CONFIG SET values kept for CONFIG GET (cmd_config.go); guarded by lock
	limiter     limiterStats      // CL.THROTTLE decisions by key prefix (limiter_stats.go); guarded by lock
	panics      panicLog          // recovered handler panics (panic_log.go)
	metrics     metricsEndpoint   // metrics-addr's Prometheus endpoint (metrics.go)
	acl         aclState          // users, the ACL LOG (acl.go); guarded by lock

	// Settings CONFIG SET changes while other goroutines read them.
	password        atomic.Pointer[string] // requirepass
	protectedMode   atomic.Bool
	maxClients      atomic.Int64
	idleTimeout     atomic.Int64                // timeout, seconds; enforced by clientsCron
	tcpKeepalive    atomic.Int64                // tcp-keepalive, seconds; set on accepted sockets
	returningMemory atomic.Bool                 // returnMemory is running
	gc              gcTuner                     // the GC percent (gctune.go)
	heapPurge       heapPurge                   // purgeIdleHeap's state (gctune.go)
	nextPurge       atomic.Int64                // unix ns before which purgeIdleHeap waits
	hz              atomic.Int32                // configured hz
	fixedHz         atomic.Bool                 // dynamic-hz no
	cronHz          atomic.Int32                // hz as the clients cron last ran it, INFO's hz
	clientPeaks     atomic.Pointer[clientPeaks] // made by the clients cron (clients_cron.go)
	outputLimits    atomic.Pointer[[3]OutputLimit]
	rejectedConns   atomic.Int64
	errorStats      errorStats     // INFO errorstats, total_error_replies (errorstats.go)
	clientEvict     clientEviction // maxmemory-clients (client_eviction.go)
	logLevel        *slog.LevelVar
	binds           []string               // bind's addresses; empty: cfg.Addr's host
	bindNone        bool                   // bind "": no TCP socket (Redis's bindaddr_count 0)
	front           *transport.Front       // the sockets Start opened (policy: transport_listen.go)
	tls             tlsState               // tls-port and its settings (transport_tls.go)
	configFile      string                 // the file CONFIG REWRITE writes; "" for none
	refused         map[*configParam]error // LoadConfig's refusals that a later line may lift

	// The parsers read these two outside the lock, per bulk header and
	// per read: an atomic load is a plain load on amd64 and arm64.
	protoMaxBulkLen  atomic.Int64 // proto-max-bulk-len
	queryBufferLimit atomic.Int64 // client-query-buffer-limit

	double testDouble // the test-double API's state (testdouble.go)

	scripting scripting // EVAL, SCRIPT and the script time limit (cmd_scripting.go)
	aof       aofState  // the append-only file (aof.go)
	repl      replState // replication, master side (replication.go)
	blocking  blocking  // clients waiting in BLPOP and friends (blocking.go); guarded by lock

	// pubsub is the channels, patterns and their subscribers (pubsub.go);
	// guarded by lock.
	pubsub pubsubRegistry
	// tracking is client-side caching's tables (tracking.go).
	tracking tracking
	// notifyFlags is notify-keyspace-events (notify.go); guarded by the
	// execution lock.
	notifyFlags notifyClass
	// monitors is the clients in MONITOR mode, in the order they
	// entered it (cmd_monitor.go); guarded by lock.
	monitors []*Client

	persist persistence  // RDB files, save points, BGSAVE (persistence.go); guarded by lock
	migrate migratePool  // MIGRATE's cached connections (cmd_migrate.go)
	loading loadingState // loading the data at Start (loading.go)

	// running is the connection whose batch holds the execution lock, nil
	// otherwise; guarded by lock.
	running *conn
	loop    atomic.Pointer[transport.Loop] // created with the first TCP connection (transport_loop.go)
	// bcastConn stands for the event loop as the running connection
	// while it sends a round's BCAST invalidations (host.Broadcast).
	bcastConn *conn
	// answeringBusy is set while a client is answered during a busy script
	// (answerBusy): dispatch then answers BUSY where Redis does. Guarded by
	// lock (a busy turn or the script's hook holds it for the script).
	answeringBusy bool
}

// stat returns the commandstats line of the command with that id. The
// table is made with the first command counted: 11.7 KB that a test double
// started and closed without one does not allocate. Call it with the lock
// held.
func (s *Server) stat(id int) *cmdStat {
	if s.stats == nil {
		s.stats = make([]cmdStat, commandTable.count)
	}
	return &s.stats[id]
}

// cmdStat is one command's INFO commandstats line.
type cmdStat struct {
	calls, usec, failed, rejected int64
	hist                          *hdrHistogram // latency-tracking (latency.go); nil until the first call
}

// New returns a server that is not yet listening (see Start).
func New(cfg Config) *Server {
	s := Prepare(cfg)
	s.Init()
	return s
}

// Prepare returns a server that LoadConfig may still configure; Init
// then builds what depends on the configuration (the keyspace, the
// scripting, the AOF and save points, the slow log), in place. The server
// is allocated once: its configuration directives write its own fields,
// and Init reads them there. (Init used to build a second Server and copy
// the settings over by hand, and a setting it did not copy, such as a
// config file's limiter-prefix-delimiter, was lost.)
func Prepare(cfg Config) *Server {
	cfg.setDefaults()
	s := &Server{
		cfg:      cfg,
		log:      cfg.Logger, // until Init takes SetLogger's
		logLevel: new(slog.LevelVar),
		memory:   memoryLimit{tenacity: defaultTenacity},
		lock:     make(chan struct{}, 1),
		busyTurn: make(chan chan struct{}),
		stop:     make(chan struct{}),
	}
	initCommandTable() // the ACL catalog, for the users a config file defines
	s.initACL()
	// A new registry's default user is already nopass: requirepass ""
	// would clone it to change nothing.
	if cfg.Password != "" {
		s.setRequirePass(cfg.Password)
	} else {
		s.password.Store(&noPassword) // &cfg.Password moved all of cfg (256 B) to the heap
	}
	s.protectedMode.Store(!cfg.DisableProtectedMode)
	s.maxClients.Store(10000)
	s.protoMaxBulkLen.Store(cfg.ProtoMaxBulkLen)
	s.queryBufferLimit.Store(cfg.QueryBufferLimit)
	s.tcpKeepalive.Store(300)
	s.hz.Store(10)
	s.cronHz.Store(10)
	s.replyPeakResetMs.Store(replyBufPeakTime)
	s.replyResizing.Store(true)
	return s
}

// Init finishes a server Prepare returned, after LoadConfig. Call it once.
func (s *Server) Init() {
	s.cfg.setDefaults() // LoadConfig may have cleared a field (dir "")
	cfg := &s.cfg
	initCommandTable()
	s.log = cfg.Logger
	s.store = store.New(cfg.Databases, cfg.Clock)
	s.started = time.Now()
	s.ioOffset = ioTime(s.started)
	s.refused = nil // LoadConfig's, done with
	s.initScripting()
	s.initAOF()
	if err := s.persist.init(cfg, s.started); err != nil {
		s.log.Warn("ignoring the save setting", "save", cfg.Save, "err", err)
	}
	s.initBlocking()
	s.initReplication()
	s.applyEvictionSettings()
	s.applyEncodingSettings()
	s.applyPersistenceSettings()
	s.setNotifyHooks()
	s.initSlowlog()
	s.initLatency()
	s.initTracking()
}

// noPassword is requirepass "": shared, as nothing writes through the
// pointer.
var noPassword string

// requirePass is the password clients must AUTH with; "" for none.
func (s *Server) requirePass() string { return *s.password.Load() }

// setRequirePass changes the password; clients already authenticated stay
// so, as in Redis.
func (s *Server) setRequirePass(p string) {
	s.password.Store(&p)
	s.setDefaultPassword(p)
}

// Start listens on the configured address and serves in the background.
func (s *Server) Start() error { return s.StartAddr(s.cfg.Addr) }

// Serve serves connections from ln in the background. They are accepted
// on a goroutine and then served like those of Start. CloseListener
// closes ln.
func (s *Server) Serve(ln net.Listener) {
	dl := &detachableListener{Listener: ln, stop: s.stop}
	s.double.mu.Lock()
	s.double.listener = dl
	s.double.mu.Unlock()
	if err := s.startMetrics(); err != nil {
		s.log.Warn("Could not listen for metrics: " + err.Error())
	}
	s.serve(dl, nil)
}

// serve serves connections from ln, which is front's when front is not
// nil: the event loop then accepts from front's sockets itself (Linux),
// from the first connection on.
func (s *Server) serve(ln net.Listener, front *transport.Front) {
	s.ln = ln
	// The front's accepting goroutines, if any (GoroutineConns, no event
	// loop), hand their connections over through ln, to the accept loop.
	// When the event loop is to accept, the accept loop starts only if it
	// cannot (acceptFrom): a goroutine started, then woken and waited for
	// by Close, was a fifth of a test double's TCP start and close.
	switch useLoop := transport.LoopAccepts && !s.cfg.GoroutineConns; {
	case front == nil:
		s.startAcceptLoop(ln)
	case useLoop:
		front.Serve(true)
	default:
		front.Serve(false)
		front.StartAcceptLoop()
	}
	if s.idleUntilUsed() {
		s.deferExpiry() // a test double's TCP start: ServeDialOnly
	} else {
		s.startExpiry()
	}
	s.startConfiguredReplication()
	// Else once loaded, as Redis logs it (StartAddr). Enabled first: the
	// address's text alone cost a test double 5% of its start.
	if !s.loading.active.Load() && s.log.Enabled(context.Background(), slog.LevelInfo) {
		s.log.Info("Ready to accept connections", "addr", ln.Addr().String())
	}
}

// startAcceptLoop starts the goroutine that serves the connections ln
// accepts, unless the server is closing.
func (s *Server) startAcceptLoop(ln net.Listener) {
	s.bg.mu.Lock()
	defer s.bg.mu.Unlock()
	if !s.bg.closed {
		s.stopped.Add(1)
		go func() {
			defer s.stopped.Done()
			transport.AcceptLoop(s.host(), ln, s.handoff())
		}()
	}
}

// Addr returns the address the server listens on.
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Store returns the server's keyspace. Use it only while holding the
// execution lock (see Do).
func (s *Server) Store() *store.Store { return s.store }

// Seed resets the generator every random pick of a command draws from
// (SRANDMEMBER, SPOP, HRANDFIELD, ZRANDMEMBER, RANDOMKEY, ...), so the
// picks that follow repeat for the same seed. A server starts with a random
// seed, as Redis's picks are random.
func (s *Server) Seed(seed uint64) { s.Do(func() { s.store.Seed(seed) }) }

// Do runs fn with the execution lock held, as a command would run.
func (s *Server) Do(fn func()) {
	s.firstUse()
	s.lock <- struct{}{}
	s.doLocked(fn)
}

// doLocked is Do once the caller has taken the lock, which it gives back.
func (s *Server) doLocked(fn func()) {
	defer func() { <-s.lock }()
	s.store.Refresh()
	fn()
	if len(s.blocking.ready) > 0 {
		s.serveReady()
	}
	s.trackingBroadcast()
}

// Close stops accepting connections, lets every batch in flight finish and
// its replies go out, closes every connection and stops background work. It
// is safe to call twice.
func (s *Server) Close() error {
	// A second caller (the binary after SHUTDOWN closed the server)
	// returns only once the first has finished.
	s.closing.Lock()
	defer s.closing.Unlock()
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	close(s.stop)
	s.stopMetrics()
	s.migrate.closeAll() // a MIGRATE waiting on its target fails now
	if s.ln != nil {
		s.ln.Close()
	}
	s.closeTLS()
	s.wakeLoop()
	// Goroutine-served connections are woken (an expired read deadline)
	// and stop after their current batch, once its replies are out; the
	// event loop closes its own.
	s.clientsMu.Lock()
	for c := range s.clients {
		c.conn.tr.Interrupt()
	}
	s.clientsMu.Unlock()
	if s.clientCount() > 0 { // most test doubles close with none: no clock read
		deadline := time.Now().Add(5 * time.Second)
		for s.clientCount() > 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond) // polling the drain, bounded by the deadline
		}
	}
	s.stopSpawning()
	s.expiry.stop()
	s.repl.cron.stop()
	s.stopped.Wait()
	s.closeAOF()
	s.closeScripting()
	return nil
}

func (s *Server) clientCount() int {
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	return len(s.clients)
}

// Done is closed when the server has been asked to stop (Close, SHUTDOWN).
func (s *Server) Done() <-chan struct{} { return s.stop }

// accept registers a new connection.
func (s *Server) accept(cn *conn, addr string) bool {
	c := &Client{
		srv:     s,
		id:      s.nextClientID.Add(1),
		conn:    cn,
		db:      s.store.DB(0),
		addr:    addr,
		created: time.Now(),
		authed:  s.acl.open.Load(),
		user:    s.acl.users.Default(),
	}
	c.resp = resp.NewWriter(&cn.reply, cn)
	c.w = c.resp
	cn.client = c
	s.firstUse()
	// Checked under clientsMu, which Close takes after setting closed to
	// wake every client: a client is either refused or woken.
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	if s.closed.Load() {
		return false
	}
	if s.clients == nil {
		s.clients = make(map[*Client]struct{}) // most test doubles never have a client
	}
	s.clients[c] = struct{}{}
	if s.totalConns.Add(1) == 1 {
		s.spawn(s.clientsCron) // nothing to check before the first client
	}
	// Redis's accept loop ends with an accept that fails with EAGAIN.
	s.errnoERANGE.Store(false)
	return true
}

// killClient ends another client for CLIENT KILL, with the execution lock
// held, so the victim is not running. Redis frees the victim at once
// (freeClient), so the killer's next command no longer sees it in CLIENT
// LIST or connected_clients, and a push cannot serve it if it was blocked
// (go-redis's ClientKillByFilter test lists the clients right after
// killing): it leaves the client table and the blocking queues here, not
// when its transport gets round to closing the socket. Its watched keys
// go with closedConn, which reads them on the transport's goroutine.
func (s *Server) killClient(c *Client) {
	cn := c.conn
	cn.killed.Store(true)
	s.clientsMu.Lock()
	delete(s.clients, c)
	s.clientsMu.Unlock()
	s.forgetClientMemory(c)
	s.clientGone(c)
	s.dropSubscriptions(c)
	s.disableTracking(c)
	s.stopMonitoring(c)
	s.replicaGone(c)
	cn.tr.Kill()
}

// closedConn unregisters a connection its transport has closed. It runs on
// the transport's goroutine, outside any batch.
func (s *Server) closedConn(cn *conn) {
	c := cn.client
	cn.releaseTransient()
	s.clientsMu.Lock()
	delete(s.clients, c)
	s.clientsMu.Unlock()
	s.forgetClientMemory(c)
	if len(c.watch.keys) > 0 || cn.blocked || c.pubsub != nil || c.tracking != nil || c.monitor || c.replica != nil {
		h := s.acquire(cn.turnDone)
		c.unwatchAll()
		s.clientGone(c)
		s.dropSubscriptions(c)
		s.disableTracking(c)
		s.stopMonitoring(c)
		s.replicaGone(c)
		s.releaseHold(h, cn.turnDone)
	}
	cn.releaseOutput()
}

// hold is what a batch of requests runs under.
type hold uint8

const (
	holdNone hold = iota
	holdLock      // the execution lock
	holdTurn      // a busy turn, granted by a busy script's hook
	holdHook      // inside a busy script's hook, whose goroutine holds the lock
)

// acquire takes the execution lock for a batch. While a script is past
// its time limit its hook (scriptPoll) hands out busy turns instead: the
// script waits in the hook while the batch runs, so nothing else touches
// the keyspace meanwhile, and the batch is answered as Redis answers while
// busy (answerBusy). Whichever comes first is taken, so a client waiting on
// a busy script, whatever its transport and wherever the script runs, is
// answered at once, as in Redis, where the script's own event loop serves
// every client (processEventsWhileBlocked). done is the caller's turnDone.
func (s *Server) acquire(done chan struct{}) hold {
	select {
	case s.lock <- struct{}{}:
		return holdLock
	default:
	}
	select {
	case s.lock <- struct{}{}:
		return holdLock
	case s.busyTurn <- done:
		return holdTurn
	}
}

// releaseHold ends what acquire (or a hook) gave.
func (s *Server) releaseHold(h hold, done chan struct{}) {
	switch h {
	case holdLock:
		<-s.lock
	case holdTurn:
		done <- struct{}{}
	}
}

// maxBusyTurns bounds the turns one hook call grants, so clients that keep
// sending cannot keep a script from going on (or from being killed).
const maxBusyTurns = 64

// serveBusyTurns runs in a busy script's hook: each client waiting for the
// execution lock runs its batch in turn while the script waits.
func (s *Server) serveBusyTurns() {
	for range maxBusyTurns {
		select {
		case done := <-s.busyTurn:
			<-done
		default:
			return
		}
	}
}

// scriptPoll is the running script's hook (every 1024 instructions). Once
// the script is past its time limit, the clients of its event loop (when
// it runs on one: nobody else could read them) and those waiting for the
// lock are served from here, as Redis's processEventsWhileBlocked serves
// them. A server shutting down stops the script.
func (s *Server) scriptPoll() {
	s.scripting.wakeWatch()
	if !s.scripting.busy.Load() {
		return
	}
	s.logSlowScript()
	if s.closed.Load() {
		if e := s.scripting.current(); e != nil {
			e.Abort()
		}
		return
	}
	if r := s.running; r != nil {
		if p, ok := r.tr.(transport.BusyPoller); ok { // the script's goroutine holds the lock
			p.PollBusy()
		}
	}
	s.serveBusyTurns()
}

// answerBusy answers a request while a script is past its time limit,
// through the ordinary dispatch, which then refuses what Redis refuses in
// the order of processCommand: an unknown command, a wrong arity or NOAUTH
// is told so, EXEC gets EXECABORT, the allow-busy commands (SCRIPT KILL,
// SHUTDOWN NOSAVE, MULTI, WATCH, UNWATCH, DISCARD) run, and the rest get
// BUSY. The keyspace keeps the script's time snapshot.
func (s *Server) answerBusy(c *Client, args [][]byte) {
	s.answeringBusy = true
	s.dispatch(c, args)
	s.answeringBusy = false
}

// execute runs one client command with the lock held.
func (s *Server) execute(c *Client, args [][]byte) { s.executeFrom(c, args, nil) }

// executeFrom is execute, which runs a long request the parser returned as
// LongArgs from them (long) too, args being then its first
// slowlogMaxArgs, once runsLong has said it could.
func (s *Server) executeFrom(c *Client, args [][]byte, long *resp.LongArgs) {
	if msg := s.double.err.Load(); msg != nil { // SetError
		c.w.Error(*msg)
		return
	}
	s.store.Refresh()
	// Redis's expireIfNeeded under a pause, and on a replica, which leaves
	// expiring to its master's DELs.
	s.store.HoldExpired = s.paused() != pauseNone || s.repl.master != nil
	s.tracking.current = c
	if long != nil {
		cmd := commandTable.lookup(args[0])
		c.lastCmd = cmd.Name
		s.call(c, cmd, args, long)
	} else {
		s.dispatch(c, args)
	}
	if len(s.blocking.ready) > 0 {
		s.serveReady()
	}
	s.afterCommandEviction(c)
	s.tracking.current = nil
	if t := c.tracking; t != nil && t.caching && c.multi == nil && !eqFold(args[0], "client") {
		t.caching = false // as resetClient: CLIENT CACHING is for the next command or transaction
	}
}

// runsLong reports whether a long request, held as LongArgs, can run
// from them: its command takes them, its arity is right, and no step of
// dispatch and call would read its arguments as slices or refuse it. Each
// condition is such a step in the plain case: the ACL's key check, MULTI's
// queue, maxmemory's and min-replicas' and MISCONF's refusals, a replica's
// or a paused server's, the subscribed and loading states, then the AOF
// and replicas (propagation), MONITOR, client tracking, an open snapshot
// (preWrite). Otherwise the request gets its slices and runs as any other.
func (s *Server) runsLong(c *Client, long *resp.LongArgs) bool {
	cur := long.Cursor()
	cmd := commandTable.lookup(cur.Next())
	if cmd == nil || cmd.LongHandler == nil || !cmd.arityOK(long.Len()) {
		return false
	}
	u := c.aclUser()
	return s.double.err.Load() == nil && !s.answeringBusy && !c.mustAuth() && c.multi == nil &&
		(u == nil || u.Unrestricted()) && s.memory.max == 0 && s.tracking.clients == 0 &&
		s.tracking.keys == nil && s.diskError() == "" && s.repl.minReplicas == 0 &&
		s.repl.master == nil && !c.subscribed() && !s.loading.active.Load() && !c.monitor &&
		s.pause.mode == pauseNone && !s.propagating() && len(s.monitors) == 0 &&
		!s.store.Snapshotting()
}

// dispatch applies the generic rules of the command table (unknown command,
// arity, authentication, MULTI queueing) and runs the command.
func (s *Server) dispatch(c *Client, args [][]byte) {
	cmd, r := check(c, args, s.answeringBusy)
	// processCommand sets lastcmd at the lookup, before any refusal: the
	// command for an arity error, NULL (CLIENT LIST cmd=) for an unknown one.
	looked := cmd
	if r != nil {
		looked = r.cmd
	}
	c.lastCmd = ""
	if looked != nil {
		c.lastCmd = looked.Name
	}
	if r != nil {
		s.refuse(c, r, args)
		return
	}
	if s.memory.max > 0 && !s.answeringBusy && s.refuseOOM(c, cmd, args) {
		return
	}
	if s.tracking.clients > 0 { // as processCommand, before every command
		s.trackingLimit()
	}
	// After the OOM check, as in processCommand: MISCONF once a background
	// save has failed (stop-writes-on-bgsave-error) or while the AOF
	// cannot be written.
	if msg := s.diskError(); msg != "" && (cmd.Name == "ping" || isWrite(c, cmd, args)) {
		s.refuse(c, &refusal{cmd: cmd, msg: msg, viaReject: true}, args)
		return
	}
	// Then min-replicas-to-write (checkGoodReplicasStatus), and a
	// replica's READONLY and MASTERDOWN.
	if s.repl.minReplicas > 0 && s.repl.master == nil && isWrite(c, cmd, args) {
		if msg := s.noReplicasError(); msg != "" {
			s.refuse(c, &refusal{cmd: cmd, msg: msg, viaReject: true}, args)
			return
		}
	}
	if s.repl.master != nil {
		if msg := s.replicaRefusal(c, cmd, args); msg != "" {
			s.refuse(c, &refusal{cmd: cmd, msg: msg, viaReject: true}, args)
			return
		}
	}
	// As in processCommand: a RESP2 client subscribed to anything may
	// only (un)subscribe, PING, QUIT and RESET.
	if c.pubsub != nil && c.subscribed() && c.protocol() == 2 && !allowedSubscribed(cmd) {
		s.refuse(c, &refusal{cmd: cmd, msg: sanitizeError("ERR Can't execute '" + cmd.FullName() + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"), viaReject: true}, args)
		return
	}
	if s.loading.active.Load() && denyLoading(c, cmd) {
		s.refuse(c, &refusal{cmd: cmd, msg: errLoading, viaReject: true}, args)
		return
	}
	// After the BUSY check, as in processCommand: a monitor is a replica
	// to Redis, which may not touch the keyspace.
	if refusesMonitor(c, cmd) {
		s.refuse(c, &refusal{cmd: cmd, msg: errReplicaKeyspace, viaReject: true}, args)
		return
	}
	// Last before running or queueing, as in processCommand: a client
	// that can wait (not a script's, not in-process, not a replica or monitor)
	// waits for the pause.
	if s.pause.mode != pauseNone && c.conn != nil && !c.monitor && !c.isReplica() && s.postpones(c, cmd, args) {
		s.postpone(c)
		return
	}
	if c.multi != nil && !queuesImmediately(cmd) {
		c.queue(cmd, args)
		return
	}
	s.invoke(c, cmd, args)
}

// refusal is a request the command table's generic checks refuse.
type refusal struct {
	cmd       *Command // counted as rejected in commandstats; nil for an unknown command
	msg       string
	viaReject bool // answered by Client.reject: EXEC's EXECABORT ends the transaction
}

// check applies the command table's generic checks in the order of Redis's
// processCommand: unknown command, arity, unknown subcommand, DEBUG unless
// enable-debug-command allows the client, NOAUTH, a
// command refused inside MULTI, and, when busy, BUSY for all but the
// allow-busy commands, with the ACL check (which logs a denial) before
// BUSY as in processCommand. It returns the command to run, or the
// refusal. It runs under the execution lock, for the ACL's users and log.
func check(c *Client, args [][]byte, busy bool) (*Command, *refusal) {
	cmd := commandTable.lookup(args[0])
	if cmd == nil {
		return nil, &refusal{msg: unknownCommandError(args)}
	}
	if !cmd.arityOK(len(args)) {
		return nil, &refusal{cmd: cmd, msg: arityError(cmd), viaReject: true}
	}
	// A container with no subcommand named (plain COMMAND) runs its own handler.
	if len(cmd.Subcommands) > 0 && len(args) > 1 {
		sub := cmd.subcommand(args[1])
		if sub == nil {
			// Not counted as the container's rejected call: Redis's
			// lookupCommand finds no command.
			return nil, &refusal{msg: sanitizeError(fmt.Sprintf("ERR unknown subcommand '%s'. Try %s HELP.", truncate(args[1], 128), upper(cmd.Name)))}
		}
		if !sub.arityOK(len(args)) {
			return nil, &refusal{cmd: sub, msg: arityError(sub)}
		}
		cmd = sub
	}
	// Right after the arity, as processCommand's CMD_PROTECTED check.
	if cmd.Name == "debug" && !c.allowedProtected("enable-debug-command") {
		return nil, &refusal{cmd: cmd, msg: errDebugNotAllowed, viaReject: true}
	}
	switch {
	// Once the default user is nopass again, a client that never
	// authenticated is served, as in Redis (authRequired reads the default
	// user's flags).
	case !cmd.Flags.Has(FlagNoAuth) && c.mustAuth():
		return nil, &refusal{cmd: cmd, msg: errNoAuth, viaReject: true}
	case c.multi != nil && cmd.Flags.Has(FlagNoMulti):
		return nil, &refusal{cmd: cmd, msg: "ERR Command not allowed inside a transaction", viaReject: true}
	}
	if c.user != nil {
		ctx := acl.CtxToplevel
		if c.multi != nil {
			ctx = acl.CtxMulti
		}
		if d, _ := c.srv.aclCheck(c, cmd, args, ctx); d != acl.OK {
			return nil, &refusal{cmd: cmd, msg: aclDenialMessage(cmd, d), viaReject: true}
		}
	}
	switch {
	case busy && !cmd.Flags.Has(FlagAllowBusy):
		return nil, &refusal{cmd: cmd, msg: c.srv.busyError(), viaReject: true}
	}
	return cmd, nil
}

// refuse answers a refusal and counts it as rejected in commandstats. A
// refused EXEC is still shown to the monitors (execCommandAbort), so that a
// transaction they saw start is seen to end.
func (s *Server) refuse(c *Client, r *refusal, args [][]byte) {
	if r.cmd != nil {
		s.stat(r.cmd.id).rejected++
	}
	if r.viaReject {
		c.reject(r.cmd, r.msg)
		if r.cmd.Name == "exec" && len(s.monitors) > 0 {
			s.feedMonitors(c, r.cmd, args)
		}
	} else {
		c.w.Error(r.msg)
		c.flagMultiFailed()
	}
}

// invoke runs a resolved command's handler and keeps its statistics. A
// handler that panics is logged and answered with an error; the server and
// the connection go on.
func (s *Server) invoke(c *Client, cmd *Command, args [][]byte) { s.call(c, cmd, args, nil) }

// call is invoke, which runs a long request from its LongArgs (long) too,
// as execute does.
func (s *Server) call(c *Client, cmd *Command, args [][]byte, long *resp.LongArgs) {
	argc := len(args)
	if long != nil {
		argc = long.Len()
	}
	// A monotonic reading only (Since of a Time with one is a single clock
	// read; Now reads the wall clock too): this runs for every command and
	// every redis.call.
	start := time.Since(s.started)
	s.errorStats.callStarts()
	// Logging to the AOF: a command that changed the keyspace (Redis's
	// server.dirty) is queued, and the outermost command moves the queue
	// to the feed once everything it ran is done.
	logging := s.propagating()
	var dirty int64
	var outerArgs [][]byte
	var outerNone, outerForce bool
	if logging {
		s.aof.prop.depth++
		dirty = s.store.Dirty()
		outerArgs, outerNone, outerForce = c.propArgs, c.propNone, c.propForce // a script's redis.call may run as c
		c.propArgs, c.propNone, c.propForce = nil, false, false
	}
	tk := &s.tracking
	outerCaller, outerCmd, outerTopArgs := tk.caller, tk.topCmd, tk.topArgs
	tk.caller = c
	if !c.inScript {
		tk.topCmd, tk.topArgs = cmd, args
	}
	tk.depth++
	defer func() {
		if r := recover(); r != nil {
			s.panics.note(s.log, cmd.Name, r)
			c.w.Error("ERR internal error while running '" + cmd.Name + "'")
		}
		// After the command ran, as call() feeds the monitors.
		if len(s.monitors) > 0 && monitored(cmd) {
			s.feedMonitors(c, cmd, args)
		}
		if tk.keys != nil {
			s.trackingAfterCall(c, cmd)
		}
		tk.depth--
		tk.caller, tk.topCmd, tk.topArgs = outerCaller, outerCmd, outerTopArgs
		end := time.Since(s.started)
		s.callEnd.Store(s.ioOffset + int64(end))
		micros := int64((end - start) / time.Microsecond)
		// As call()'s CMD_CALL_SLOWLOG: not for the commands an AOF load
		// replays (Redis runs them without call()).
		if s.latencyMon.threshold.Load() > 0 && !s.loading.active.Load() {
			if cmd.Flags&FlagFast != 0 {
				s.latencyEvent("fast-command", micros/1000)
			} else {
				s.latencyEvent("command", micros/1000)
			}
		}
		st := s.stat(cmd.id)
		st.calls++
		st.usec += micros
		if s.errorStats.callFailed() {
			st.failed++
		}
		// A command that blocked gets its latency and slow log entry when a
		// push serves it (servedStats), as in Redis.
		if w := c.blockedOn; w != nil && c.isBlocked() {
			w.micros = micros
			w.args = make([][]byte, len(args))
			for i, a := range args {
				w.args[i] = bytes.Clone(a)
			}
		} else {
			s.recordCall(c, cmd, args, argc, st, micros)
		}
		s.processed++
		if logging {
			s.aof.prop.depth--
			if s.store.Dirty() != dirty || c.propForce {
				s.propagated(c, cmd, args)
			}
			c.propArgs, c.propNone, c.propForce = outerArgs, outerNone, outerForce
			if s.aof.prop.depth == 0 {
				s.propagatePending(true)
			}
		}
		// afterCommand: once the outermost command is done (and logged),
		// the invalidations it made for its own client.
		if tk.depth == 0 && len(tk.pending) > 0 {
			s.flushPendingInvalidations()
		}
		c.woff = s.repl.offset
		if s.repl.getackWanted {
			s.requestAcks() // after woff, as Redis feeds it in beforeSleep
		}
	}()
	c.lastCmd = cmd.Name
	c.cmd = cmd
	counting := s.store.CountLookups(cmd.readsKeys)
	defer s.store.CountLookups(counting)
	if cmd.Flags&(FlagWrite|FlagMayReplicate) != 0 && s.store.Snapshotting() {
		preWrite(c, cmd, args)
	}
	if long != nil {
		cmd.LongHandler(c, long)
		return
	}
	cmd.Handler(c, args)
}

// recordCall puts a call's time in its latency histogram and, past the
// threshold, the slow log: for a command when it returns, or for a blocked
// one when a push serves it (servedStats).
func (s *Server) recordCall(c *Client, cmd *Command, args [][]byte, argc int, st *cmdStat, micros int64) {
	if s.latency.tracking {
		s.recordLatency(st, micros)
	}
	if sl := s.slowlog.slower; sl >= 0 && micros >= sl && cmd.Flags&FlagSkipSlowlog == 0 {
		s.slowlogPush(c, cmd, args, argc, micros)
	}
}

// preWrite lets an open snapshot (a BGSAVE in progress) keep the values a
// write command (or PFCOUNT, which rewrites its cache: may_replicate) may
// change in place, before it runs: the keys at the
// table's key positions, or, for commands whose keys move (SORT ... STORE,
// ZUNIONSTORE), every argument that names a key. Scripts and EXEC reach
// here once per command they run.
func preWrite(c *Client, cmd *Command, args [][]byte) {
	first, last, step := cmd.FirstKey, cmd.LastKey, cmd.Step
	if first <= 0 || cmd.Flags.Has(FlagMovableKeys) {
		first, last, step = 1, -1, 1
	}
	if last < 0 {
		last += len(args)
	}
	for i := first; i <= last && i < len(args); i += max(step, 1) {
		c.db.PreWrite(args[i])
	}
}

func (c *Client) flagMultiFailed() {
	if c.multi != nil {
		c.multi.failed = true
	}
}

// queuesImmediately reports whether cmd runs even inside MULTI instead of
// being queued.
func queuesImmediately(cmd *Command) bool {
	switch cmd.Name {
	case "exec", "discard", "multi", "watch", "quit", "reset":
		return true
	}
	return false
}

// queue adds a command to the client's MULTI block.
func (c *Client) queue(cmd *Command, args [][]byte) {
	c.lastCmd = cmd.Name // processCommand set lastcmd before queueing it: CLIENT LIST cmd=
	cp := make([][]byte, len(args))
	for i, a := range args {
		// Never nil: commands tell an absent argument from an empty one.
		cp[i] = append(make([]byte, 0, len(a)), a...)
	}
	c.multi.queued = append(c.multi.queued, cp)
	for _, a := range args {
		c.multi.mem += int64(len(a)) + 8
	}
	c.multi.cmds = append(c.multi.cmds, cmd)
	f := commandFlags(c, cmd, args)
	c.multi.flags |= f
	c.multi.notStale = c.multi.notStale || !f.Has(FlagStale)
	c.w.Status("QUEUED")
}

// expiryCron reclaims expired keys in the background (and checks the save
// points, saveCron) every ActiveExpiryInterval, a bounded number of keys
// per lock hold so that clients are never stalled for long.
func (s *Server) expiryCron() {
	// Redis's serverCron does not run while it loads: no save point,
	// no expiry on a half-loaded keyspace.
	if s.loading.active.Load() {
		return
	}
	s.saveCron()
	first := true
	for {
		const chunk = 10000
		s.lock <- struct{}{}
		began := time.Now()
		more := false
		// CLIENT PAUSE pauses expiry too; a replica's master expires its
		// keys; DEBUG SET-ACTIVE-EXPIRE 0 stops it.
		if s.paused() == pauseNone && !s.loading.active.Load() && s.repl.master == nil && !s.debug.noActiveExpire {
			_, more = s.store.ActiveExpire(chunk)
		}
		if len(s.blocking.ready) > 0 {
			s.serveReady() // an expired stream's XREADGROUP readers fail now, as beforeSleep does
		}
		s.expireCycle += time.Since(began)
		s.latencySince("expire-cycle", began) // a chunk is floodgate's activeExpireCycle
		if first {
			s.sampleStats(time.Now())
			first = false
		}
		s.usedMemory() // INFO's used_memory_peak, as Redis's cron samples it
		s.tuneGC()
		if s.tracking.clients > 0 { // serverCron's, for a CONFIG SET on an idle server
			s.trackingLimit()
		}
		s.trackingBroadcast()
		s.propagatePending(false)
		<-s.lock
		if !more {
			return
		}
		select {
		case <-s.stop:
			return
		default:
		}
	}
}

// startExpiry starts the expiry cron.
func (s *Server) startExpiry() {
	s.expiry.start(func() time.Duration { return s.cfg.ActiveExpiryInterval }, s.expiryCron)
}

func upper(s string) string {
	b := []byte(s)
	for i, ch := range b {
		if 'a' <= ch && ch <= 'z' {
			b[i] = ch - ('a' - 'A')
		}
	}
	return string(b)
}

// ErrServerClosed is returned by operations on a closed server.
var ErrServerClosed = errors.New("floodgate: server closed")
