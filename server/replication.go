package server

// The master side of Redis 7.0's replication (replication.c): replicas
// attach with SYNC or PSYNC, get a full resync (an RDB from a snapshot,
// then the stream from the snapshot's offset) or a partial one from the
// backlog, and are fed the same commands the AOF is, from the same
// propagation point (propagatePending), with their own SELECTs. The
// backlog and the IDs are package replication's.

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate/floodgate/aof"
	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/rdb"
	"github.com/floodgate/floodgate/replication"
	"github.com/floodgate/floodgate/store"
)

// replState is the server's replication state, guarded by the execution
// lock (active is also read without it).
type replState struct {
	id, id2      string // master_replid, master_replid2
	offset       int64  // master_repl_offset: stream bytes fed so far
	secondOffset int64  // second_repl_offset: -1, or where id2's history ends
	backlog      *replication.Backlog
	// active: a backlog exists, so commands are propagated for the stream
	// even with the AOF off (Redis feeds the backlog once it exists).
	active atomic.Bool
	// feed encodes the stream; its selected database is Redis's
	// slaveseldb (Reselect: -1, the next command gets a SELECT).
	feed     aof.Feed
	replicas []*replicaLink
	waits    []*waiter // WAIT clients, oldest first (clients_waiting_acks)
	// getackWanted: a WAIT asked for ACKs, fed once the command is over
	// (so the GETACK is after the offset it waits for); getackAt is the
	// offset at which REPLCONF GETACK was last fed, so WAITs at one offset
	// ask once.
	getackWanted bool
	getackAt     int64

	cron      cron
	cronOn    bool
	cronLoops int64
	cronTicks int64 // cron runs, counting the 100 ms ones of a failover
	// noReplicasSince is when the last replica left (repl_no_slaves_since),
	// for repl-backlog-ttl.
	noReplicasSince time.Time

	syncFull, syncPartialOK, syncPartialErr int64

	replSettings

	// cachedMasterDB is the database the master's stream had selected at
	// the offset of the RDB a replica started from (repl-stream-db), for
	// the master client of its first link.
	cachedMasterDB int

	// master is the link to this server's master; nil on a master.
	// configuredMaster: the replicaof directive names one, not started yet.
	master           *masterLink
	configuredMaster atomic.Bool // read by serve without the lock

	// failover is a FAILOVER under way (failover.go); failoverOn is
	// its state != noFailover, for the cron's interval.
	failover   failover
	failoverOn atomic.Bool
}

// replicaState is a replica's place in its synchronization
// (SLAVE_STATE_*).
type replicaState uint8

const (
	replicaNone            replicaState = iota // only REPLCONF so far
	replicaWaitBgsaveStart                     // a full resync waits for a snapshot
	replicaWaitBgsaveEnd                       // its RDB is being made; the stream is kept for it
	replicaOnline                              // fed the stream
)

// replicaLink is what a master knows of one replica connection.
type replicaLink struct {
	c             *Client
	state         replicaState
	listeningPort int64  // REPLCONF listening-port
	addr          string // REPLCONF ip-address, or ""
	capaEOF       bool   // REPLCONF capa eof: takes a diskless ($EOF:) payload
	capaPsync2    bool   // REPLCONF capa psync2: +CONTINUE <replid>
	rdbOnly       bool   // REPLCONF rdb-only 1
	prePsync      bool   // attached with SYNC: no offsets, no ACKs
	// pending is the stream fed while its RDB is made or sent, written
	// after it; startOnAck holds it (and the stream) until the first ACK
	// after a diskless payload, as Redis 7.0's repl_start_cmd_stream_on_ack:
	// a replica that looks for the EOF mark at the end of what it read
	// must not read stream bytes with it.
	pending    []byte
	startOnAck bool
	ackOffset  int64 // repl_ack_off
	ackTime    time.Time
	arrived    time.Time // when it asked to sync (for the diskless delay)
}

// Replication errors, as Redis 7.0 words them.
const (
	errNoReplicas     = "NOREPLICAS Not enough good replicas to write."
	errSyncPending    = "ERR SYNC and PSYNC are invalid with pending output"
	errReplicaKeyless = "ERR Replica can't interact with the keyspace"
)

// initReplication gives the server its replication ID and settings'
// defaults (those a config file set are applied already).
func (s *Server) initReplication() {
	r := &s.repl
	r.id, r.id2, r.secondOffset = replication.NewID(), replication.NoID, -1
	set := false
	if len(s.settings) > 0 { // none: a server given no directive
		for name := range replicationParams {
			set = set || s.isSet(name)
		}
	}
	if !set {
		// The defaults, worked out once: applying them stored seven
		// defaults in a settings map each test double made for them.
		r.replSettings = replDefaults()
		return
	}
	for name, p := range replicationParams {
		if !s.isSet(name) && p.apply != nil {
			p.apply(s, configByName[name].def)
		}
	}
}

