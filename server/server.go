// Package server is floodgate's RESP server: connections (on redcon), the
// command table, dispatch and transactions, and the controls an embedding
// program or test uses (Do, Dial, SetError, Pause, counters); the test double
// built on them is package servertest.
//
// Connections are served concurrently, but commands execute one at a time:
// a connection takes the execution lock once for every batch of pipelined
// commands it has read, runs them all, releases the lock, and redcon flushes
// the replies once. A script or an EXEC block runs inside one batch, so
// nothing is ever interleaved with it.
package server

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate/floodgate/luaengine"
	"github.com/floodgate/floodgate/store"
	"github.com/tidwall/redcon"
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
	// (redcon's model) instead of the epoll event loop, which Linux TCP and
	// Unix-socket connections get by default (loop_linux.go). In-memory
	// connections (Dial) are always served the goroutine way.
	GoroutineConns bool
	// IOThreads is what CONFIG GET io-threads reports (the binary sets
	// GOMAXPROCS from it).
	IOThreads int
	// DisableProtectedMode is protected-mode no. By default, as in Redis,
	// a client not on 127.0.0.1, ::1 or a Unix socket is refused with
	// DENIED while no password is set.
	DisableProtectedMode bool
}

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
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
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
}

// Server is one floodgate server: a keyspace and the connections to it.
// Many may run in one process; they share nothing.
type Server struct {
	cfg   Config
	log   *slog.Logger
	store *store.Store

	// lock is the execution lock: holding it means having sent into it.
	// A channel rather than a mutex so a waiter can also wake on busy.
	lock   chan struct{}
	busyMu sync.Mutex
	busy   chan struct{} // closed while a script is past LuaTimeLimit

	ln        net.Listener
	rs        *redcon.Server
	served    chan struct{} // closed when the accept loop has returned
	stop      chan struct{} // closed by Close
	drained   chan struct{} // closed by Close once connections are gone
	closeDone chan struct{} // closed when Close has finished
	closed    atomic.Bool
	stopped   sync.WaitGroup

	clientsMu    sync.Mutex
	clients      map[*Client]struct{}
	nextClientID atomic.Int64
	totalConns   atomic.Int64

	started   time.Time
	stats     []cmdStat         // by Command.id; guarded by lock
	processed int64             // guarded by lock
	expired   int64             // keys reclaimed by active expiry; guarded by lock
	settings  map[string]string // CONFIG SET values kept for CONFIG GET (cmd_config.go); guarded by lock
	limiter   limiterStats      // CL.THROTTLE decisions by key prefix (limiter_stats.go); guarded by lock

	// Settings CONFIG SET changes while other goroutines read them.
	password      atomic.Pointer[string] // requirepass
	protectedMode atomic.Bool
	maxClients    atomic.Int64
	idleTimeout   atomic.Int64 // timeout, seconds; enforced by the transport
	hz            atomic.Int32
	outputLimits  atomic.Pointer[[3]OutputLimit]
	rejectedConns atomic.Int64
	logLevel      *slog.LevelVar
	binds         []string               // bind's addresses; empty: cfg.Addr's host
	front         *frontListener         // the sockets Start opened (listen.go)
	configFile    string                 // the file CONFIG REWRITE writes; "" for none
	refused       map[*configParam]error // LoadConfig's refusals that a later line may lift

	double testDouble // the test-double API's state (testdouble.go)

	scripting scripting // EVAL, SCRIPT and the script time limit (cmd_scripting.go)

	// loopRunning is the event loop whose connection's batch holds the
	// execution lock, nil otherwise; guarded by lock.
	loopRunning *eventLoop
	loop        atomic.Pointer[eventLoop] // created with the first TCP connection
	// answeringBusy is set while the event loop serves its clients from a
	// busy script's hook: dispatch then answers BUSY where Redis does.
	// Guarded by lock.
	answeringBusy bool
}

// cmdStat is one command's INFO commandstats line.
type cmdStat struct {
	calls, usec, failed, rejected int64
}

// New returns a server that is not yet listening (see Start).
func New(cfg Config) *Server {
	s := Prepare(cfg)
	s.Init()
	return s
}

