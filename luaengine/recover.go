package luaengine

import (
	"fmt"
	"strings"
)

// A few of gopher-lua's failures escape its own protected calls as Go
// panics: the registry overflowing while an error handler is pushed (a
// deep recursion through unpack of a large table), for one. The state is
// then unusable: its call stack still holds the dead frames, which gopher-
// lua gives no way to unwind from outside. Run turns such a panic into an
// error reply and marks the engine broken; the server then swaps it for a
// Rebuild, which compiles the cached scripts again on a fresh state.

// recoverRun is deferred by Run.
func (e *Engine) recoverRun(s *Script, w ReplyWriter) {
	r := recover()
	if r == nil {
		return
	}
	e.broken = true
	e.interrupt.end()
	e.caller, e.current, e.resp = nil, nil, 2
	msg := fmt.Sprint(r)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i] // drop gopher-lua's traceback
	}
	msg = "ERR " + msg
	line := "?"
	if n := positionLine(msg); n > 0 {
		line = itoa(n)
	}
	chunk := chunkName
	if s.function != nil {
		chunk = functionChunkName
	}
	w.Error(errorReplyText(msg + " script: " + s.SHA + ", on @" + chunk + ":" + line + "."))
}

// Broken reports whether a script left the engine's Lua state unusable (see
// recoverRun); the caller should replace the engine with Rebuild's.
func (e *Engine) Broken() bool { return e.broken }

// Rebuild returns a new engine with the same options, poll hook and cached
// scripts, compiled on a fresh Lua state. cjson's settings are the
// defaults again.
func (e *Engine) Rebuild() *Engine {
	n := New(e.opts)
	n.SetPoll(e.interrupt.poll)
	for sha, s := range e.scripts {
		if ns, err := n.compile(sha, s.Body); err == nil {
			n.addScript(ns)
		}
	}
	n.rebuildFunctions(e)
	return n
}
