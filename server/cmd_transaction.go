package server

import (
	"strings"

	"github.com/floodgate/floodgate/internal/acl"
)

var transactionHandlers = map[string]Handler{
	"multi":   cmdMulti,
	"exec":    cmdExec,
	"discard": cmdDiscard,
	"watch":   cmdWatch,
	"unwatch": cmdUnwatch,
}

// Errors of the transaction family, with Redis 7.0's text.
const (
	errMultiNested  = "ERR MULTI calls can not be nested"
	errExecNoMulti  = "ERR EXEC without MULTI"
	errDiscardMulti = "ERR DISCARD without MULTI"
	errWatchInMulti = "ERR WATCH inside MULTI is not allowed"
	errExecAbort    = "EXECABORT Transaction discarded because of previous errors."
)

// MULTI only opens the block: dispatch queues what follows (answering
// QUEUED) and flags the block when it rejects a command, so that EXEC
// answers EXECABORT.
func cmdMulti(c *Client, args [][]byte) {
	if c.multi != nil {
		c.w.Error(errMultiNested)
		return
	}
	c.multi = &multiState{}
	c.w.Status("OK")
}

// cmdExec runs the queued commands inside this one command, under the
// execution lock dispatch holds for it, so no other client's command is
// interleaved and every command sees the same time snapshot (Redis freezes
// its clock for an EXEC too). Each runs through invoke, for statistics and
// panic recovery; an error is answered in its place and the rest still run.
func cmdExec(c *Client, args [][]byte) {
	m := c.multi
	if m == nil {
		c.w.Error(errExecNoMulti)
		return
	}
	c.multi = nil
	aborted := m.failed || c.watch.dirty || c.watchedKeyExpired()
	// Redis unwatches before it runs the block: the block's own writes to
	// the watched keys are no concern of this client's.
	c.unwatchAll()
	switch {
	case m.failed:
		c.w.Error(errExecAbort)
		return
	case aborted:
		c.w.NullArray()
		return
	}
	exec := c.cmd
	c.w.Array(len(m.cmds))
	c.inExec = true
	for i, cmd := range m.cmds {
		// Permissions again, in case the user's changed since it queued
		// (execCommand).
		if c.user != nil {
			if d, _ := c.srv.aclCheck(c, cmd, m.queued[i], acl.CtxMulti); d != acl.OK {
				c.w.Error(aclExecMessage(d))
				continue
			}
		}
		c.srv.invoke(c, cmd, m.queued[i])
	}
	c.inExec = false
	c.cmd, c.lastCmd = exec, exec.Name
}

// watchedKeyExpired reports whether a watched key has expired since WATCH
// (Redis 7.0 fails the EXEC then, though nothing has deleted it yet).
func (c *Client) watchedKeyExpired() bool {
	for _, wk := range c.watch.keys {
		if wk.db.WatchExpired(wk.key, &c.watch.dirty) {
			return true
		}
	}
	return false
}

func cmdDiscard(c *Client, args [][]byte) {
	if c.multi == nil {
		c.w.Error(errDiscardMulti)
		return
	}
	c.multi = nil
	c.unwatchAll()
	c.w.Status("OK")
}

// cmdWatch watches each key of the selected database once. A client whose
// watch is already dirty gains nothing by watching more, as in Redis.
func cmdWatch(c *Client, args [][]byte) {
	if c.multi != nil {
		c.w.Error(errWatchInMulti)
		return
	}
	if !c.watch.dirty {
		for _, k := range args[1:] {
			c.watchKey(string(k))
		}
	}
	c.w.Status("OK")
}

func (c *Client) watchKey(key string) {
	for _, wk := range c.watch.keys {
		if wk.db == c.db && wk.key == key {
			return
		}
	}
	c.db.Watch(key, &c.watch.dirty)
	c.watch.keys = append(c.watch.keys, watchedKey{db: c.db, key: key})
}

func cmdUnwatch(c *Client, args [][]byte) {
	c.unwatchAll()
	c.w.Status("OK")
}

// reject answers a command that dispatch refuses (arity, NOAUTH, no_multi)
// with msg and flags an open MULTI block, so that EXEC answers EXECABORT.
// A refused EXEC itself discards the block and unwatches, quoting the
// reason, as Redis's rejectCommand does (even outside MULTI).
func (c *Client) reject(cmd *Command, msg string) {
	if cmd.Name != "exec" {
		c.w.Error(msg)
		c.flagMultiFailed()
		return
	}
	c.multi = nil
	c.unwatchAll()
	c.w.Error("EXECABORT Transaction discarded because of: " + strings.TrimPrefix(msg, "ERR "))
}
