package server

// The replica side of Redis 7.0's replication: REPLICAOF (SLAVEOF) and the
// replicaof directive start a link to the master (syncWithMaster and
// readSyncBulkPayload: PING, AUTH with masterauth/masteruser, REPLCONF,
// PSYNC), which loads the master's RDB on a full resync and then applies
// the stream as the master client, acknowledging its offset every second
// and on REPLCONF GETACK. The stream is proxied byte for byte into this
// server's own backlog and replicas (replicationFeedStreamFromMasterStream),
// so a replica of a replica, and a promoted replica's PSYNC2, work.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate/floodgate/aof"
	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/internal/resp"
	"github.com/floodgate/floodgate/rdb"
	"github.com/floodgate/floodgate/replication"
)

// masterLink is a replica's link to its master. Its fields are guarded by
// the execution lock, but for those the link's goroutine keeps atomically.
type masterLink struct {
	host string
	port int
	stop chan struct{} // closed by REPLICAOF NO ONE or another REPLICAOF
	done chan struct{} // closed when the link's goroutine has returned

	up          atomic.Bool  // master_link_status:up
	syncing     atomic.Bool  // master_sync_in_progress
	lastIO      atomic.Int64 // unix seconds of the last byte from the master
	downSince   atomic.Int64 // unix seconds; master_link_down_since_seconds
	client      *Client      // the master client, which the stream runs as
	pendingMeta []byte       // the stream of a MULTI not yet closed, not yet proxied
	ackNow      bool         // REPLCONF GETACK came: acknowledge after this batch

	wmu  sync.Mutex // serializes writes to conn (ACKs from the ticker and the stream)
	conn net.Conn

	// A replica of this one full-syncs: REPLCONF script-loads goes to the
	// master once the link streams, if the master took it in the handshake.
	scriptLoads      chan struct{} // buffered 1
	takesScriptLoads atomic.Bool
}

// askScriptLoads asks the master to feed its cached scripts to the stream,
// now or once the link is up again.
func (l *masterLink) askScriptLoads() {
	select {
	case l.scriptLoads <- struct{}{}:
	default: // already asked
	}
}

// Replica-side errors and replies, as Redis 7.0 words them.
const (
	errReadOnlyReplica = "READONLY You can't write against a read only replica."
	errMasterDown      = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
	errWaitOnReplica   = "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated."
)

// isMasterClient reports whether c is the client the master's stream runs
// as (CLIENT_MASTER): it obeys, whatever replica-read-only says.
func (c *Client) isMasterClient() bool {
	l := c.srv.repl.master
	return l != nil && l.client == c
}

// startConfiguredReplication starts the link the replicaof directive
// names, once the server listens (its port is what it announces) and has
// loaded its data.
func (s *Server) startConfiguredReplication() {
	// After a load at start (StartAddr calls again): the link's PSYNC
	// asks for the ID and offset the RDB brought back.
	if !s.repl.configuredMaster.Load() || s.loading.active.Load() {
		return
	}
	s.spawn(func() {
		select {
		case s.lock <- struct{}{}:
		case <-s.stop:
			return
		}
		defer func() { <-s.lock }()
		host, port, _ := strings.Cut(s.settings["replicaof"], " ")
		n, _ := strconv.Atoi(port)
		if s.repl.configuredMaster.Load() && s.repl.master == nil && host != "" {
			s.setMaster(host, n)
		}
		s.repl.configuredMaster.Store(false)
	})
}

// parseReplicaof checks the replicaof directive: host port.
func parseReplicaof(v string) (string, string) {
	f := strings.Fields(v)
	if len(f) != 2 {
		return "", "wrong number of arguments"
	}
	if strings.EqualFold(f[0], "no") && strings.EqualFold(f[1], "one") {
		return "", ""
	}
	if n, err := strconv.Atoi(f[1]); err != nil || n < 0 || n > 65535 {
		return "", "Invalid master port"
	}
	return f[0] + " " + f[1], ""
}