// propagating reports whether changes to the keyspace are propagated:
// to the AOF, or to the replication stream.
func (s *Server) propagating() bool {
	// A load inside a command (DEBUG LOADAOF) replays commands that
	// must not be fed again, as Redis propagates nothing while loading.
	return (s.aof.on.Load() || s.repl.active.Load()) && !s.debug.loadingInCommand
}

// replicationFeed appends stream bytes: to the backlog, to the online
// replicas, and to those whose RDB is in the making, after it
// (replicationFeedSlaves).
func (s *Server) replicationFeed(b []byte) {
	r := &s.repl
	if r.backlog == nil || len(b) == 0 {
		return
	}
	r.backlog.Append(b)
	r.offset += int64(len(b))
	for _, l := range r.replicas {
		switch {
		case l.state == replicaOnline && !l.startOnAck:
			s.sendToReplica(l, b)
		case l.state == replicaWaitBgsaveEnd, l.state == replicaOnline:
			l.pending = append(l.pending, b...)
		}
	}
}

// feedCommand feeds one command run against db (-1: whatever database the
// stream has selected, as the master's PINGs) to the stream.
func (s *Server) feedCommand(db int, args ...[]byte) {
	f := &s.repl.feed
	if db >= 0 {
		f.Select(db)
	}
	f.Buf = aof.AppendCommand(f.Buf, args...)
	s.replicationFeed(f.Buf)
	f.Buf = f.Buf[:0]
}

// replicateScript feeds SCRIPT LOAD body to the replicas of a master: the
// one difference from Redis 7.0's stream, which replicates only scripts'
// effects, so that a promoted replica answers EVALSHA instead of NOSCRIPT.
func (s *Server) replicateScript(body []byte) {
	if s.scriptsReachReplicas() {
		s.feedCommand(-1, []byte("SCRIPT"), []byte("LOAD"), body)
	}
}

// scriptsReachReplicas reports whether newly cached scripts are fed to
// the stream: on a master with a backlog (a replica proxies its master's).
func (s *Server) scriptsReachReplicas() bool { return s.repl.active.Load() && s.repl.master == nil }

// feedScriptLoads feeds SCRIPT LOAD of every cached script to the stream
// for a replica's full sync (its RDB, as Redis 7.0's, holds none), counted
// in the offset like any command. A replica, whose stream is its master's
// byte for byte (bytes of its own would put its replicas' offsets ahead
// of the master's), asks its master to feed them instead, up to the top of
// the chain (REPLCONF script-loads).
func (s *Server) feedScriptLoads() {
	if l := s.repl.master; l != nil {
		l.askScriptLoads()
		return
	}
	if loads := s.scriptLoads(); len(loads) > 0 {
		s.replicationFeed(loads)
	}
}

// scriptLoads is SCRIPT LOAD of every cached script.
func (s *Server) scriptLoads() []byte {
	var b []byte
	for _, body := range s.cachedScripts() {
		b = aof.AppendCommand(b, []byte("SCRIPT"), []byte("LOAD"), []byte(body))
	}
	return b
}

// sendToReplica writes bytes to a replica's connection; one over its
// output buffer limit (client-output-buffer-limit replica) is closed.
func (s *Server) sendToReplica(l *replicaLink, b []byte) {
	if !s.deliver(l.c, b) {
		s.logOutputLimit(l.c)
		s.killClient(l.c)
	}
}

// link is the client's replica link, made at its first REPLCONF.
func (c *Client) link() *replicaLink {
	if c.replica == nil {
		c.replica = &replicaLink{c: c}
	}
	return c.replica
}

// isReplica reports whether the client is an attached replica
// (CLIENT_SLAVE).
func (c *Client) isReplica() bool { return c.replica != nil && c.replica.state != replicaNone }

