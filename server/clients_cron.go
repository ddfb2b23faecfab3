package server

import "time"

// clientsCron is Redis's clientsCron for what floodgate enforces there:
// query buffer resizing (clientsCronResizeQueryBuffer, which the event
// loop runs on its connections), timeout (clientsCronHandleTimeout) and
// the output buffer limits of
// clients whose replies wait for a reader (a client over its soft limit
// gets no new replies to be checked on), and client eviction
// (maxmemory-clients: every client's memory noted, then evictClients). It runs hz times a second and
// takes the execution lock briefly, as active expiry does.
func (s *Server) clientsCron() {
	for {
		hz := max(int(s.hz.Load()), 1)
		select {
		case <-s.stop:
			return
		case <-time.After(time.Second / time.Duration(hz)):
		}
		if l := s.loop.Load(); l != nil {
			l.requestResize()
		}
		now := time.Now()
		s.resizeReplyBuffers(now)
		s.checkClients(now)
	}
}

// checkClients closes the clients idle for more than timeout seconds
// and those over their output buffer limit.
func (s *Server) checkClients(now time.Time) {
	timeout := s.idleTimeout.Load()
	if lim := s.OutputLimits()[0]; timeout == 0 && lim.Hard == 0 && lim.Soft == 0 && s.clientEvict.limit.Load() == 0 && s.pubsub.clients.Load() == 0 {
		return // Redis's defaults: nothing to check, so the lock is not taken
	}
	s.lock <- struct{}{}
	defer func() { <-s.lock }()
	if s.loading.active.Load() {
		return // no clientsCron while Redis loads (processEventsWhileBlocked runs only file events)
	}
	clients := s.clientsByID()
	for _, c := range clients {
		cn := c.conn
		if cn == nil {
			continue
		}
		// Blocked clients have their own timeout (blocking.go), as in
		// Redis; a half-sent request does not count as activity.
		if timeout > 0 && c.blockedOn == nil && !c.monitor && !c.isReplica() && ioTime(now)-cn.lastIO.Load() > timeout*int64(time.Second) {
			s.log.Debug("Closing idle client") // verbose, Redis's text
			cn.tr.kill()
			continue
		}
		if cn.overOutputLimit(now.Unix()) {
			s.logOutputLimit(c)
			cn.tr.kill()
		}
	}
	s.cronClientMemory(clients)
}

// resizeReplyBuffers is clientsCronResizeOutputBuffer for every client:
// the figures are atomics, so only the client set's lock is taken.
func (s *Server) resizeReplyBuffers(now time.Time) {
	ms := now.UnixMilli()
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	for c := range s.clients {
		if c.conn == nil {
			continue
		}
		switch c.conn.rbuf.cron(ms) {
		case 1:
			s.replyBufShrinks.Add(1)
		case -1:
			s.replyBufExpands.Add(1)
		}
	}
}
