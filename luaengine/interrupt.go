package luaengine

import (
	"context"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// Interrupting a running script uses gopher-lua's context support: with a
// context set, its VM checks ctx.Done() before every instruction. The
// context below is allocated once per engine (and again only after it
// fired), and Done returns a plain field, so the per-instruction cost is a
// non-blocking receive on an open channel; BenchmarkInterruptOverhead
// measures it.

type interruptReason int32

const (
	reasonNone interruptReason = iota
	reasonKilled
	reasonMemory
	reasonAbort // the server is shutting down
)

type interruptCtx struct {
	done chan struct{}
	err  error

	// poll, when set, is called every pollEvery instructions, on the
	// goroutine running the script: the server's event loop serves other
	// clients from it while a script is past its time limit (as Redis's
	// Lua hook calls processEventsWhileBlocked).
	poll  func()
	ticks uint32
}

// pollEvery is how many instructions run between poll calls: tens of
// microseconds of gopher-lua, so that a client of a busy server waits
// little for its BUSY even under the race detector; a call costs two loads
// unless a script is busy.
const pollEvery = 1 << 10

func (c *interruptCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *interruptCtx) Done() <-chan struct{} {
	if c.poll != nil {
		if c.ticks++; c.ticks%pollEvery == 0 {
			c.poll()
		}
	}
	return c.done
}
func (c *interruptCtx) Value(any) any { return nil }
func (c *interruptCtx) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

var (
	errKilledCtx = Error("Script killed by user with SCRIPT KILL...")
	errMemoryCtx = Error("not enough memory")
)

type interruptState struct {
	e       *Engine
	poll    func() // see interruptCtx.poll; set before the first run
	mu      sync.Mutex
	ctx     *interruptCtx
	reason  interruptReason // guarded by mu
	started atomic.Int64    // unix nanos of the running script's start, 0 when idle
	written atomic.Bool
	// function is set while the running script is a function (FCALL),
	// for BUSY's text and the kill commands.
	function atomic.Bool

	// The memory watchdog: a timer armed for every run, cheap to re-arm,
	// that samples the heap only once a script has run for a while.
	timer    *time.Timer
	gen      atomic.Uint64 // run generation, so a late timer ignores a finished run
	baseline atomic.Uint64
	samples  [1]metrics.Sample
}

const memoryCheckInterval = 10 * time.Millisecond

func (s *interruptState) init(e *Engine) {
	s.e = e
	s.fresh()
	s.samples[0].Name = "/memory/classes/heap/objects:bytes"
	if e.opts.MemoryLimit > 0 && !e.opts.ExternalWatch {
		s.timer = time.AfterFunc(time.Hour, s.watch)
		s.timer.Stop()
	}
}

func (s *interruptState) fresh() {
	s.ctx = &interruptCtx{done: make(chan struct{}), poll: s.poll}
	s.e.L.SetContext(s.ctx)
}

func (s *interruptState) stop() {
	if s.timer != nil {
		s.timer.Stop()
	}
}

func (s *interruptState) begin(function bool) {
	s.written.Store(false)
	s.function.Store(function)
	s.gen.Add(1)
	s.baseline.Store(0)
	s.started.Store(time.Now().UnixNano())
	if s.timer != nil {
		s.timer.Reset(memoryCheckInterval)
	}
}

// end finishes a run and reports why it was interrupted, if it was.
func (s *interruptState) end() interruptReason {
	s.started.Store(0)
	s.gen.Add(1)
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Lock()
	reason := s.reason
	if reason != reasonNone {
		s.reason = reasonNone
		s.fresh()
	}
	s.mu.Unlock()
	return reason
}

func (s *interruptState) kill(reason interruptReason) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started.Load() == 0 {
		return ErrNotBusy
	}
	if reason == reasonKilled && s.written.Load() {
		return ErrUnkillable
	}
	if s.reason != reasonNone {
		return nil
	}
	s.reason = reason
	if reason == reasonKilled || reason == reasonAbort {
		s.ctx.err = errKilledCtx
	} else {
		s.ctx.err = errMemoryCtx
	}
	close(s.ctx.done)
	return nil
}

// watch runs on the timer goroutine while a script runs.
func (s *interruptState) watch() {
	gen := s.gen.Load()
	if s.started.Load() == 0 {
		return
	}
	metrics.Read(s.samples[:])
	heap := s.samples[0].Value.Uint64()
	if base := s.baseline.Load(); base == 0 {
		s.baseline.Store(heap)
	} else if heap > base && heap-base > uint64(s.e.opts.MemoryLimit) {
		s.kill(reasonMemory)
		return
	}
	if s.timer != nil && s.gen.Load() == gen {
		s.timer.Reset(memoryCheckInterval)
	}
}

var _ context.Context = (*interruptCtx)(nil)

// SetPoll sets a function the running script calls every few thousand
// instructions, on its own goroutine. Call it before the first script runs.
func (e *Engine) SetPoll(fn func()) {
	e.interrupt.poll = fn
	e.interrupt.ctx.poll = fn
}

// Abort stops the running script even if it has written, for a server
// that shuts down (SHUTDOWN NOSAVE while a script is busy). Safe from any
// goroutine.
func (e *Engine) Abort() error { return e.interrupt.kill(reasonAbort) }

// RunningFunction reports whether the running script is a function
// (FCALL) rather than an EVAL script. Safe from any goroutine.
func (e *Engine) RunningFunction() bool {
	return e.interrupt.started.Load() != 0 && e.interrupt.function.Load()
}
