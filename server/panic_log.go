package server

import (
	"log/slog"
	"runtime/debug"
	"sync"
	"time"
)

// panicLogEvery is how often, at most, a command's repeated panics add a
// line to the log.
const panicLogEvery = 10 * time.Second

// panicLog logs the panics invoke recovers from without letting them
// amplify a client's requests into the log: a handler's stack is ~2 KB,
// and 10,000 pipelined calls of one bad command added 20 MB in under two
// seconds. The first panic of a command is logged with its stack; later
// ones are counted, and the count is logged at most every panicLogEvery.
type panicLog struct {
	mu        sync.Mutex
	now       func() time.Time // time.Now unless a test sets it
	byCommand map[string]*panicCount
}

type panicCount struct {
	lastLine time.Time // when the command's last line was logged
	unlogged int64     // panics since then
}

// note logs (or counts) a panic r recovered from a handler of command.
func (p *panicLog) note(log *slog.Logger, command string, r any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now
	if p.now != nil {
		now = p.now
	}
	t := now()
	pc := p.byCommand[command]
	if pc == nil {
		if p.byCommand == nil {
			p.byCommand = map[string]*panicCount{}
		}
		p.byCommand[command] = &panicCount{lastLine: t}
		log.Error("command panicked", "command", command, "panic", r, "stack", string(debug.Stack()))
		return
	}
	pc.unlogged++
	if t.Sub(pc.lastLine) < panicLogEvery {
		return
	}
	log.Error("command panicked again", "command", command, "panic", r, "times", pc.unlogged, "since", pc.lastLine.Format(time.RFC3339))
	pc.lastLine, pc.unlogged = t, 0
}
