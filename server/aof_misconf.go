package server

// MISCONF: write commands refused while the last background save failed
// or the AOF cannot be written.

// aofError is the MISCONF error write commands get while the AOF cannot
// be written or fsynced (Redis's writeCommandsGetDiskErrorMessage), or ""
// when it can.
func (s *Server) aofError() string {
	if err := s.aofWriteError(); err != nil {
		return "MISCONF Errors writing to the AOF file: " + errnoText(err)
	}
	return ""
}

// aofWriteError is the error that keeps the AOF from being written or
// fsynced, or nil.
func (s *Server) aofWriteError() error {
	a := &s.aof
	if !a.failing.Load() || !a.on.Load() {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.writeErr != nil {
		return a.writeErr
	}
	return a.fsyncErr
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

// isWrite reports whether a command counts as a write for MISCONF,
// READONLY and min-replicas, as processCommand's is_write_command: its
// flags (a script's, see commandFlags) say write, or it is EXEC of a
// transaction that queued such a command.
func isWrite(c *Client, cmd *Command, args [][]byte) bool {
	if cmd.Name == "exec" {
		return c.multi != nil && c.multi.flags.Has(FlagWrite)
	}
	return commandFlags(c, cmd, args).Has(FlagWrite)
}

// deniesStale reports whether a stale replica refuses the command with
// MASTERDOWN (processCommand's is_denystale_command): it is not flagged
// stale, or it is EXEC of a transaction that queued such a command.
func deniesStale(c *Client, cmd *Command, args [][]byte) bool {
	if cmd.Name == "exec" {
		return c.multi != nil && c.multi.notStale
	}
	return !commandFlags(c, cmd, args).Has(FlagStale)
}