// cmdReplconf is replconfCommand: the options a replica sets before PSYNC,
// and ACK (never answered) and GETACK once attached.
func cmdReplconf(c *Client, args [][]byte) {
	if len(args)%2 == 0 {
		c.w.Error(errSyntax)
		return
	}
	s := c.srv
	for j := 1; j < len(args); j += 2 {
		opt, v := strings.ToLower(string(args[j])), args[j+1]
		switch opt {
		case "listening-port":
			n, ok := intArg(c, v)
			if !ok {
				return
			}
			c.link().listeningPort = n
		case "ip-address":
			if len(v) >= 256 { // NET_HOST_STR_LEN
				c.errorf("ERR REPLCONF ip-address provided by replica instance is too long: %d bytes", len(v))
				return
			}
			c.link().addr = string(v)
		case "capa":
			switch {
			case eqFold(v, "eof"):
				c.link().capaEOF = true
			case eqFold(v, "psync2"):
				c.link().capaPsync2 = true
			}
		case "ack":
			if c.isReplica() {
				if n, ok := parseInt64(v); ok {
					s.replicaAcked(c.replica, n)
				}
			}
			return // never answered
		case "getack":
			return // a master has no master to acknowledge
		case "script-loads":
			// floodgate's own: asked in the handshake, it tells a replica
			// this master takes it (a redis-server master answers an
			// error); from an attached replica, a replica of it is
			// full-syncing and wants the cached scripts in the stream.
			if c.isReplica() {
				s.feedScriptLoads()
				return // never answered, as ACK
			}
		case "rdb-only":
			n, ok := intArg(c, v)
			if !ok {
				return
			}
			if n < 0 || n > 1 {
				c.w.Error("ERR value is out of range, value must between 0 and 1") // getRangeLongFromObjectOrReply
				return
			}
			c.link().rdbOnly = n == 1
		case "rdb-filter-only":
			for _, f := range strings.Fields(string(v)) {
				if !strings.EqualFold(f, "functions") {
					c.errorf("ERR Unsupported rdb-filter-only option: %s", f)
					return
				}
			}
		default:
			c.errorf("ERR Unrecognized REPLCONF option: %s", string(args[j]))
			return
		}
	}
	c.w.Status("OK")
}

func parseInt64(b []byte) (int64, bool) { return number.ParseInt(b) }

// replicaAcked records REPLCONF ACK offset: it puts a replica that got a
// diskless payload online, and may end WAITs.
func (s *Server) replicaAcked(l *replicaLink, offset int64) {
	l.ackOffset = max(l.ackOffset, offset)
	l.ackTime = time.Now()
	if l.startOnAck && l.state == replicaOnline {
		l.startOnAck = false
		if len(l.pending) > 0 {
			s.sendToReplica(l, l.pending)
		}
		l.pending = nil
	}
	s.serveWaits()
	s.shutdownAcked()
}

// cmdSync is SYNC and PSYNC replid offset (syncCommand): a partial resync
// from the backlog when it can, else a full one. With REPLCONF rdb-only 1
// (redis-cli --rdb) it sends the RDB alone and closes.
func cmdSync(c *Client, args [][]byte) {
	s := c.srv
	if c.resp == nil || c.conn == nil {
		c.w.Error(errReplicaKeyless) // not from a script or in-process
		return
	}
	if c.isReplica() {
		return
	}
	if len(args) > 3 && eqFold(args[0], "psync") && eqFold(args[3], "failover") && !s.psyncFailover(c, string(args[1])) {
		return
	}
	if s.repl.failover.state != noFailover {
		c.w.Error(errSyncFailover) // replicas wait for the failover's outcome
		return
	}
	if l := s.repl.master; l != nil && !l.up.Load() {
		c.w.Error("NOMASTERLINK Can't SYNC while not connected with my master")
		return
	}
	if c.conn.pendingBytes() > 0 {
		c.w.Error(errSyncPending)
		return
	}
	l := c.link()
	if l.rdbOnly {
		syncRDBOnly(c)
		return
	}
	s.log.Info("Replica " + l.name() + " asks for synchronization")
	if eqFold(args[0], "psync") {
		offset, ok := parseInt64(args[2])
		if !ok {
			s.log.Warn("Replica " + l.name() + " asks for synchronization but with a wrong offset")
			c.w.Error(errNotInteger)
			return
		}
		if s.tryPartialResync(l, string(args[1]), offset) {
			s.repl.syncPartialOK++
			return
		}
		if len(args[1]) > 0 && args[1][0] != '?' {
			s.repl.syncPartialErr++
		}
	} else {
		l.prePsync = true
	}
	s.repl.syncFull++
	s.attachReplica(l, replicaWaitBgsaveStart)
	if s.repl.disklessSync && l.capaEOF && s.repl.disklessDelay > 0 {
		s.log.Info("Delay next BGSAVE for diskless SYNC")
		return
	}
	s.startReplicationSync()
}

// attachReplica adds a replica to the list, creating the backlog (and a
// new replication ID) for the first, as syncCommand does.
func (s *Server) attachReplica(l *replicaLink, state replicaState) {
	r := &s.repl
	l.state, l.arrived, l.ackTime = state, time.Now(), time.Now()
	r.replicas = append(r.replicas, l)
	if r.backlog == nil {
		r.id, r.id2, r.secondOffset = replication.NewID(), replication.NoID, -1
		s.createBacklog()
		s.log.Info(fmt.Sprintf("Replication backlog created, my new replication IDs are '%s' and '%s'", r.id, r.id2))
	}
	if !r.cronOn {
		r.cronOn = true
		// Every 100 ms during a FAILOVER, as Redis runs its cron then, so
		// the failover starts soon after the target's ACK.
		r.cron.start(func() time.Duration {
			if r.failoverOn.Load() {
				return 100 * time.Millisecond
			}
			return time.Second
		}, s.replicationCron)
	}
}

