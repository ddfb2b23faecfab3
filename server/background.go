package server

import (
	"sync"
	"time"
)

// A server's background work starts when it is first needed: the clients
// cron with the first client, the block timer with the first wait that has
// a timeout, the script watch with the Lua engine, and the expiry cron runs
// on a timer that creates a goroutine only when it fires. A test double
// that starts and closes without being used pays for none of them: five
// goroutines, started and woken to stop, were most of a TCP start-up's
// CPU time after the system calls (BenchmarkStartClose in servertest).

// background guards starting goroutines against Close.
type background struct {
	mu     sync.Mutex
	closed bool // set by Close: nothing starts any more
}

// spawn runs fn on a goroutine of its own, which Close waits for (fn must
// return once s.stop is closed), unless the server is closing.
func (s *Server) spawn(fn func()) {
	s.bg.mu.Lock()
	defer s.bg.mu.Unlock()
	if s.bg.closed {
		return
	}
	s.stopped.Add(1)
	go func() {
		defer s.stopped.Done()
		fn()
	}()
}

// stopSpawning makes spawn refuse, before Close waits for what it started:
// each spawn's Add is then ordered before that Wait, or never happens.
func (s *Server) stopSpawning() {
	s.bg.mu.Lock()
	s.bg.closed = true
	s.bg.mu.Unlock()
}

// cron runs a periodic task on a time.AfterFunc timer, armed again after
// each run for the next interval, as Redis's time events are: between runs
// there is no goroutine at all.
type cron struct {
	mu      sync.Mutex // held while the task runs, so stop waits for it
	t       *time.Timer
	stopped bool
}

// start runs task after every interval() until stop; a second start does
// nothing.
func (c *cron) start(interval func() time.Duration, task func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped || c.t != nil { // stopped, or started already
		return
	}
	c.t = time.AfterFunc(interval(), func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.stopped {
			return
		}
		task()
		c.t.Reset(interval())
	})
}

// stop ends the cron, once a run in progress, if any, has returned.
func (c *cron) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	if c.t != nil {
		c.t.Stop()
	}
}