// cmdReplicaof is REPLICAOF host port | NO ONE (and SLAVEOF).
func cmdReplicaof(c *Client, args [][]byte) {
	s := c.srv
	if s.repl.failover.state != noFailover {
		c.w.Error(errReplicaofFailover)
		return
	}
	if eqFold(args[1], "no") && eqFold(args[2], "one") {
		s.repl.configuredMaster.Store(false) // a directive not started yet is overridden
		if s.repl.master != nil {
			s.unsetMaster()
			s.log.Info("MASTER MODE enabled (user request from '" + c.infoLine(time.Now(), nil) + "')")
		}
		c.w.Status("OK")
		return
	}
	port, ok := number.ParseInt(args[2])
	if !ok || port < 0 || port > 65535 {
		c.w.Error("ERR Invalid master port") // getRangeLongFromObjectOrReply's own message
		return
	}
	host := string(args[1])
	s.repl.configuredMaster.Store(false)
	if l := s.repl.master; l != nil && strings.EqualFold(l.host, host) && int64(l.port) == port {
		s.log.Info("REPLICAOF would result into synchronization with the master we are already connected with. No operation performed.")
		c.w.Status("OK Already connected to specified master")
		return
	}
	s.setMaster(host, int(port))
	s.log.Info(fmt.Sprintf("REPLICAOF %s:%d enabled (user request from '%s')", host, port, c.infoLine(time.Now(), nil)))
	c.w.Status("OK")
}

// setMaster makes the server a replica of host:port (replicationSetMaster):
// the old link, if any, is dropped, this server's replicas are
// disconnected (they resync from what it becomes), blocked clients are
// unblocked, and a link started that first tries to continue this
// server's own history (replicationCacheMasterUsingMyself). Called with
// the lock held.
func (s *Server) setMaster(host string, port int) {
	if s.repl.master != nil {
		s.stopMasterLink()
	}
	for _, l := range append([]*replicaLink(nil), s.repl.replicas...) {
		s.killClient(l.c)
	}
	l := &masterLink{host: host, port: port, stop: make(chan struct{}), done: make(chan struct{}), scriptLoads: make(chan struct{}, 1)}
	l.client = s.replayClient()
	l.client.name = ""
	l.client.db, s.repl.cachedMasterDB = s.store.DB(s.repl.cachedMasterDB), 0
	l.downSince.Store(time.Now().Unix())
	s.repl.master = l
	s.store.HoldExpired = true
	s.stopped.Add(1)
	go s.runMasterLink(l)
}

// unsetMaster is REPLICAOF NO ONE (replicationUnsetMaster): the link is
// closed and the history continues under a new ID, the old one kept as
// replid2 up to this offset, so the other replicas of the old master can
// continue from this one (PSYNC2).
func (s *Server) unsetMaster() {
	s.stopMasterLink()
	r := &s.repl
	r.id2, r.secondOffset, r.id = r.id, r.offset+1, replication.NewID()
	s.log.Info(fmt.Sprintf("Setting secondary replication ID to %s, valid up to offset: %d. New replication ID is %s", r.id2, r.secondOffset, r.id))
	// The replicas of this one learn the new ID by reconnecting.
	for _, l := range append([]*replicaLink(nil), r.replicas...) {
		s.killClient(l.c)
	}
	r.feed.Reselect()
	s.store.HoldExpired = false
}

// stopMasterLink ends the link's goroutine, with the lock held: the
// goroutine takes the lock to apply the stream, so it is not waited for
// here, only told to stop; whatever it was applying is thrown away.
func (s *Server) stopMasterLink() {
	l := s.repl.master
	s.repl.master = nil
	close(l.stop)
	l.wmu.Lock()
	if l.conn != nil {
		l.conn.Close()
	}
	l.wmu.Unlock()
}

// runMasterLink connects to the master and keeps the link, reconnecting
// every second after a failure, until stopped.
func (s *Server) runMasterLink(l *masterLink) {
	defer s.stopped.Done()
	defer close(l.done)
	for {
		err := s.syncWithMaster(l)
		l.up.Store(false)
		l.syncing.Store(false)
		l.downSince.Store(time.Now().Unix())
		select {
		case <-l.stop:
			return
		case <-s.stop:
			return
		default:
		}
		if err != nil {
			s.log.Warn(err.Error())
		}
		select {
		case <-l.stop:
			return
		case <-s.stop:
			return
		case <-time.After(time.Second): // replicationCron's reconnect
		}
	}
}

// errLinkStopped ends a link that REPLICAOF replaced.
var errLinkStopped = errors.New("replication link stopped")

// locked runs fn with the execution lock unless the link was stopped (or
// the server is closing) first; it reports whether fn ran.
func (s *Server) linkLocked(l *masterLink, fn func()) bool {
	select {
	case s.lock <- struct{}{}:
	case <-l.stop:
		return false
	case <-s.stop:
		return false
	}
	defer func() { <-s.lock }()
	if s.repl.master != l {
		return false
	}
	s.store.Refresh()
	fn()
	if len(s.blocking.ready) > 0 {
		s.serveReady()
	}
	return true
}