func (s *Server) createBacklog() {
	r := &s.repl
	r.backlog = replication.NewBacklog(int(r.backlogSize), r.offset)
	r.feed.Reselect()
	r.active.Store(true)
}

// name is how the log names a replica (replicationGetSlaveName).
func (l *replicaLink) name() string {
	ip := l.addr
	if ip == "" {
		ip = l.c.peerIP()
	}
	if l.listeningPort != 0 {
		return ip + ":" + strconv.FormatInt(l.listeningPort, 10)
	}
	return ip + ":<unknown-replica-port>"
}

// stateName is how INFO and the log name a replica's state
// (replstateToString).
func (l *replicaLink) stateName() string {
	switch l.state {
	case replicaWaitBgsaveStart, replicaWaitBgsaveEnd:
		return "wait_bgsave"
	case replicaOnline:
		return "online"
	}
	return ""
}

// peerIP is the client's address without its port.
func (c *Client) peerIP() string {
	if i := strings.LastIndexByte(c.addr, ':'); i >= 0 {
		return c.addr[:i]
	}
	return c.addr
}

// tryPartialResync is masterTryPartialResynchronization: +CONTINUE and the
// backlog from offset when replid is this master's history and the
// backlog still holds offset.
func (s *Server) tryPartialResync(l *replicaLink, replid string, offset int64) bool {
	r := &s.repl
	if !strings.EqualFold(replid, r.id) && (!strings.EqualFold(replid, r.id2) || offset > r.secondOffset) {
		switch {
		case replid != "" && replid[0] == '?':
			s.log.Info("Full resync requested by replica " + l.name())
		case !strings.EqualFold(replid, r.id) && !strings.EqualFold(replid, r.id2):
			s.log.Info(fmt.Sprintf("Partial resynchronization not accepted: Replication ID mismatch (Replica asked for '%s', my replication IDs are '%s' and '%s')", replid, r.id, r.id2))
		default:
			s.log.Info(fmt.Sprintf("Partial resynchronization not accepted: Requested offset for second ID was %d, but I can reply up to %d", offset, r.secondOffset))
		}
		return false
	}
	if r.backlog == nil || !r.backlog.Covers(offset) {
		s.log.Info(fmt.Sprintf("Unable to partial resync with replica %s for lack of backlog (Replica request was: %d).", l.name(), offset))
		if offset > r.offset {
			s.log.Warn(fmt.Sprintf("Warning: replica %s tried to PSYNC with an offset that is greater than the master replication offset.", l.name()))
		}
		return false
	}
	s.attachReplica(l, replicaOnline)
	reply := "+CONTINUE\r\n"
	if l.capaPsync2 {
		reply = "+CONTINUE " + r.id + "\r\n"
	}
	s.sendToReplica(l, []byte(reply))
	data := r.backlog.From(offset)
	if len(data) > 0 {
		s.sendToReplica(l, data)
	}
	s.log.Info(fmt.Sprintf("Partial resynchronization request from %s accepted. Sending %d bytes of backlog starting from offset %d.", l.name(), len(data), offset))
	return true
}

// startReplicationSync begins the snapshot for the replicas waiting for
// one (startBgsaveForReplication), unless a background save or AOF rewrite
// holds the snapshot: the cron tries again, and so does the end of that
// save. Each is told +FULLRESYNC with the offset the snapshot is taken at;
// the stream from there is kept for it until its RDB has gone.
func (s *Server) startReplicationSync() {
	var waiting []*replicaLink
	eof := true
	for _, l := range s.repl.replicas {
		if l.state == replicaWaitBgsaveStart {
			waiting = append(waiting, l)
			eof = eof && l.capaEOF
		}
	}
	if len(waiting) == 0 {
		return
	}
	if s.persist.bgsave != nil || s.aof.rewriting {
		s.log.Info("BGSAVE for replication delayed: another background operation is active")
		return
	}
	diskless := s.repl.disklessSync && eof
	b := &bgsave{started: time.Now(), dirty: s.store.Dirty(), replication: true, diskless: diskless}
	for i := range s.store.Databases() {
		b.total += int64(s.store.DB(i).Len())
	}
	begin := time.Now()
	sn := s.store.BeginSnapshot()
	s.snapshotBegun(begin)
	s.persist.bgsave = b
	s.childChanged()
	s.persist.lastTry = b.started
	if diskless {
		s.log.Info(fmt.Sprintf("Starting BGSAVE for SYNC with target: replicas sockets"))
	} else {
		s.log.Info("Starting BGSAVE for SYNC with target: disk")
	}
	// The next command goes with a SELECT: the replica's database after
	// the load is not known (replicationSetupSlaveForFullResync).
	s.repl.feed.Reselect()
	for _, l := range waiting {
		l.state = replicaWaitBgsaveEnd
		if !l.prePsync {
			s.sendToReplica(l, []byte("+FULLRESYNC "+s.repl.id+" "+strconv.FormatInt(s.repl.offset, 10)+"\r\n"))
		}
	}
	opts := s.rdbSaveOptions()
	s.feedScriptLoads() // after the snapshot's offset: they follow the RDB
	if s.repl.master != nil && !s.scripting.persist {
		// A replica's scripts also go in the RDB, as "lua" aux fields
		// (those Redis 6 wrote for its replicas; Redis 7.0 skips them):
		// a floodgate replica of it takes them where the master does not
		// take REPLCONF script-loads.
		opts.Aux = append(opts.Aux, luaAux(s.cachedScripts())...)
	}
	s.stopped.Add(1)
	go s.runReplicationSave(b, sn, opts)
}

