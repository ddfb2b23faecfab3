package server

import "time"

// idleCron closes clients idle for longer than timeout seconds, as Redis's
// clientsCronHandleTimeout: once a second, under the execution lock. Idle
// means no command ran; a client inside MULTI is closed like any other,
// as in Redis. (Redis also counts a partly received request as activity;
// the transport keeps its own read deadline for those.)
func (s *Server) idleCron() {
	defer s.stopped.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		limit := time.Duration(s.idleTimeout.Load()) * time.Second
		if limit <= 0 {
			continue
		}
		s.lock <- struct{}{}
		s.closeIdle(time.Now(), limit)
		<-s.lock
	}
}

// closeIdle closes every network client whose last command is older than
// limit; the caller holds the execution lock.
func (s *Server) closeIdle(now time.Time, limit time.Duration) int {
	closed := 0
	for _, cl := range s.clientsByID() {
		last := cl.lastActive
		if last.IsZero() {
			last = cl.created
		}
		// A blocked client waits by its own timeout, as in Redis.
		if cl.conn == nil || cl.isBlocked() || now.Sub(last) <= limit {
			continue
		}
		s.log.Debug("Closing idle client")
		// Not running (we hold the lock): closing its socket ends its read
		// loop, which unregisters it, as CLIENT KILL does.
		cl.conn.tr.kill()
		closed++
	}
	return closed
}