// syncWithMaster is one connection to the master: the handshake, the
// PSYNC, the RDB of a full resync, then the stream until the link breaks.
func (s *Server) syncWithMaster(l *masterLink) error {
	addr := net.JoinHostPort(l.host, strconv.Itoa(l.port))
	s.log.Info("Connecting to MASTER " + addr)
	timeout := func() time.Duration { return time.Duration(max(s.repl.timeout, 1)) * time.Second }
	conn, err := net.DialTimeout("tcp", addr, timeout())
	if err != nil {
		return fmt.Errorf("Error condition on socket for SYNC: %v", err)
	}
	l.wmu.Lock()
	select {
	case <-l.stop:
		l.wmu.Unlock()
		conn.Close()
		return errLinkStopped
	default:
	}
	l.conn = conn
	l.wmu.Unlock()
	// Close and REPLICAOF end a read or write in progress by closing the
	// connection.
	session := make(chan struct{})
	defer close(session)
	go func() {
		select {
		case <-s.stop:
		case <-l.stop:
		case <-session:
		}
		conn.Close()
	}()
	s.log.Info("MASTER <-> REPLICA sync started")
	r := bufio.NewReaderSize(conn, 64<<10)
	ask := func(args ...string) (string, error) {
		var b []byte
		bargs := make([][]byte, len(args))
		for i, a := range args {
			bargs[i] = []byte(a)
		}
		b = aof.AppendCommand(b, bargs...)
		conn.SetDeadline(time.Now().Add(timeout()))
		if _, err := conn.Write(b); err != nil {
			return "", err
		}
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return "", err
			}
			if line = strings.TrimRight(line, "\r\n"); line != "" {
				l.lastIO.Store(time.Now().Unix())
				return line, nil
			}
		}
	}
	reply, err := ask("PING")
	if err != nil {
		return fmt.Errorf("Error reply to PING from master: '%v'", err)
	}
	if reply[0] == '-' && !strings.HasPrefix(reply, "-NOAUTH") && !strings.HasPrefix(reply, "-NOPERM") && !strings.HasPrefix(reply, "-ERR operation not permitted") {
		return fmt.Errorf("Error reply to PING from master: '%s'", reply[1:])
	}
	s.log.Info("Master replied to PING, replication can continue...")
	var user, pass, announceIP string
	var myPort int
	s.linkLocked(l, func() {
		user, pass, announceIP = s.configValue("masteruser"), s.configValue("masterauth"), s.configValue("replica-announce-ip")
		myPort = s.announcedPort()
	})
	if pass != "" {
		args := []string{"AUTH", pass}
		if user != "" {
			args = []string{"AUTH", user, pass}
		}
		if reply, err = ask(args...); err != nil {
			return err
		}
		if reply[0] == '-' {
			return fmt.Errorf("Unable to AUTH to MASTER: %s", reply[1:])
		}
	}
	if reply, err = ask("REPLCONF", "listening-port", strconv.Itoa(myPort)); err != nil {
		return err
	} else if reply[0] == '-' {
		s.log.Info("(Non critical) Master does not understand REPLCONF listening-port: " + reply[1:])
	}
	if announceIP != "" {
		if reply, err = ask("REPLCONF", "ip-address", announceIP); err != nil {
			return err
		} else if reply[0] == '-' {
			s.log.Info("(Non critical) Master does not understand REPLCONF ip-address: " + reply[1:])
		}
	}
	if reply, err = ask("REPLCONF", "capa", "eof", "capa", "psync2"); err != nil {
		return err
	} else if reply[0] == '-' {
		s.log.Info("(Non critical) Master does not understand REPLCONF capa: " + reply[1:])
	}
	// floodgate's own option (a redis-server master answers an error, and
	// replicates no scripts): whether the master feeds its scripts again
	// when a replica of this one full-syncs.
	if reply, err = ask("REPLCONF", "script-loads", "1"); err != nil {
		return err
	}
	l.takesScriptLoads.Store(reply[0] != '-')
	var replid string
	var offset int64
	var psync []string
	s.linkLocked(l, func() {
		replid, offset = s.repl.id, s.repl.offset
		psync = s.failoverPSYNC(replid, offset+1)
	})
	s.log.Info(fmt.Sprintf("Trying a partial resynchronization (request %s:%d).", replid, offset+1))
	failingOver := len(psync) == 4 // PSYNC ... FAILOVER: the target becomes our master
	reply, err = ask(psync...)
	if failingOver {
		// The target answered (or could not be told): the failover is over,
		// one way or the other (syncWithMaster's failover checks).
		accepted := err == nil && (strings.HasPrefix(reply, "+FULLRESYNC") || strings.HasPrefix(reply, "+CONTINUE"))
		s.linkLocked(l, func() {
			switch {
			case accepted:
				s.clearFailover()
			case err != nil:
				s.abortFailover("Write error to failover target")
			default:
				s.abortFailover("Failover target rejected psync request")
			}
		})
	}
	if err != nil {
		return err
	}
	switch {
	case strings.HasPrefix(reply, "+FULLRESYNC"):
		f := strings.Fields(reply)
		if len(f) != 3 {
			return fmt.Errorf("Master replied with wrong +FULLRESYNC syntax.")
		}
		off, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return fmt.Errorf("Master replied with wrong +FULLRESYNC syntax.")
		}
		s.log.Info(fmt.Sprintf("Full resync from master: %s:%d", f[1], off))
		if err := s.fullSyncFromMaster(l, conn, r, f[1], off, timeout); err != nil {
			return err
		}
	case strings.HasPrefix(reply, "+CONTINUE"):
		newID := strings.TrimSpace(strings.TrimPrefix(reply, "+CONTINUE"))
		s.log.Info("Successful partial resynchronization with master.")
		s.linkLocked(l, func() {
			r := &s.repl
			// A transaction the last link cut short is dropped, as
			// replicationCacheMaster discards it: the master sends it again
			// whole, from the offset before its MULTI.
			l.client.multi, l.pendingMeta = nil, nil
			// As Redis, the backlog that proxies the master's stream is
			// made once a sync succeeds, not when REPLICAOF is given.
			if r.backlog == nil {
				s.createBacklog()
			}
			if newID != "" && newID != r.id {
				r.id2, r.secondOffset, r.id = r.id, r.offset+1, newID
				s.log.Info("Master replication ID changed to " + newID)
				for _, x := range append([]*replicaLink(nil), r.replicas...) {
					s.killClient(x.c) // they learn the new ID by reconnecting
				}
			}
			// An ask the cut link may have lost is made again: the
			// replicas of this one stay, and do not sync again.
			if len(r.replicas) > 0 {
				l.askScriptLoads()
			}
		})
		s.log.Info("MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.")
	case strings.HasPrefix(reply, "-NOMASTERLINK"), strings.HasPrefix(reply, "-LOADING"):
		return fmt.Errorf("Master is currently unable to PSYNC but should be in the future: %s", reply[1:])
	case reply[0] == '-':
		// Redis tries SYNC after an error (a master too old for PSYNC),
		// and an error to that is what it logs as the failure: NOAUTH
		// for a replica without the master's password.
		s.log.Warn("Unexpected reply to PSYNC from master: " + reply)
		s.log.Info("Retrying with SYNC...")
		if reply, err = ask("SYNC"); err != nil {
			return err
		}
		if reply[0] == '-' {
			return fmt.Errorf("MASTER aborted replication with an error: %s", reply[1:])
		}
		return fmt.Errorf("Master does not support PSYNC, which floodgate needs: %s", reply)
	default:
		return fmt.Errorf("Unexpected reply to PSYNC from master: %s", reply)
	}
	l.up.Store(true)
	return s.streamFromMaster(l, conn, r, timeout)
}