// replSaveInfo is the aux fields with which an RDB carries this server's
// replication history, for a replica it is sent to or for this server
// once restarted from it (rdbPopulateSaveInfo): repl-stream-db is the
// database the stream has selected at the RDB's offset, on a replica its
// master client's. None without a history (no backlog).
func (s *Server) replSaveInfo() []rdb.Aux {
	r := &s.repl
	if r.backlog == nil {
		return nil
	}
	db := max(r.feed.Selected(), 0) // none selected: the next command has a SELECT
	if r.master != nil {
		db = r.master.client.db.Index()
	}
	return []rdb.Aux{
		{Key: "repl-stream-db", Value: strconv.Itoa(db)},
		{Key: "repl-id", Value: r.id},
		{Key: "repl-offset", Value: strconv.FormatInt(r.offset, 10)},
	}
}

// expiredKey is a key an RDB load skipped as expired, in database db.
type expiredKey struct {
	db  int
	key []byte
}

// restoreReplication continues the replication history that the RDB
// loaded at start carries, as loadDataFromDisk: a replica takes its ID and
// offset back (replicationCacheMasterUsingMyself), so its PSYNC continues
// from there; a master keeps them as replid2 and second_repl_offset under
// its new ID, with a backlog from that offset, so its replicas continue
// with +CONTINUE (PSYNC2), and feeds a DEL for each key the load skipped
// as expired, which they still hold. Without all three fields nothing is
// restored, and a master keeps no backlog.
func (s *Server) restoreReplication(aux []rdb.Aux, expired []expiredKey) {
	id, offset, db := "", int64(-1), -1
	for _, a := range aux {
		switch {
		case strings.EqualFold(a.Key, "repl-id") && len(a.Value) == len(replication.NoID):
			id = a.Value
		case strings.EqualFold(a.Key, "repl-offset"):
			offset, _ = strconv.ParseInt(a.Value, 10, 64) // strtoll
		case strings.EqualFold(a.Key, "repl-stream-db"):
			db, _ = strconv.Atoi(a.Value) // atoi
		}
	}
	if id == "" || offset == -1 || db == -1 {
		return
	}
	r := &s.repl
	if r.configuredMaster.Load() {
		r.id, r.offset = id, offset
		if db >= 0 && db < s.store.Databases() {
			r.cachedMasterDB = db
		}
		return
	}
	r.id2, r.secondOffset, r.offset = id, offset+1, offset
	s.createBacklog()
	r.noReplicasSince = time.Now()
	for _, k := range expired {
		s.feedCommand(k.db, []byte("DEL"), k.key)
	}
}

// runReplicationSave writes the snapshot (to memory for a diskless sync,
// else to dbfilename as a BGSAVE does) and hands it to the replicas.
func (s *Server) runReplicationSave(b *bgsave, sn *store.Snapshot, opts rdb.Options) {
	defer s.stopped.Done()
	defer saverProcs()()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// The frame the replicas are sent is made here, without the lock: a
	// copy of a payload of 25 MB (1,000,000 keys) under it, with the
	// collector's assists the allocation brings, paused every client for
	// 450 ms (BENCHMARKS.md). A diskless payload is framed by its EOF mark
	// (all the replicas it is for take one), a file by its length.
	var frame []byte
	var err error
	if b.diskless {
		mark := replication.NewID()
		var buf bytes.Buffer
		buf.WriteString("$EOF:" + mark + "\r\n")
		err = s.saveSnapshotSteps(&buf, b, sn, opts)
		buf.WriteString(mark)
		frame = buf.Bytes()
	} else {
		err = writeFileAtomic(s.cfg.Dir, fmt.Sprintf("temp-%d-bg.rdb", os.Getpid()), s.cfg.DBFilename, func(out io.Writer) error {
			return s.saveSnapshotSteps(out, b, sn, opts)
		})
		var f *os.File
		if err == nil {
			f, err = os.Open(s.rdbPath())
		}
		if err == nil {
			var st os.FileInfo
			if st, err = f.Stat(); err == nil {
				header := "$" + strconv.FormatInt(st.Size(), 10) + "\r\n"
				frame = make([]byte, len(header)+int(st.Size()))
				copy(frame, header)
				_, err = io.ReadFull(f, frame[len(header):])
			}
			f.Close()
		}
	}
	s.lock <- struct{}{}
	defer func() { <-s.lock }()
	s.endBgsave(b, sn, err, !b.diskless)
	s.replicationSaveDone(frame, err)
	s.startReplicationSync() // replicas that came meanwhile
}

