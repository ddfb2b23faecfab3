package server

import (
	"strings"
	"time"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/luaengine"
)

// CLIENT PAUSE and UNPAUSE, as Redis 7.0's pauseClients: until the pause
// ends, a client's command that the pause covers (every command under
// ALL; under WRITE, those that may write: write and may-replicate commands,
// EXEC of a transaction with one, a script not declared no-writes) is
// postponed, with everything the client sent after it, and runs once the
// pause is over. A postponed client waits as a blocked client does
// (blocking.go), with no key to wait on and the pause's end as deadline.
// While paused, active expiry and eviction stop too, as in Redis.

const (
	pauseNone = iota
	pauseWrite
	pauseAll
)

// clientPause is the server's pause; guarded by the execution lock. Three
// purposes pause, as Redis's pause_purpose: CLIENT PAUSE (byClient, until
// its deadline or CLIENT UNPAUSE), FAILOVER (writes, until the failover
// ends) and a SHUTDOWN waiting for its replicas (writes, until it is
// aborted or fails); mode is the strongest.
type clientPause struct {
	mode     int
	byClient int
	until    int64 // unix ms of the server's clock, CLIENT PAUSE's end
	failover bool
	shutdown bool
	waiters  map[*waiter]struct{}
}

// effective is the strongest of the purposes' modes.
func (p *clientPause) effective() int {
	if p.failover || p.shutdown {
		return max(p.byClient, pauseWrite)
	}
	return p.byClient
}

const (
	errPauseMode    = "ERR CLIENT PAUSE mode must be WRITE or ALL"
	errPauseTimeout = "ERR timeout is not an integer or out of range"
)

// paused reports the pause in effect now.
func (s *Server) paused() int {
	if s.pause.byClient != pauseNone && s.store.Now() >= s.pause.until {
		// Over by its deadline: the block timer releases the clients
		// still waiting (theirs is the same deadline), unless FAILOVER's
		// pause holds them, without a deadline.
		s.pause.byClient = pauseNone
		if s.pause.mode = s.pause.effective(); s.pause.mode == pauseNone {
			clear(s.pause.waiters)
		}
	}
	return s.pause.mode
}

// postpones reports whether the pause holds cmd back.
func (s *Server) postpones(c *Client, cmd *Command, args [][]byte) bool {
	switch s.paused() {
	case pauseAll:
		return true
	case pauseWrite:
		return mayReplicate(c, cmd, args)
	}
	return false
}

// mayReplicate is Redis's is_may_replicate_command: cmd's flags as
// getCommandFlags sees them, or for EXEC those of any command queued
// (Redis's mstate.cmd_flags), a script's included.
func mayReplicate(c *Client, cmd *Command, args [][]byte) bool {
	if cmd.Name == "exec" {
		if c.multi == nil {
			return false
		}
		for i, q := range c.multi.cmds {
			if q.Name != "exec" && mayReplicate(c, q, c.multi.queued[i]) {
				return true
			}
		}
		return false
	}
	switch cmd.Name {
	case "fcall", "fcall_ro":
		// A function's flags say whether it writes (fcallGetCommandFlags);
		// an unknown one keeps the command's: FCALL may replicate.
		if flags := scriptFlags(c, cmd, args); flags&luaengine.FlagShebang != 0 {
			return flags&luaengine.FlagNoWrites == 0
		}
		return cmd.Name == "fcall"
	case "eval", "evalsha", "eval_ro", "evalsha_ro":
		// A script that declares flags writes unless it says no-writes
		// (scriptFlagsToCmdFlags); one that does not keeps the command's
		// flags: EVAL and EVALSHA may replicate (their row's
		// CMD_MAY_REPLICATE, which COMMAND INFO does not show), the _RO
		// forms do not.
		if flags := scriptFlags(c, cmd, args); flags&luaengine.FlagShebang != 0 {
			return flags&luaengine.FlagNoWrites == 0
		}
		return cmd.Name == "eval" || cmd.Name == "evalsha"
	}
	return cmd.Flags&(FlagWrite|FlagMayReplicate) != 0
}

// postpone makes c wait for the pause's end; its command runs again then.
func (s *Server) postpone(c *Client) {
	// Until CLIENT PAUSE's end (the command is dispatched again then, and
	// waits again if FAILOVER's or SHUTDOWN's pause covers it), else until
	// the failover or the shutdown ends.
	timeout := time.Duration(0)
	if s.pause.byClient != pauseNone {
		timeout = time.Duration(max(s.pause.until-s.store.Now(), 1)) * time.Millisecond
	}
	s.block(c, nil, 0, timeout, nil)
	w := c.blockedOn
	w.onTimeout = func(*Client) {} // nothing to answer: the command runs now
	if s.pause.waiters == nil {
		s.pause.waiters = make(map[*waiter]struct{})
	}
	s.pause.waiters[w] = struct{}{}
	c.postponed = true
}

// unpause ends CLIENT PAUSE's pause and lets every postponed client run
// (those FAILOVER's pause covers wait again).
func (s *Server) unpause() {
	s.pause.byClient = pauseNone
	s.releasePaused()
}

// pauseForFailover starts or ends FAILOVER's write pause
// (PAUSE_DURING_FAILOVER).
func (s *Server) pauseForFailover(on bool) { s.pauseWrites(&s.pause.failover, on) }

// pauseForShutdown starts or ends the write pause of a SHUTDOWN waiting
// for its replicas (PAUSE_DURING_SHUTDOWN).
func (s *Server) pauseForShutdown(on bool) { s.pauseWrites(&s.pause.shutdown, on) }

// pauseWrites sets one purpose's write pause; ending it lets the
// postponed clients run (those another purpose covers wait again).
func (s *Server) pauseWrites(purpose *bool, on bool) {
	*purpose = on
	if on {
		s.pause.mode = s.pause.effective()
		return
	}
	s.releasePaused()
}

// releasePaused sets the pause in effect and dispatches every postponed
// client again.
func (s *Server) releasePaused() {
	s.pause.mode = s.pause.effective()
	for w := range s.pause.waiters {
		if w.c.blockedOn == w {
			s.unblock(w, w.onTimeout)
		}
	}
	clear(s.pause.waiters)
}

// cmdClientPause is CLIENT PAUSE timeout [WRITE|ALL]: a pause already in
// effect is extended, and ALL outranks WRITE.
func cmdClientPause(c *Client, args [][]byte) {
	ms, ok := number.ParseInt(args[2])
	if !ok {
		c.w.Error(errPauseTimeout)
		return
	}
	if ms < 0 {
		c.w.Error(errTimeoutNegative)
		return
	}
	if len(args) > 4 {
		c.errorf("ERR unknown subcommand or wrong number of arguments for '%s'. Try CLIENT HELP.", sanitizeError(string(args[1])))
		return
	}
	mode := pauseAll
	if len(args) == 4 {
		switch {
		case strings.EqualFold(string(args[3]), "write"):
			mode = pauseWrite
		case strings.EqualFold(string(args[3]), "all"):
		default:
			c.w.Error(errPauseMode)
			return
		}
	}
	s := c.srv
	until := s.store.Now() + min(ms, 1<<50)
	if s.paused(); s.pause.byClient == pauseNone {
		s.pause.until = until
	} else {
		s.pause.until = max(s.pause.until, until)
	}
	s.pause.byClient = max(s.pause.byClient, mode)
	s.pause.mode = s.pause.effective()
	c.w.Status("OK")
}

func cmdClientUnpause(c *Client, _ [][]byte) {
	c.srv.unpause()
	c.w.Status("OK")
}
