package server

// MISCONF: write commands refused while the last background save failed
// or the AOF cannot be written.

import "github.com/floodgate/floodgate/luaengine"

// aofError is the MISCONF error write commands get while the AOF cannot
// be written or fsynced (Redis's writeCommandsGetDiskErrorMessage), or ""
// when it can.
func (s *Server) aofError() string {
	a := &s.aof
	if !a.failing.Load() || !a.on.Load() {
		return ""
	}
	a.mu.Lock()
	err := a.writeErr
	if err == nil {
		err = a.fsyncErr
	}
	a.mu.Unlock()
	if err == nil {
		return ""
	}
	return "MISCONF Errors writing to the AOF file: " + errnoText(err)
}

// diskError is the MISCONF error write commands get when the last
// background save failed or the AOF cannot be written, or "" (Redis's
// writeCommandsDeniedByDiskError and writeCommandsGetDiskErrorMessage).
func (s *Server) diskError() string {
	if s.writesRefused() {
		return errMisconf
	}
	return s.aofError()
}

// isWrite reports whether a command counts as a write for MISCONF, as
// processCommand's is_write_command: flagged write, or EXEC of a
// transaction holding one, or EVAL/EVALSHA of a script whose shebang does
// not say no-writes (a script without one is judged per redis.call).
func isWrite(c *Client, cmd *Command, args [][]byte) bool {
	switch cmd.Name {
	case "exec":
		if c.multi == nil {
			return false
		}
		for _, q := range c.multi.cmds {
			if q.Flags.Has(FlagWrite) {
				return true
			}
		}
		return false
	case "eval", "evalsha", "fcall":
		flags := scriptFlags(c, cmd, args)
		return flags&luaengine.FlagShebang != 0 && flags&luaengine.FlagNoWrites == 0
	}
	return cmd.Flags.Has(FlagWrite)
}