// replicationSaveDone sends the RDB, framed, to each replica that waited
// for it, then the stream kept since; a failed save closes them
// (updateSlavesWaitingBgsave). The last one is given frame itself, the
// others a copy.
func (s *Server) replicationSaveDone(frame []byte, err error) {
	var waiting []*replicaLink
	for _, l := range s.repl.replicas {
		if l.state == replicaWaitBgsaveEnd {
			waiting = append(waiting, l)
		}
	}
	eof := bytes.HasPrefix(frame, []byte("$EOF:"))
	for i, l := range waiting {
		if err != nil {
			s.log.Warn("SYNC failed. BGSAVE child returned an error")
			s.killClient(l.c)
			continue
		}
		own := frame
		if i < len(waiting)-1 {
			own = bytes.Clone(frame)
		}
		// Online before the push, which the connection's goroutine reads
		// the state after (its output limit class).
		l.startOnAck = eof && !l.prePsync
		l.state, l.ackTime = replicaOnline, time.Now()
		s.sendPayload(l, own)
		if !l.startOnAck {
			if len(l.pending) > 0 {
				s.sendToReplica(l, l.pending)
			}
			l.pending = nil
		}
		s.log.Info("Synchronization with replica " + l.name() + " succeeded")
	}
	s.repl.replicas = s.liveReplicas()
}

// sendPayload gives a replica its RDB frame, which it then owns: pushed as
// it is when nothing else waits in its inbox (pushOwned), else copied.
func (s *Server) sendPayload(l *replicaLink, frame []byte) {
	cn := l.c.conn
	if cn == nil || cn.killed.Load() || cn.answering != nil || s.running != nil {
		s.sendToReplica(l, frame)
		return
	}
	if !cn.pushOwned(frame) {
		s.logOutputLimit(l.c)
		s.killClient(l.c)
	}
}

// liveReplicas drops the replicas whose connection is gone.
func (s *Server) liveReplicas() []*replicaLink {
	out := s.repl.replicas[:0]
	for _, l := range s.repl.replicas {
		if l.c.conn != nil && !l.c.conn.killed.Load() {
			out = append(out, l)
		}
	}
	clear(s.repl.replicas[len(out):])
	return out
}

// replicaGone removes a closed connection's replica link
// (freeClient's replica part).
func (s *Server) replicaGone(c *Client) {
	l := c.replica
	if l == nil || l.state == replicaNone {
		return
	}
	for i, x := range s.repl.replicas {
		if x == l {
			s.repl.replicas = append(s.repl.replicas[:i], s.repl.replicas[i+1:]...)
			break
		}
	}
	l.state, l.pending = replicaNone, nil
	if !s.closed.Load() { // Redis exits with its replicas still connected
		s.log.Info("Connection with replica " + l.name() + " lost.")
	}
	if len(s.repl.replicas) == 0 {
		s.repl.noReplicasSince = time.Now()
	}
}

// syncRDBOnly sends a snapshot and closes: REPLCONF rdb-only 1 then SYNC,
// which is how redis-cli --rdb asks for it.
func syncRDBOnly(c *Client) {
	var file bytes.Buffer
	if err := rdb.Save(&file, c.srv.store, c.srv.rdbOptions()); err != nil {
		c.w.Error("ERR " + err.Error())
		return
	}
	c.resp.Raw([]byte("$" + strconv.Itoa(file.Len()) + "\r\n"))
	c.resp.Raw(file.Bytes())
	c.closing = true
	c.srv.log.Info("Synchronization with replica succeeded (rdb-only)", "addr", c.addr, "bytes", file.Len())
}