// Prepare returns a server that LoadConfig may still configure; Init
// then builds its keyspace.
func Prepare(cfg Config) *Server {
	cfg.setDefaults()
	s := &Server{cfg: cfg, logLevel: new(slog.LevelVar)}
	s.setRequirePass(cfg.Password)
	s.protectedMode.Store(!cfg.DisableProtectedMode)
	s.maxClients.Store(10000)
	s.hz.Store(10)
	return s
}

// Init finishes a server Prepare returned, after LoadConfig.
func (s *Server) Init() {
	s.cfg.setDefaults()
	cfg := s.cfg
	initCommandTable()
	prepared := &Server{}
	prepared.password.Store(s.password.Load())
	prepared.protectedMode.Store(s.protectedMode.Load())
	prepared.maxClients.Store(s.maxClients.Load())
	prepared.idleTimeout.Store(s.idleTimeout.Load())
	prepared.hz.Store(s.hz.Load())
	prepared.outputLimits.Store(s.outputLimits.Load())
	*s = Server{
		cfg:        cfg,
		log:        cfg.Logger,
		store:      store.New(cfg.Databases, cfg.Clock),
		settings:   s.settings,
		logLevel:   s.logLevel,
		binds:      s.binds,
		configFile: s.configFile,
		lock:       make(chan struct{}, 1),
		busy:       make(chan struct{}),
		stop:       make(chan struct{}),
		drained:    make(chan struct{}),
		closeDone:  make(chan struct{}),
		served:     make(chan struct{}),
		clients:    make(map[*Client]struct{}),
		stats:      make([]cmdStat, commandTable.count),
		started:    time.Now(),
	}
	s.setRequirePass(*prepared.password.Load())
	s.protectedMode.Store(prepared.protectedMode.Load())
	s.maxClients.Store(prepared.maxClients.Load())
	s.idleTimeout.Store(prepared.idleTimeout.Load())
	s.hz.Store(prepared.hz.Load())
	s.outputLimits.Store(prepared.outputLimits.Load())
	s.initScripting()
	s.scripting.poll = s.scriptPoll
}

// requirePass is the password clients must AUTH with; "" for none.
func (s *Server) requirePass() string { return *s.password.Load() }

// setRequirePass changes the password; clients already authenticated stay
// so, as in Redis.
func (s *Server) setRequirePass(p string) { s.password.Store(&p) }

// Start listens on the configured address and serves in the background.
func (s *Server) Start() error { return s.StartAddr(s.cfg.Addr) }

// Serve serves connections from ln in the background.
func (s *Server) Serve(ln net.Listener) {
	s.ln = ln
	if !s.startLoop(ln) {
		s.rs = redcon.NewServerNetwork("tcp", ln.Addr().String(), s.handle, s.accept, s.closedConn)
		guarded := &guardListener{Listener: ln, srv: s}
		s.stopped.Add(1)
		go func() {
			defer s.stopped.Done()
			defer close(s.served)
			_ = s.rs.Serve(guarded)
		}()
	}
	s.stopped.Add(1)
	go s.expiryLoop()
	s.stopped.Add(1)
	go s.scriptWatch()
	s.stopped.Add(1)
	go s.idleCron()
	s.log.Info("Ready to accept connections", "addr", ln.Addr().String())
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

// Do runs fn with the execution lock held, as a command would run.
func (s *Server) Do(fn func()) {
	s.lock <- struct{}{}
	defer func() { <-s.lock }()
	s.store.Refresh()
	fn()
}

// Close stops accepting connections, lets every batch in flight finish and
// its replies go out, closes every connection and stops background work. It
// is safe to call twice.
func (s *Server) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		// A second caller (the binary after SHUTDOWN closed the server)
		// returns only once the first has finished.
		<-s.closeDone
		return nil
	}
	defer close(s.closeDone)
	close(s.stop)
	if s.ln != nil {
		// guardListener holds the accept error back until drained, because
		// redcon closes every connection as soon as Accept fails.
		s.ln.Close()
	}
	s.wakeLoop()
	// An expired read deadline wakes idle connections and stops busy ones
	// after their current batch: redcon then flushes and closes them itself.
	s.clientsMu.Lock()
	for c := range s.clients {
		if c.conn != nil {
			c.conn.NetConn().SetReadDeadline(time.Unix(1, 0))
		}
	}
	s.clientsMu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for s.clientCount() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // polling the drain, bounded by the deadline
	}
	close(s.drained)
	s.stopped.Wait()
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
func (s *Server) accept(conn redcon.Conn) bool {
	if s.closed.Load() {
		return false
	}
	c := &Client{
		srv:     s,
		id:      s.nextClientID.Add(1),
		conn:    conn,
		db:      s.store.DB(0),
		addr:    conn.RemoteAddr(),
		created: time.Now(),
		authed:  s.requirePass() == "",
	}
	c.resp = &respWriter{conn: conn, proto: 2}
	c.w = c.resp
	conn.SetContext(c)
	if g, ok := conn.NetConn().(*guardConn); ok {
		g.client = c // for the limits on unauthenticated clients
	}
	s.clientsMu.Lock()
	s.clients[c] = struct{}{}
	s.clientsMu.Unlock()
	s.totalConns.Add(1)
	return true
}

