package server

// FAILOVER, as Redis 7.0's coordinated failover (replication.c's
// failoverCommand and updateFailoverStatus): the master pauses writes,
// waits until a replica (the one named with TO, or any) has acknowledged
// its whole stream, then becomes a replica of it and sends it PSYNC with
// FAILOVER, which makes the replica a master that continues the old one's
// history (PSYNC2), so neither side loses or resyncs anything. The write
// pause ends when the new master answers the PSYNC; a TIMEOUT without the
// replica caught up aborts (or, with FORCE, fails over anyway); FAILOVER
// ABORT gives up at any point.

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// failoverState is server.failover_state.
type failoverState uint8

const (
	noFailover         failoverState = iota
	failoverWaitSync                 // waiting for the target to catch up
	failoverInProgress               // a replica of the target, PSYNC FAILOVER sent or to send
)

// String is INFO's master_failover_state.
func (f failoverState) String() string {
	switch f {
	case failoverWaitSync:
		return "waiting-for-sync"
	case failoverInProgress:
		return "failover-in-progress"
	}
	return "no-failover"
}

// failover is a FAILOVER under way; guarded by the execution lock but for
// on, which the replication cron's interval reads.
type failover struct {
	state failoverState
	end   time.Time // TIMEOUT's end; zero for none
	force bool
	host  string // the target, once known ("" before a replica is chosen)
	port  int
}

// Failover errors, as Redis 7.0 words them.
const (
	errFailoverInProgress = "ERR FAILOVER already in progress."
	errReplicaofFailover  = "ERR REPLICAOF not allowed while failing over."
	errSyncFailover       = "NOMASTERLINK Can't SYNC while failing over"
)

// cmdFailover is failoverCommand: FAILOVER [TO host port [FORCE]]
// [TIMEOUT ms] | ABORT.
func cmdFailover(c *Client, args [][]byte) {
	s := c.srv
	f := &s.repl.failover
	if len(args) == 2 && eqFold(args[1], "abort") {
		if f.state == noFailover {
			c.w.Error("ERR No failover in progress.")
			return
		}
		s.abortFailover("Failover manually aborted")
		c.w.Status("OK")
		return
	}
	var timeout, port int64
	var host []byte
	force := false
	for j := 1; j < len(args); j++ {
		switch a := string(args[j]); {
		case strings.EqualFold(a, "timeout") && j+1 < len(args) && timeout == 0:
			n, ok := intArg(c, args[j+1])
			if !ok {
				return
			}
			if n <= 0 {
				c.w.Error("ERR FAILOVER timeout must be greater than 0")
				return
			}
			timeout = n
			j++
		case strings.EqualFold(a, "to") && j+2 < len(args) && host == nil:
			n, ok := intArg(c, args[j+2])
			if !ok {
				return
			}
			host, port = args[j+1], n
			j += 2
		case strings.EqualFold(a, "force") && !force:
			force = true
		default:
			c.w.Error(errSyntax)
			return
		}
	}
	switch {
	case f.state != noFailover:
		c.w.Error(errFailoverInProgress)
		return
	case s.repl.master != nil:
		c.w.Error("ERR FAILOVER is not valid when server is a replica.")
		return
	case len(s.liveReplicas()) == 0:
		c.w.Error("ERR FAILOVER requires connected replicas.")
		return
	case force && (timeout == 0 || host == nil):
		c.w.Error("ERR FAILOVER with force option requires both a timeout and target HOST and IP.")
		return
	}
	if host != nil {
		l := s.findReplica(string(host), port)
		switch {
		case l == nil:
			c.w.Error("ERR FAILOVER target HOST and PORT is not a replica.")
			return
		case l.state != replicaOnline:
			c.w.Error("ERR FAILOVER target replica is not online.")
			return
		}
		f.host, f.port = string(host), int(port)
		s.log.Info(fmt.Sprintf("FAILOVER requested to %s:%d.", host, port))
	} else {
		s.log.Info("FAILOVER requested to any replica.")
	}
	if timeout > 0 {
		f.end = time.Now().Add(time.Duration(timeout) * time.Millisecond)
	}
	f.force = force
	f.state = failoverWaitSync
	s.repl.failoverOn.Store(true)
	s.pauseForFailover(true)
	c.w.Status("OK")
}