// announcedPort is the port a replica tells its master: replica-announce-port,
// else the one it listens on.
func (s *Server) announcedPort() int {
	if p, _ := strconv.Atoi(s.configValue("replica-announce-port")); p != 0 {
		return p
	}
	if _, port, err := net.SplitHostPort(s.Addr()); err == nil {
		n, _ := strconv.Atoi(port)
		return n
	}
	return 0
}

// fullSyncFromMaster reads the RDB ($<len> or $EOF:<mark>, after any
// keep-alive newlines) and loads it in place of the keyspace, taking the
// master's ID and offset.
func (s *Server) fullSyncFromMaster(l *masterLink, conn net.Conn, r *bufio.Reader, replid string, offset int64, timeout func() time.Duration) error {
	l.syncing.Store(true)
	defer l.syncing.Store(false)
	var header string
	for {
		conn.SetReadDeadline(time.Now().Add(timeout()))
		line, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("I/O error reading bulk count from MASTER: %v", err)
		}
		l.lastIO.Store(time.Now().Unix())
		if line = strings.TrimRight(line, "\r\n"); line != "" {
			header = line
			break
		}
	}
	if header[0] == '-' {
		return fmt.Errorf("MASTER aborted replication with an error: %s", header[1:])
	}
	if header[0] != '$' {
		return fmt.Errorf("Bad protocol from MASTER, the first byte is not '$' (we received '%s'), are you sure the host and port are right?", header)
	}
	var payload []byte
	if mark, ok := strings.CutPrefix(header, "$EOF:"); ok {
		s.log.Info("MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to disk")
		var buf bytes.Buffer
		tail := []byte(mark)
		chunk := make([]byte, 64<<10)
		for !bytes.HasSuffix(buf.Bytes(), tail) {
			conn.SetReadDeadline(time.Now().Add(timeout()))
			n, err := r.Read(chunk)
			if err != nil {
				return fmt.Errorf("I/O error trying to sync with MASTER: %v", err)
			}
			l.lastIO.Store(time.Now().Unix())
			buf.Write(chunk[:n])
		}
		payload = buf.Bytes()[:buf.Len()-len(tail)]
	} else {
		n, err := strconv.ParseInt(header[1:], 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("Bad protocol from MASTER: %q", header)
		}
		s.log.Info(fmt.Sprintf("MASTER <-> REPLICA sync: receiving %d bytes from master to disk", n))
		payload = make([]byte, n)
		for got := 0; got < len(payload); {
			conn.SetReadDeadline(time.Now().Add(timeout()))
			m, err := r.Read(payload[got:])
			if err != nil {
				return fmt.Errorf("I/O error trying to sync with MASTER: %v", err)
			}
			got += m
			l.lastIO.Store(time.Now().Unix())
		}
	}
	var loadErr error
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // as loadRDB, for the same reason
	ran := s.linkLocked(l, func() {
		// This server's replicas must sync again from the new history
		// (replicationAttachToNewMaster), and a background save must not
		// walk the keyspace while the load, which serves clients between
		// keys, replaces it (readSyncBulkPayload's killRDBChild).
		for _, x := range append([]*replicaLink(nil), s.repl.replicas...) {
			s.killClient(x.c)
		}
		if b := s.persist.bgsave; b != nil {
			s.log.Info("Replica is about to load the RDB file received from the master, but there is a pending RDB child running. Killing it to avoid any race")
			b.abort = true
		}
		// The AOF would keep the old data under the master's stream: it is
		// stopped for the load and started again after, with a rewrite
		// (readSyncBulkPayload's stopAppendOnly, restartAOFAfterSYNC).
		if s.aof.on.Load() {
			s.stopAppendOnly()
			s.aof.stoppedForSync = true
		}
		defer s.restartAOFAfterSync()
		s.log.Info("MASTER <-> REPLICA sync: Flushing old data")
		s.store.FlushAll()
		s.flushFunctions() // the master's RDB brings its libraries
		s.log.Info("MASTER <-> REPLICA sync: Loading DB in memory")
		// Clients are served during the load, as readSyncBulkPayload's
		// rdbLoad serves them (processEventsWhileBlocked) every
		// loading-process-events-interval-bytes: LOADING for what lacks
		// the loading flag, MASTERDOWN first with replica-serve-stale-data
		// no (the link is not up yet).
		s.startLoading()
		s.loading.totalBytes = int64(len(payload))
		// Keys past their time are kept: the master's DEL removes them.
		info, err := rdb.Load(bytes.NewReader(payload), s.store, rdb.LoadOptions{SkipChecksum: s.skipChecksum(),
			Progress: s.rdbProgress, Aux: s.rdbAux, Function: s.loadFunctionCode})
		s.stopLoading()
		if err == nil && s.repl.master != l {
			err = errLinkStopped // REPLICAOF while it loaded
		}
		if err != nil {
			s.store.FlushAll()
			s.flushFunctions()
			loadErr = err
			return
		}
		rp := &s.repl
		rp.id, rp.id2, rp.secondOffset, rp.offset = replid, replication.NoID, -1, offset
		rp.backlog = replication.NewBacklog(int(rp.backlogSize), offset)
		rp.active.Store(true)
		l.client = s.replayClient()
		l.pendingMeta = nil
		s.takeSyncAux(l.client, info.Aux)
	})
	if !ran {
		return errLinkStopped
	}
	if loadErr != nil {
		return fmt.Errorf("Failed trying to load the MASTER synchronization DB from socket: %v", loadErr)
	}
	s.log.Info("MASTER <-> REPLICA sync: Finished with success")
	return nil
}

