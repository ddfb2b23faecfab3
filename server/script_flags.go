package server

import "github.com/floodgate/floodgate/luaengine"

// A script's flags against the server's state, in two places as in Redis:
// processCommand reads a shebang's (or a function's) flags as the
// command's own (scriptFlagsToCmdFlags), so a write function meets the
// generic MISCONF, READONLY and MASTERDOWN errors; scriptPrepareForRun then
// checks them again with texts that name the flags, which a call queued in
// MULTI under other flags (the function replaced meanwhile) reaches.

// Errors of scriptPrepareForRun and scriptCall, with Redis's texts.
const (
	errScriptMasterDown = "MASTERDOWN Link with MASTER is down, replica-serve-stale-data is set to 'no' and 'allow-stale' flag is not set on the script."
	errScriptMisconfRDB = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Writable scripts are blocked. Use 'no-writes' flag for read only scripts."
	errScriptMisconfAOF = "MISCONF Redis is configured to persist data to AOF, but it's currently unable to persist to disk. Writable scripts are blocked. Use 'no-writes' flag for read only scripts. AOF error: "
	errScriptStale      = "ERR Can not execute the command on a stale replica"
)

// commandFlags are cmd's flags as processCommand sees them
// (getCommandFlags): for EVAL, EVALSHA, FCALL and their _RO forms running
// a script with a shebang (every function has one), write, denyoom and
// stale come from the script's flags.
func commandFlags(c *Client, cmd *Command, args [][]byte) Flags {
	switch cmd.Name {
	case "eval", "eval_ro", "evalsha", "evalsha_ro", "fcall", "fcall_ro":
	default:
		return cmd.Flags
	}
	sf := scriptFlags(c, cmd, args)
	if sf&luaengine.FlagShebang == 0 {
		return cmd.Flags
	}
	f := cmd.Flags &^ (FlagStale | FlagDenyOOM | FlagWrite | FlagMayReplicate)
	if sf&(luaengine.FlagAllowOOM|luaengine.FlagNoWrites) == 0 {
		f |= FlagDenyOOM
	}
	if sf&luaengine.FlagNoWrites == 0 {
		f |= FlagWrite
	}
	if sf&luaengine.FlagAllowStale != 0 {
		f |= FlagStale
	}
	return f
}

// runningStale is Redis's running_stale: a replica whose link is down,
// told not to serve stale data.
func (s *Server) runningStale() bool {
	l := s.repl.master
	return l != nil && !l.up.Load() && s.configValue("replica-serve-stale-data") == "no"
}

// scriptRefusal is scriptPrepareForRun's checks for a script with flags
// run by c (readOnly: EVAL_RO, EVALSHA_RO, FCALL_RO), in its order, or "".
// no-cluster is not checked: floodgate has no cluster mode, where Redis
// refuses it ("Can not run script on cluster, 'no-cluster' flag is set.").
func (s *Server) scriptRefusal(c *Client, flags luaengine.Flags, readOnly bool) string {
	if flags&luaengine.FlagShebang == 0 {
		if s.runningStale() {
			return errMasterDown
		}
		return ""
	}
	if flags&luaengine.FlagAllowStale == 0 && s.runningStale() {
		return errScriptMasterDown
	}
	if flags&luaengine.FlagNoWrites == 0 {
		obey := c.isMasterClient()
		if s.repl.master != nil && !obey && s.configValue("replica-read-only") == "yes" {
			return errScriptRO
		}
		if !obey {
			if s.writesRefused() {
				return errScriptMisconfRDB
			}
			if err := s.aofWriteError(); err != nil {
				return errScriptMisconfAOF + errnoText(err)
			}
		}
		if readOnly {
			return errROWithWriteFlag
		}
		if s.repl.master == nil {
			if msg := s.noReplicasError(); msg != "" {
				return msg
			}
		}
	}
	if s.memory.max > 0 && s.memory.preOOM && flags&(luaengine.FlagAllowOOM|luaengine.FlagNoWrites) == 0 {
		return errScriptOOM
	}
	return ""
}
