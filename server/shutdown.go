package server

// SHUTDOWN and the shutdown a signal asks for, as Redis 7.0's server.c
// (prepareForShutdown, isReadyToShutdown, finishShutdown, abortShutdown)
// and db.c's shutdownCommand: with replicas attached and neither NOW nor
// shutdown-timeout 0, the master pauses writes (the pause's shutdown
// purpose, PAUSE_DURING_SHUTDOWN), asks the replicas for an ACK and waits
// until each has acknowledged the whole stream or shutdown-timeout seconds
// pass; then it saves (unless NOSAVE, or without save points and SAVE) and
// exits. The SHUTDOWN caller is blocked meanwhile; other clients are
// served, their writes held by the pause. SHUTDOWN ABORT, or a save that
// fails without FORCE, cancels it: the pause ends and the blocked callers
// get Redis's error.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Shutdown flags, Redis's SHUTDOWN_* (the bits of shutdown-on-sig*).
const (
	shutdownSave   = 1 << iota // save even without save points
	shutdownNoSave             // never save
	shutdownNow                // do not wait for the replicas
	shutdownForce              // exit even when the save fails
)

// shutdownFlagNames are shutdown-on-sig*'s words in config.c's order
// (shutdown_on_sig_enum), which CONFIG GET prints them in.
var shutdownFlagNames = []struct {
	name string
	flag int
}{{"save", shutdownSave}, {"nosave", shutdownNoSave}, {"now", shutdownNow}, {"force", shutdownForce}}

const (
	errShutdownFailed     = "ERR Errors trying to SHUTDOWN. Check logs."
	errNoShutdown         = "ERR No shutdown in progress."
	errShutdownDenyBlock  = "ERR SHUTDOWN without NOW or ABORT isn't allowed for DENY BLOCKING client"
	shutdownCheckInterval = 100 * time.Millisecond // serverCron's period at hz 10, where Redis checks
)

// errShutdownPending is prepareShutdown's answer while the shutdown waits
// for the replicas (or one already does).
var errShutdownPending = errors.New("shutdown waits for the replicas")

// shutdownState is a shutdown under way; guarded by the execution lock but
// for asap.
type shutdownState struct {
	flags int
	// deadline is shutdown_mstime: when the wait for the replicas ends;
	// zero while no shutdown is initiated.
	deadline time.Time
	// asap is shutdown_asap: a signal asked for a shutdown, which has not
	// ended yet (a second SIGINT then exits at once).
	asap    atomic.Bool
	waiters []*waiter     // blocked SHUTDOWN callers
	wake    chan struct{} // an ACK that may end the wait
}

// initiated is isShutdownInitiated.
func (s *Server) shutdownInitiated() bool { return !s.shut.deadline.IsZero() }

// cmdShutdown is shutdownCommand: SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] |
// ABORT. While a script is busy only NOSAVE is allowed, and it stops the
// script. The server cannot close itself here (Close waits for the batch
// in flight, which is this one), so it closes from another goroutine, and
// cmd/floodgate then exits 0.
func cmdShutdown(c *Client, args [][]byte) {
	flags, abort := 0, false
	for _, a := range args[1:] {
		switch {
		case eqFold(a, "nosave"):
			flags |= shutdownNoSave
		case eqFold(a, "save"):
			flags |= shutdownSave
		case eqFold(a, "now"):
			flags |= shutdownNow
		case eqFold(a, "force"):
			flags |= shutdownForce
		case eqFold(a, "abort"):
			abort = true
		default:
			c.w.Error(errSyntax)
			return
		}
	}
	if (abort && flags != 0) || (flags&shutdownSave != 0 && flags&shutdownNoSave != 0) {
		c.w.Error(errSyntax)
		return
	}
	s := c.srv
	if abort {
		if !s.abortShutdown() {
			c.w.Error(errNoShutdown)
			return
		}
		c.w.Status("OK")
		return
	}
	if flags&shutdownNow == 0 && c.conn == nil {
		c.w.Error(errShutdownDenyBlock)
		return
	}
	busy := s.scripting.busy.Load()
	if busy && flags&shutdownNoSave == 0 {
		c.w.Error(s.busyError())
		return
	}
	switch err := s.prepareShutdown(flags); err {
	case nil:
		if busy {
			if e := s.scripting.current(); e != nil {
				e.Abort()
			}
		}
		c.closing = true
		go s.Close()
	case errShutdownPending:
		// Blocked until the shutdown ends: an exit answers nothing (the
		// connection closes), an abort or a failed save answers an error.
		s.block(c, nil, 0, 0, nil)
		w := c.blockedOn
		w.shutdown = true
		w.onTimeout = func(c *Client) { c.w.Error(errShutdownFailed) }
		s.shut.waiters = append(s.shut.waiters, w)
	default:
		c.w.Error(errShutdownFailed)
	}
}