// restartAOF starts the AOF a sync stopped, unless appendonly was turned
// off meanwhile; false if it cannot start yet.
func (s *Server) restartAOF() bool {
	a := &s.aof
	if a.stoppedForSync && a.cfg.Enabled && !a.on.Load() && s.startAppendOnly() != nil {
		return false
	}
	a.stoppedForSync = false
	return true
}

// restartAOFAfterSync is restartAOFAfterSYNC, once the load of a full
// sync is over (or failed): the AOF it stopped starts again, its base
// rewritten from the new dataset. A rewrite that cannot start yet (the
// abandoned one still finishing) is tried again every second, as Redis
// tries ten times.
func (s *Server) restartAOFAfterSync() {
	if s.restartAOF() {
		return
	}
	s.log.Warn("Failed enabling the AOF after successful master synchronization! Trying it again in one second.")
	s.spawn(func() {
		for range 10 {
			select {
			case <-s.stop:
				return
			case <-time.After(time.Second):
			}
			ok := false
			s.Do(func() { ok = s.restartAOF() })
			if ok {
				return
			}
			s.log.Warn("Failed enabling the AOF after successful master synchronization! Trying it again in one second.")
		}
		s.log.Warn("FATAL: this replica instance finished the synchronization with its master, but the AOF can't be turned on.")
	})
}