// replicationCron is replicationCron's master part, every second: the
// delayed diskless sync, PING every repl-ping-replica-period, newlines to
// replicas waiting for their RDB, timed-out replicas, and the backlog's
// time to live once no replica is left.
func (s *Server) replicationCron() {
	s.lock <- struct{}{}
	defer func() { <-s.lock }()
	r := &s.repl
	s.updateFailoverStatus()
	// The once-a-second part, when the cron runs every 100 ms.
	r.cronTicks++
	if r.failover.state != noFailover && r.cronTicks%10 != 0 {
		return
	}
	r.replicas = s.liveReplicas()
	now := time.Now()
	// A replica proxies its master's PINGs; its own would move its
	// replicas' offsets off the master's.
	if len(r.replicas) > 0 && r.master == nil && r.cronLoops%max(r.pingPeriod, 1) == 0 && s.paused() == pauseNone {
		s.feedCommand(-1, []byte("PING"))
	}
	r.cronLoops++
	waiting, idle := false, time.Duration(0)
	for _, l := range r.replicas {
		switch l.state {
		case replicaWaitBgsaveStart:
			waiting = true
			idle = max(idle, now.Sub(l.arrived))
			s.deliver(l.c, []byte("\n"))
		case replicaWaitBgsaveEnd:
			s.deliver(l.c, []byte("\n"))
		case replicaOnline:
			if !l.prePsync && now.Sub(l.ackTime) > time.Duration(r.timeout)*time.Second {
				s.log.Warn("Disconnecting timedout replica (streaming sync): " + l.name())
				s.killClient(l.c)
			}
		}
	}
	if waiting && (!r.disklessSync || idle >= time.Duration(r.disklessDelay)*time.Second) {
		s.startReplicationSync()
	}
	r.replicas = s.liveReplicas()
	if len(r.replicas) == 0 && r.master == nil && r.backlog != nil && r.backlogTTL > 0 && !r.noReplicasSince.IsZero() &&
		now.Sub(r.noReplicasSince) > time.Duration(r.backlogTTL)*time.Second {
		// A new ID: a replica of the old history must sync in full.
		r.id, r.id2, r.secondOffset = replication.NewID(), replication.NoID, -1
		r.backlog = nil
		r.active.Store(false)
		s.log.Info(fmt.Sprintf("Replication backlog freed after %d seconds without connected replicas.", r.backlogTTL))
	}
}

// goodReplicas counts the online replicas whose last ACK is at most
// min-replicas-max-lag seconds old (refreshGoodSlavesCount).
func (s *Server) goodReplicas() int {
	n := 0
	now := time.Now().Unix()
	for _, l := range s.repl.replicas {
		if l.state == replicaOnline && now-l.ackTime.Unix() <= s.repl.minReplicasMaxLag {
			n++
		}
	}
	return n
}

// noReplicasError is NOREPLICAS when min-replicas-to-write is set and
// fewer good replicas are connected (checkGoodReplicasStatus), else "".
func (s *Server) noReplicasError() string {
	r := &s.repl
	if r.minReplicas > 0 && r.minReplicasMaxLag > 0 && int64(s.goodReplicas()) < r.minReplicas {
		return errNoReplicas
	}
	return ""
}

// acksAt counts the online replicas that acknowledged offset
// (replicationCountAcksByOffset).
func (s *Server) acksAt(offset int64) int64 {
	var n int64
	for _, l := range s.repl.replicas {
		if l.state == replicaOnline && l.ackOffset >= offset {
			n++
		}
	}
	return n
}

// requestAcks feeds REPLCONF GETACK * to the replicas, once per offset
// (replicationRequestAckFromSlaves).
func (s *Server) requestAcks() {
	r := &s.repl
	r.getackWanted = false
	if r.backlog == nil || len(r.replicas) == 0 || r.getackAt == r.offset {
		return
	}
	s.feedCommand(-1, []byte("REPLCONF"), []byte("GETACK"), []byte("*"))
	r.getackAt = r.offset
}

// serveWaits answers the WAITs whose replicas have acknowledged enough
// (processClientsWaitingReplicas).
func (s *Server) serveWaits() {
	r := &s.repl
	kept := r.waits[:0]
	for _, w := range r.waits {
		if w.c.blockedOn != w {
			continue // timed out, unblocked or gone
		}
		if n := s.acksAt(w.waitOffset); n >= w.waitReplicas {
			s.unblock(w, func(c *Client) { c.w.Int(n) })
			continue
		}
		kept = append(kept, w)
	}
	clear(r.waits[len(kept):])
	r.waits = kept
}

