package server

import (
	"fmt"
	"strconv"
)

// minReservedFDs is what Redis keeps for itself beyond maxclients
// (CONFIG_MIN_RESERVED_FDS: listeners, logs, files).
const minReservedFDs = 32

// adjustOpenFilesLimit is Redis's: it raises RLIMIT_NOFILE for maxclients
// plus 32 descriptors, or lowers maxclients to what the limit allows,
// with Redis's log lines. It returns maxclients in effect.
func (s *Server) adjustOpenFilesLimit(maxclients int64) int64 {
	want := uint64(maxclients) + minReservedFDs
	limit, was, err := openFilesLimit(want)
	if limit >= want {
		if limit != was {
			s.log.Info(fmt.Sprintf("Increased maximum number of open files to %d (it was originally set to %d).", limit, was))
		}
		return maxclients
	}
	reduced := int64(limit) - minReservedFDs
	if reduced < 1 {
		reduced = 1
	}
	s.log.Warn(fmt.Sprintf("You requested maxclients of %d requiring at least %d max file descriptors.", maxclients, want))
	if err != nil {
		s.log.Warn(fmt.Sprintf("Server can't set maximum open files to %d because of OS error: %s.", want, errnoText(err)))
	}
	s.log.Warn(fmt.Sprintf("Current maximum open files is %d. maxclients has been reduced to %d to compensate for low ulimit. If you need higher maxclients increase 'ulimit -n'.", limit, reduced))
	return reduced
}

// setMaxClients is CONFIG SET maxclients (updateMaxclients): raising it
// needs the descriptors, or it is refused naming what the system allows.
func setMaxClients(s *Server, v string) string {
	n, _ := strconv.ParseInt(v, 10, 64)
	if s.front != nil && n > s.maxClients.Load() {
		if got := s.adjustOpenFilesLimit(n); got != n {
			s.maxClients.Store(got)
			return "The operating system is not able to handle the specified number of clients, try with " + strconv.FormatInt(got, 10)
		}
	}
	s.maxClients.Store(n)
	return ""
}

// AdjustOpenFilesLimit fits maxclients to the descriptor limit at start,
// as Redis does (the binary calls it after Init).
func (s *Server) AdjustOpenFilesLimit() {
	s.maxClients.Store(s.adjustOpenFilesLimit(s.maxClients.Load()))
}