// prepareShutdown is prepareForShutdown: nil when the server may exit now
// (the caller closes it), errShutdownPending when it waits for lagging
// replicas (the shutdown check finishes it), or the error of a final save
// that failed, the shutdown cancelled. The caller holds the execution lock.
func (s *Server) prepareShutdown(flags int) error {
	if s.shutdownInitiated() {
		return errShutdownPending
	}
	// Never save a half-loaded dataset.
	if s.loading.active.Load() {
		flags = flags&^shutdownSave | shutdownNoSave
	}
	s.shut.flags = flags
	s.log.Warn("User requested shutdown...")
	timeout, _ := strconv.ParseInt(s.configValue("shutdown-timeout"), 10, 64)
	if flags&shutdownNow == 0 && timeout != 0 && !s.replicasCaughtUp() {
		s.shut.deadline = time.Now().Add(time.Duration(timeout) * time.Second)
		if s.paused() == pauseNone {
			s.feedCommand(-1, []byte("REPLCONF"), []byte("GETACK"), []byte("*"))
		}
		s.pauseForShutdown(true)
		s.log.Info("Waiting for replicas before shutting down.")
		if s.shut.wake == nil {
			s.shut.wake = make(chan struct{}, 1)
		}
		s.spawn(s.shutdownCheck)
		return errShutdownPending
	}
	return s.finishShutdown()
}

// replicasCaughtUp is isReadyToShutdown: every replica, whatever its
// state, has acknowledged the master's whole stream.
func (s *Server) replicasCaughtUp() bool {
	for _, l := range s.liveReplicas() {
		if l.ackOffset != s.repl.offset {
			return false
		}
	}
	return true
}

// shutdownCheck is serverCron's part of a shutdown under way: every 100 ms,
// and after an ACK, it finishes the shutdown once the replicas have caught
// up or the time is up, and exits when the shutdown is cancelled.
func (s *Server) shutdownCheck() {
	t := time.NewTicker(shutdownCheckInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		case <-s.shut.wake:
		}
		s.lock <- struct{}{}
		s.store.Refresh()
		over, exit := !s.shutdownInitiated(), false
		if !over && (!time.Now().Before(s.shut.deadline) || s.replicasCaughtUp()) {
			over, exit = true, s.finishShutdown() == nil
		}
		<-s.lock
		if exit {
			go s.Close()
		}
		if over {
			return
		}
	}
}

// shutdownAcked is told of each replica's ACK: one that may complete the
// wait wakes shutdownCheck at once rather than at its next tick.
func (s *Server) shutdownAcked() {
	if s.shutdownInitiated() && s.replicasCaughtUp() {
		select {
		case s.shut.wake <- struct{}{}:
		default:
		}
	}
}

// finishShutdown is finishShutdown: it logs the replicas still behind,
// abandons a background save, and saves with save points set or SAVE,
// unless NOSAVE. If that save fails the server must not exit (it would
// lose every change since the last good save) unless FORCE is given: the
// shutdown is cancelled and the error returned.
func (s *Server) finishShutdown() error {
	flags := s.shut.flags
	replicas, lagging := 0, 0
	now := time.Now()
	for _, l := range s.liveReplicas() {
		replicas++
		if l.ackOffset == s.repl.offset {
			continue
		}
		lagging++
		lag := int64(0)
		if l.state == replicaOnline {
			lag = now.Unix() - l.ackTime.Unix()
		}
		s.log.Warn(fmt.Sprintf("Lagging replica %s reported offset %d behind master, lag=%d, state=%s.",
			l.name(), s.repl.offset-l.ackOffset, lag, l.stateName()))
	}
	if replicas > 0 {
		s.log.Info(fmt.Sprintf("%d of %d replicas are in sync when shutting down.", replicas-lagging, replicas))
	}
	if b := s.persist.bgsave; b != nil {
		s.log.Warn("There is a child saving an .rdb. Killing it!")
		b.abort = true
	}
	if flags&shutdownNoSave != 0 || (flags&shutdownSave == 0 && len(s.persist.points) == 0) {
		return nil
	}
	s.log.Info("Saving the final RDB snapshot before exiting.")
	err := s.saveRDB()
	if err == nil {
		return nil
	}
	if flags&shutdownForce != 0 {
		s.log.Warn("Error trying to save the DB. Exit anyway.")
		return nil
	}
	s.log.Warn("Error trying to save the DB, can't exit.")
	s.log.Warn("Errors trying to shut down the server. Check the logs for more information.")
	s.cancelShutdown()
	return err
}