func (s *Server) closedConn(conn redcon.Conn, err error) {
	c, _ := conn.Context().(*Client)
	if c == nil {
		return
	}
	s.clientsMu.Lock()
	delete(s.clients, c)
	s.clientsMu.Unlock()
	if len(c.watch.keys) > 0 {
		s.lock <- struct{}{}
		c.unwatchAll()
		<-s.lock
	}
}

// handle is redcon's handler: it takes the execution lock once for the
// command and every further command already read from the connection.
func (s *Server) handle(conn redcon.Conn, cmd redcon.Command) {
	c := conn.Context().(*Client)
	if c.closing {
		return
	}
	if !s.acquire(c, cmd.Args) {
		return
	}
	defer s.release()
	s.execute(c, cmd.Args)
	for _, next := range conn.ReadPipeline() {
		if c.closing {
			break
		}
		s.execute(c, next.Args)
	}
	if c.closing {
		conn.Close()
	}
}

// acquire takes the execution lock for a client about to run args. While a
// script is past its time limit it instead answers as Redis would (check's
// refusals, BUSY among them), or runs a command flagged allow-busy (SCRIPT
// KILL, SHUTDOWN NOSAVE, MULTI) without the lock, and returns false; WATCH,
// UNWATCH, DISCARD and a refused EXEC wait for the lock, as they change
// the watch registry.
func (s *Server) acquire(c *Client, args [][]byte) bool {
	for {
		s.busyMu.Lock()
		busy := s.busy
		s.busyMu.Unlock()
		select {
		case s.lock <- struct{}{}:
			return true
		case <-busy:
			cmd, r := check(c, args, true)
			switch {
			case r != nil && r.viaReject && r.cmd.Name == "exec":
				// EXECABORT discards the transaction and its watches,
				// which needs the lock: answered once the script is done.
				s.lock <- struct{}{}
				s.refuse(c, r, true)
				<-s.lock
			case r != nil:
				s.refuse(c, r, false)
			case waitsWhenBusy(cmd):
				s.lock <- struct{}{}
				return true
			case c.multi != nil && !queuesImmediately(cmd):
				c.queue(cmd, args)
			default:
				cmd.Handler(c, args)
			}
			return false
		}
	}
}

// scriptPoll is the running script's hook (every few thousand
// instructions). When the script is past its time limit and runs on an
// event loop's goroutine, nobody else could serve that loop's clients: the
// loop serves them from here. A server shutting down stops the script.
func (s *Server) scriptPoll() {
	l := s.loopRunning // the script's goroutine holds the lock
	if l == nil || !s.scripting.busy.Load() {
		return
	}
	if s.closed.Load() {
		if e := s.scripting.current(); e != nil {
			e.Abort()
		}
		return
	}
	l.pollBusy()
}

func (s *Server) release() { <-s.lock }

// setBusy is called with true by the script runner when a script passes
// LuaTimeLimit, and with false when it ends.
func (s *Server) setBusy(on bool) {
	s.busyMu.Lock()
	defer s.busyMu.Unlock()
	select {
	case <-s.busy:
		if !on {
			s.busy = make(chan struct{})
		}
	default:
		if on {
			close(s.busy)
		}
	}
}