// findReplica is the replica announcing host (its REPLCONF ip-address or
// its peer address) and listening port.
func (s *Server) findReplica(host string, port int64) *replicaLink {
	for _, l := range s.liveReplicas() {
		ip := l.addr
		if ip == "" {
			ip = l.c.peerIP()
		}
		if strings.EqualFold(host, ip) && port == l.listeningPort {
			return l
		}
	}
	return nil
}

// updateFailoverStatus is run by the replication cron (every 100 ms
// during a failover) and after each ACK's command: it starts the failover
// once the target has acknowledged the whole stream, and ends the wait at
// TIMEOUT.
func (s *Server) updateFailoverStatus() {
	f := &s.repl.failover
	if f.state != failoverWaitSync {
		return
	}
	if !f.end.IsZero() && !time.Now().Before(f.end) {
		if f.force {
			s.log.Info(fmt.Sprintf("FAILOVER to %s:%d time out exceeded, failing over.", f.host, f.port))
			f.state = failoverInProgress
			s.setMaster(f.host, f.port)
			return
		}
		s.abortFailover("Replica never caught up before timeout")
		return
	}
	var target *replicaLink
	if f.host != "" {
		target = s.findReplica(f.host, int64(f.port))
	} else {
		for _, l := range s.liveReplicas() {
			if l.state == replicaOnline && l.ackOffset == s.repl.offset {
				target = l
				f.host, f.port = l.addr, int(l.listeningPort)
				if f.host == "" {
					f.host = l.c.peerIP()
				}
				break
			}
		}
	}
	if target != nil && target.ackOffset == s.repl.offset {
		f.state = failoverInProgress
		s.log.Info(fmt.Sprintf("Failover target %s:%d is synced, failing over.", f.host, f.port))
		s.setMaster(f.host, f.port)
	}
}

// abortFailover gives up a failover: a server already made a replica of
// the target becomes a master again (abortFailover).
func (s *Server) abortFailover(why string) {
	f := &s.repl.failover
	if f.state == noFailover {
		return
	}
	if f.host != "" {
		s.log.Info(fmt.Sprintf("FAILOVER to %s:%d aborted: %s", f.host, f.port, why))
	} else {
		s.log.Info("FAILOVER to any replica aborted: " + why)
	}
	if f.state == failoverInProgress && s.repl.master != nil {
		s.unsetMaster()
	}
	s.clearFailover()
}

// clearFailover ends the failover's state and its write pause
// (clearFailoverState).
func (s *Server) clearFailover() {
	s.repl.failover = failover{}
	s.repl.failoverOn.Store(false)
	s.pauseForFailover(false)
}

// psyncFailover is the FAILOVER argument of PSYNC replid offset FAILOVER,
// sent by a master failing over to this replica: with the replica's own
// ID it becomes a master, and the PSYNC then continues as any other
// (the old master's ID is now its replid2). It reports whether the PSYNC
// goes on.
func (s *Server) psyncFailover(c *Client, replid string) bool {
	s.log.Warn("Failover request received for replid " + replid + ".")
	if s.repl.master == nil {
		c.w.Error("ERR PSYNC FAILOVER can't be sent to a master.")
		return false
	}
	if !strings.EqualFold(replid, s.repl.id) {
		c.w.Error("ERR PSYNC FAILOVER replid must match my replid.")
		return false
	}
	s.unsetMaster()
	s.log.Info("MASTER MODE enabled (failover request from '" + c.infoLine(time.Now(), nil) + "')")
	return true
}

// failoverPSYNC is what a replica's PSYNC carries: FAILOVER while this
// server fails over to its master.
func (s *Server) failoverPSYNC(replid string, offset int64) []string {
	args := []string{"PSYNC", replid, strconv.FormatInt(offset, 10)}
	if s.repl.failover.state == failoverInProgress {
		args = append(args, "FAILOVER")
	}
	return args
}