// infoReplication is INFO's replication section of a master.
func infoReplication(s *Server, b *infoBuilder) {
	r := &s.repl
	if r.master != nil {
		s.infoReplicaLink(b, r.master)
	} else {
		b.str("role", "master")
	}
	live := s.liveReplicas()
	r.replicas = live
	b.int("connected_slaves", int64(len(live)))
	if r.minReplicas > 0 && r.minReplicasMaxLag > 0 && r.master == nil {
		b.int("min_slaves_good_slaves", int64(s.goodReplicas()))
	}
	now := time.Now().Unix()
	for i, l := range live {
		ip := l.addr
		if ip == "" {
			ip = l.c.peerIP()
		}
		lag := int64(0)
		if l.state == replicaOnline {
			lag = now - l.ackTime.Unix()
		}
		state := l.stateName()
		b.str("slave"+strconv.Itoa(i), fmt.Sprintf("ip=%s,port=%d,state=%s,offset=%d,lag=%d", ip, l.listeningPort, state, l.ackOffset, lag))
	}
	b.str("master_failover_state", r.failover.state.String())
	b.str("master_replid", r.id)
	b.str("master_replid2", r.id2)
	b.int("master_repl_offset", r.offset)
	b.int("second_repl_offset", r.secondOffset)
	if r.backlog == nil {
		b.int("repl_backlog_active", 0)
		b.int("repl_backlog_size", r.backlogSize)
		b.int("repl_backlog_first_byte_offset", 0)
		b.int("repl_backlog_histlen", 0)
		return
	}
	b.int("repl_backlog_active", 1)
	b.int("repl_backlog_size", int64(r.backlog.Size()))
	b.int("repl_backlog_first_byte_offset", r.backlog.FirstOffset())
	b.int("repl_backlog_histlen", int64(r.backlog.HistLen()))
}

// replSettings are the replication settings (CONFIG), kept as numbers:
// min-replicas-to-write is read by every write command.
type replSettings struct {
	backlogSize, backlogTTL, pingPeriod, timeout int64
	disklessSync                                 bool
	disklessDelay                                int64
	minReplicas, minReplicasMaxLag               int64
}

// replDefaults are the settings replicationParams' defaults give, applied
// once to a scratch server.
var replDefaults = sync.OnceValue(func() replSettings {
	var s Server
	for name, p := range replicationParams {
		if p.apply != nil {
			p.apply(&s, configByName[name].def)
		}
	}
	return s.repl.replSettings
})

// replicationParams are replication's config parameters.
var replicationParams = map[string]floodgateParam{
	"repl-backlog-size": replInt("repl-backlog-size", func(r *replState) *int64 { return &r.backlogSize }, func(s *Server) {
		if s.repl.backlog != nil {
			s.repl.backlog.Resize(int(s.repl.backlogSize))
		}
	}),
	"repl-backlog-ttl":         replInt("repl-backlog-ttl", func(r *replState) *int64 { return &r.backlogTTL }, nil),
	"repl-ping-replica-period": replInt("repl-ping-replica-period", func(r *replState) *int64 { return &r.pingPeriod }, nil),
	"repl-timeout":             replInt("repl-timeout", func(r *replState) *int64 { return &r.timeout }, nil),
	"repl-diskless-sync-delay": replInt("repl-diskless-sync-delay", func(r *replState) *int64 { return &r.disklessDelay }, nil),
	"min-replicas-to-write":    replInt("min-replicas-to-write", func(r *replState) *int64 { return &r.minReplicas }, nil),
	"min-replicas-max-lag":     replInt("min-replicas-max-lag", func(r *replState) *int64 { return &r.minReplicasMaxLag }, nil),
	// CONFIG GET replicaof is the master in effect, "" on a master (so
	// CONFIG REWRITE drops the line of a promoted replica, as Sentinel
	// relies on); a directive not yet started counts.
	"replicaof": {effect: effectApplied, parse: parseReplicaof, get: func(s *Server) string {
		if l := s.repl.master; l != nil {
			return l.host + " " + strconv.Itoa(l.port)
		}
		if s.repl.configuredMaster.Load() {
			return s.settings["replicaof"]
		}
		return ""
	}, apply: func(s *Server, v string) string {
		s.setSetting("replicaof", v)
		s.repl.configuredMaster.Store(v != "") // read by Start (immutable: a config file's only)
		return ""
	}},
	"masterauth":               {effect: effectApplied},
	"masteruser":               {effect: effectApplied},
	"replica-read-only":        {effect: effectApplied},
	"replica-serve-stale-data": {effect: effectApplied},
	"replica-priority":         {effect: effectApplied},
	"replica-announce-ip":      {effect: effectApplied},
	"replica-announce-port":    {effect: effectApplied},
	"replica-announced":        {effect: effectApplied},
	"repl-diskless-sync": {effect: effectApplied, apply: func(s *Server, v string) string {
		s.setSetting("repl-diskless-sync", v)
		s.repl.disklessSync = v == "yes"
		return ""
	}},
}

func replInt(name string, field func(*replState) *int64, then func(*Server)) floodgateParam {
	return floodgateParam{effect: effectApplied, apply: func(s *Server, v string) string {
		s.setSetting(name, v)
		n, _ := memToBytes(v)
		*field(&s.repl) = int64(n)
		if then != nil && s.store != nil {
			then(s)
		}
		return ""
	}}
}