// execute runs one client command with the lock held.
func (s *Server) execute(c *Client, args [][]byte) {
	if msg := s.double.err.Load(); msg != nil { // SetError
		c.w.Error(*msg)
		return
	}
	s.store.Refresh()
	c.lastActive = time.Now()
	s.dispatch(c, args)
}

// dispatch applies the generic rules of the command table (unknown command,
// arity, authentication, MULTI queueing) and runs the command.
func (s *Server) dispatch(c *Client, args [][]byte) {
	cmd, r := check(c, args, s.answeringBusy)
	if r != nil {
		s.refuse(c, r, true)
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
// processCommand: unknown command, arity, unknown subcommand, NOAUTH, a
// command refused inside MULTI, and, when busy, BUSY for all but the
// allow-busy commands. It returns the command to run, or the refusal. It
// reads only the client and the table, so it needs no lock.
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
			return nil, &refusal{cmd: cmd, msg: sanitizeError(fmt.Sprintf("ERR unknown subcommand '%s'. Try %s HELP.", truncate(args[1], 128), upper(cmd.Name)))}
		}
		if !sub.arityOK(len(args)) {
			return nil, &refusal{cmd: sub, msg: arityError(sub)}
		}
		cmd = sub
	}
	switch {
	case !c.authed && !cmd.Flags.Has(FlagNoAuth):
		return nil, &refusal{cmd: cmd, msg: errNoAuth, viaReject: true}
	case c.multi != nil && cmd.Flags.Has(FlagNoMulti):
		return nil, &refusal{cmd: cmd, msg: "ERR Command not allowed inside a transaction", viaReject: true}
	case busy && !cmd.Flags.Has(FlagAllowBusy):
		return nil, &refusal{cmd: cmd, msg: errBusy, viaReject: true}
	}
	return cmd, nil
}

// refuse answers a refusal. Only a caller holding the execution lock may
// count it (locked) or let EXEC's EXECABORT drop the client's watches.
func (s *Server) refuse(c *Client, r *refusal, locked bool) {
	if locked && r.cmd != nil {
		s.stats[r.cmd.id].rejected++
	}
	if r.viaReject {
		c.reject(r.cmd, r.msg)
		return
	}
	c.w.Error(r.msg)
	c.flagMultiFailed()
}

// invoke runs a resolved command's handler and keeps its statistics. A
// handler that panics is logged and answered with an error; the server and
// the connection go on.
func (s *Server) invoke(c *Client, cmd *Command, args [][]byte) {
	// A monotonic reading only (Since of a Time with one is a single clock
	// read; Now reads the wall clock too): this runs for every command and
	// every redis.call.
	start := time.Since(s.started)
	errsBefore := c.errorCount()
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("command panicked", "command", cmd.Name, "panic", r, "stack", string(debug.Stack()))
			c.w.Error("ERR internal error while running '" + cmd.Name + "'")
		}
		st := &s.stats[cmd.id]
		st.calls++
		st.usec += int64((time.Since(s.started) - start) / time.Microsecond)
		if c.errorCount() != errsBefore {
			st.failed++
		}
		s.processed++
	}()
	c.lastCmd = cmd.Name
	c.cmd = cmd
	cmd.Handler(c, args)
}

func (c *Client) errorCount() int {
	if c.resp == nil {
		return 0
	}
	return c.resp.errors
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
	cp := make([][]byte, len(args))
	for i, a := range args {
		cp[i] = append([]byte(nil), a...)
	}
	c.multi.queued = append(c.multi.queued, cp)
	c.multi.cmds = append(c.multi.cmds, cmd)
	c.w.Status("QUEUED")
}

// expiryLoop reclaims expired keys in the background, a bounded number per
// lock hold so that clients are never stalled for long.
func (s *Server) expiryLoop() {
	defer s.stopped.Done()
	t := time.NewTicker(s.cfg.ActiveExpiryInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		for {
			const chunk = 10000
			s.lock <- struct{}{}
			n := s.store.ActiveExpire(chunk)
			s.expired += int64(n)
			<-s.lock
			if n < chunk {
				break
			}
			select {
			case <-s.stop:
				return
			default:
			}
		}
	}
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