// takeSyncAux applies what the master's RDB carries beside the keys: the
// database its stream has selected at the RDB's offset (repl-stream-db,
// which readSyncBulkPayload gives the master client: a chained master
// proxies a stream that may not start with a SELECT), and the scripts a
// floodgate replica puts in "lua" aux fields for its own replicas.
func (s *Server) takeSyncAux(master *Client, aux []rdb.Aux) {
	for _, a := range aux {
		switch {
		case strings.EqualFold(a.Key, "repl-stream-db"):
			if n, err := strconv.Atoi(a.Value); err == nil && n >= 0 && n < s.store.Databases() {
				master.db = s.store.DB(n)
			}
		case strings.EqualFold(a.Key, "lua"):
			s.scripting.engine().Load([]byte(a.Value))
		}
	}
}

// streamFromMaster applies the master's stream, one read at a time under
// the lock, and acknowledges the offset every second and when asked.
func (s *Server) streamFromMaster(l *masterLink, conn net.Conn, r *bufio.Reader, timeout func() time.Duration) error {
	stopAcks := make(chan struct{})
	defer close(stopAcks)
	var acked atomic.Int64
	send := func(args ...[]byte) error {
		b := aof.AppendCommand(nil, args...)
		l.wmu.Lock()
		defer l.wmu.Unlock()
		conn.SetWriteDeadline(time.Now().Add(timeout()))
		_, err := conn.Write(b)
		return err
	}
	sendAck := func(off int64) error {
		return send([]byte("REPLCONF"), []byte("ACK"), strconv.AppendInt(nil, off, 10))
	}
	var offset atomic.Int64
	s.linkLocked(l, func() { offset.Store(s.repl.offset) })
	sendAck(offset.Load())
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stopAcks:
				return
			case <-t.C:
				off := offset.Load()
				acked.Store(off)
				if sendAck(off) != nil {
					return
				}
			case <-l.scriptLoads:
				if l.takesScriptLoads.Load() && send([]byte("REPLCONF"), []byte("script-loads"), []byte("1")) != nil {
					return
				}
			}
		}
	}()
	parser := resp.Parser{MaxBulkLen: &s.protoMaxBulkLen}
	var buf []byte
	chunk := make([]byte, 64<<10)
	for {
		conn.SetReadDeadline(time.Now().Add(timeout()))
		n, err := r.Read(chunk)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return errors.New("MASTER timeout: no data nor PING received...")
			}
			if errors.Is(err, io.EOF) {
				return errors.New("Connection with master lost.")
			}
			return fmt.Errorf("Connection with master lost: %v", err)
		}
		l.lastIO.Store(time.Now().Unix())
		buf = append(buf, chunk[:n]...)
		var protoErr string
		used := 0
		ackAt := int64(-1)
		ran := s.linkLocked(l, func() {
			for used < len(buf) {
				st, m, args, msg := parser.Next(buf[used:], true)
				if st == resp.ParseIncomplete {
					break
				}
				if st == resp.ParseError {
					protoErr = msg
					return
				}
				raw := buf[used : used+m]
				used += m
				if st == resp.ParseSkip {
					s.proxyStream(l, raw)
					continue
				}
				s.applyFromMaster(l, args, raw)
				if l.ackNow {
					l.ackNow = false
					ackAt = s.repl.offset - int64(m) // before the GETACK itself, as Redis
				}
			}
			offset.Store(s.repl.offset)
		})
		if !ran {
			return errLinkStopped
		}
		if protoErr != "" {
			return fmt.Errorf("Protocol error from MASTER: %s", protoErr)
		}
		buf = append(buf[:0], buf[used:]...)
		if ackAt >= 0 {
			if err := sendAck(ackAt); err != nil {
				return err
			}
		}
	}
}

