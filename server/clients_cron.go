package server

import (
	"sync/atomic"
	"time"
)

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
		hz := s.updateCronHz()
		select {
		case <-s.stop:
			return
		case <-time.After(time.Second / time.Duration(hz)):
		}
		if l := s.loop.Load(); l != nil {
			l.RequestResize()
		}
		now := time.Now()
		s.cronClientBuffers(now)
		s.checkClients(now)
	}
}

// maxClientsPerTick and maxHz are Redis's MAX_CLIENTS_PER_CLOCK_TICK and
// CONFIG_MAX_HZ.
const (
	maxClientsPerTick = 200
	maxHz             = 500
)

// updateCronHz sets the cron's rate from hz, dynamic-hz and the number of
// clients (cronHz); INFO reports it as hz.
func (s *Server) updateCronHz() int {
	hz := cronHz(int(s.hz.Load()), s.clientCount(), !s.fixedHz.Load())
	s.cronHz.Store(int32(hz))
	return hz
}

// cronHz is serverCron's server.hz: the configured hz, doubled (dynamic)
// while there are more than 200 clients per tick, up to 500.
func cronHz(configured, clients int, dynamic bool) int {
	hz := max(configured, 1)
	for dynamic && clients/hz > maxClientsPerTick {
		if hz *= 2; hz > maxHz {
			return maxHz
		}
	}
	return hz
}

// peakSlots is Redis's CLIENTS_PEAK_MEM_USAGE_SLOTS: one slot per second,
// so INFO's client_recent_max_* are the peaks of the last 8 seconds.
const peakSlots = 8

// clientPeaks are the largest query and output buffers the clients cron
// saw in each of the last peakSlots seconds (clientsCronTrackExpansiveClients).
// The clients cron makes them when it first runs: inline, their 128 B took
// the Server a size class up, which every test double allocates.
type clientPeaks struct {
	in, out [peakSlots]atomic.Int64
}

// cronClientBuffers is the buffer half of Redis's clientsCron, in one
// pass over the clients: each client's reply buffer is resized
// (clientsCronResizeOutputBuffer) and its buffers noted in the current
// second's peak slot after the next one is cleared
// (clientsCronTrackExpansiveClients). The figures are atomics, so only
// the client set's lock is taken, not the execution lock.
func (s *Server) cronClientBuffers(now time.Time) {
	p := s.clientPeaks.Load()
	if p == nil {
		// The clients cron is the only writer: no other can store first.
		p = new(clientPeaks)
		s.clientPeaks.Store(p)
	}
	slot := now.Unix() % peakSlots
	p.in[(slot+1)%peakSlots].Store(0)
	p.out[(slot+1)%peakSlots].Store(0)
	ms := now.UnixMilli()
	resizing, peakReset := s.replyResizing.Load(), s.replyPeakResetMs.Load()
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	for c := range s.clients {
		cn := c.conn
		if cn == nil {
			continue
		}
		if resizing {
			switch cn.rbuf.cron(ms, peakReset) {
			case 1:
				s.replyBufShrinks.Add(1)
			case -1:
				s.replyBufExpands.Add(1)
			}
		}
		// Redis: the query buffer's allocation plus the parsed arguments;
		// the reply list's bytes.
		in := cn.qbuf.Load() + cn.qbufFree.Load() + cn.argvMem.Load()
		if in > p.in[slot].Load() {
			p.in[slot].Store(in)
		}
		if out := cn.omem.Load(); out > p.out[slot].Load() {
			p.out[slot].Store(out)
		}
	}
}

// recent returns the peaks over the last peakSlots seconds; none (nil)
// before the clients cron first ran.
func (p *clientPeaks) recent() (in, out int64) {
	if p == nil {
		return 0, 0
	}
	for i := range p.in {
		in, out = max(in, p.in[i].Load()), max(out, p.out[i].Load())
	}
	return in, out
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
			cn.tr.Kill()
			continue
		}
		if cn.overOutputLimit(now.Unix()) {
			s.logOutputLimit(c)
			cn.tr.Kill()
		}
	}
	s.cronClientMemory(clients)
}