// cancelShutdown is cancelShutdown: the shutdown and a signal's request
// are forgotten, the blocked SHUTDOWN callers answered an error, the write
// pause ended.
func (s *Server) cancelShutdown() {
	sh := &s.shut
	sh.asap.Store(false)
	sh.flags, sh.deadline = 0, time.Time{}
	for _, w := range sh.waiters {
		if w.c.blockedOn == w {
			s.unblock(w, w.onTimeout)
		}
	}
	clear(sh.waiters)
	sh.waiters = sh.waiters[:0]
	s.pauseForShutdown(false)
}

// abortShutdown is SHUTDOWN ABORT: false when no shutdown is initiated or
// asked for by a signal.
func (s *Server) abortShutdown() bool {
	switch {
	case s.shutdownInitiated():
		s.cancelShutdown()
	case s.shut.asap.Load():
		s.shut.asap.Store(false)
	default:
		return false
	}
	s.log.Info("Shutdown manually aborted.")
	return true
}

// RequestShutdown is what the binary does on SIGTERM (sigint false) or
// SIGINT, as Redis's signal handler and serverCron do: once the command in
// flight is over (a busy script included, which SCRIPT KILL or SHUTDOWN
// NOSAVE end sooner) it shuts down with shutdown-on-sigterm's or
// shutdown-on-sigint's flags, waiting for the replicas as SHUTDOWN does.
// It returns at once; Done is closed when the server closes. A shutdown
// that fails (its save) or is aborted leaves the server running.
func (s *Server) RequestShutdown(sigint bool) {
	s.shut.asap.Store(true)
	go func() {
		select {
		case s.lock <- struct{}{}:
		case <-s.stop:
			return
		}
		exit := false
		func() {
			defer func() { <-s.lock }()
			if !s.shut.asap.Load() || s.shutdownInitiated() {
				return // aborted meanwhile, or a SHUTDOWN's wait goes on
			}
			name := "shutdown-on-sigterm"
			if sigint {
				name = "shutdown-on-sigint"
			}
			flags, _, _ := parseShutdownFlags(s.configValue(name))
			exit = s.prepareShutdown(flags) == nil
		}()
		if exit {
			s.Close()
		}
	}()
}

// ShutdownRequested reports whether a signal's shutdown is under way
// (Redis's shutdown_asap): a second SIGINT then exits at once.
func (s *Server) ShutdownRequested() bool { return s.shut.asap.Load() }

// parseShutdownFlags reads shutdown-on-sig*'s words (configEnumGetValue
// with bitflags) into flags and the canonical value, as CONFIG GET prints
// it (configEnumGetName), or Redis's reason for refusing them.
func parseShutdownFlags(v string) (int, string, string) {
	words := strings.Fields(v)
	flags := 0
	for _, w := range words {
		if strings.EqualFold(w, "default") {
			continue
		}
		found := false
		for _, f := range shutdownFlagNames {
			if strings.EqualFold(w, f.name) {
				flags |= f.flag
				found = true
			}
		}
		if !found {
			return 0, "", "argument(s) must be one of the following: default, save, nosave, now, force"
		}
	}
	if len(words) == 0 {
		return 0, "", "argument(s) must be one of the following: default, save, nosave, now, force"
	}
	if flags&shutdownSave != 0 && flags&shutdownNoSave != 0 {
		return 0, "", "shutdown options SAVE and NOSAVE can't be used simultaneously"
	}
	if flags == 0 {
		return 0, "default", ""
	}
	var names []string
	for _, f := range shutdownFlagNames {
		if flags&f.flag != 0 {
			names = append(names, f.name)
		}
	}
	return flags, strings.Join(names, " "), ""
}

// shutdownParams are the shutdown settings, read when a shutdown starts.
var shutdownParams = map[string]floodgateParam{
	"shutdown-timeout":    {effect: effectApplied},
	"shutdown-on-sigterm": {effect: effectApplied, parse: shutdownFlagsParam},
	"shutdown-on-sigint":  {effect: effectApplied, parse: shutdownFlagsParam},
}

func shutdownFlagsParam(v string) (string, string) {
	_, canon, why := parseShutdownFlags(v)
	return canon, why
}

// infoShutdown is INFO server's shutdown_in_milliseconds, shown while a
// shutdown waits for the replicas.
func infoShutdown(s *Server, b *infoBuilder) {
	if s.shutdownInitiated() {
		b.int("shutdown_in_milliseconds", time.Until(s.shut.deadline).Milliseconds())
	}
}