// applyFromMaster runs one command of the stream as the master client
// (replies dropped) and proxies its bytes once it is not inside a MULTI,
// as Redis advances the replica's offset only outside one.
func (s *Server) applyFromMaster(l *masterLink, args [][]byte, raw []byte) {
	c := l.client
	if len(args) == 3 && eqFold(args[0], "replconf") && eqFold(args[1], "getack") {
		l.ackNow = true
		s.proxyStream(l, raw)
		return
	}
	cmd, rf := check(c, args, false)
	switch {
	case rf != nil:
		s.log.Warn("Command from the master refused: " + rf.msg)
	case c.multi != nil && !queuesImmediately(cmd):
		c.queue(cmd, args)
	default:
		s.store.ExpiredLive = true
		s.invoke(c, cmd, args)
		s.store.ExpiredLive = false
	}
	out := c.resp.Out()
	out.B = out.B[:0]
	s.proxyStream(l, raw)
}

// proxyStream feeds applied master bytes to this server's own backlog and
// replicas, holding those of an open MULTI until it closes.
func (s *Server) proxyStream(l *masterLink, raw []byte) {
	if l.client.multi != nil {
		l.pendingMeta = append(l.pendingMeta, raw...)
		return
	}
	if len(l.pendingMeta) > 0 {
		raw = append(l.pendingMeta, raw...)
		l.pendingMeta = nil
	}
	s.replicationFeed(raw)
}

// infoReplicaLink is the part of INFO replication a replica adds.
func (s *Server) infoReplicaLink(b *infoBuilder, l *masterLink) {
	b.str("role", "slave")
	b.str("master_host", l.host)
	b.int("master_port", int64(l.port))
	now := time.Now().Unix()
	if l.up.Load() {
		b.str("master_link_status", "up")
	} else {
		b.str("master_link_status", "down")
	}
	last := int64(-1)
	if io := l.lastIO.Load(); io != 0 {
		last = now - io
	}
	b.int("master_last_io_seconds_ago", last)
	b.int("master_sync_in_progress", boolInt(l.syncing.Load()))
	b.int("slave_read_repl_offset", s.repl.offset)
	b.int("slave_repl_offset", s.repl.offset)
	if !l.up.Load() {
		b.int("master_link_down_since_seconds", now-l.downSince.Load())
	}
	prio, _ := strconv.ParseInt(s.configValue("replica-priority"), 10, 64)
	b.int("slave_priority", prio)
	b.int("slave_read_only", boolInt(s.configValue("replica-read-only") == "yes"))
	b.int("replica_announced", boolInt(s.configValue("replica-announced") == "yes"))
}

// replicaRefusal is what a replica answers a command of a client other
// than its master's: READONLY for a write with replica-read-only yes, and
// MASTERDOWN, with replica-serve-stale-data no, for a command not flagged
// stale while the link is down ("" otherwise).
func (s *Server) replicaRefusal(c *Client, cmd *Command, args [][]byte) string {
	l := s.repl.master
	if l == nil || l.client == c {
		return ""
	}
	if s.configValue("replica-read-only") == "yes" && isWrite(c, cmd, args) {
		return errReadOnlyReplica
	}
	if !l.up.Load() && s.configValue("replica-serve-stale-data") == "no" && deniesStale(c, cmd, args) {
		return errMasterDown
	}
	return ""
}
