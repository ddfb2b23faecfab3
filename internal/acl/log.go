package acl

import (
	"fmt"
	"time"
)

// Contexts of a log entry, Redis's ACL_LOG_CTX_*.
const (
	CtxToplevel = 0
	CtxLua      = 1
	CtxMulti    = 2
)

// LogEntry is one ACL LOG entry.
type LogEntry struct {
	Count    int64
	Reason   Denial
	Context  int
	Object   string // the command, key, channel, or AUTH's argv[0]
	Username string
	Time     time.Time // of the last event grouped here
	// ClientInfo is the CLIENT LIST line of the last client, formatted
	// when the log is read.
	ClientInfo fmt.Stringer
}

// ReasonText and ContextText are the entry's fields as ACL LOG prints them.
func (e *LogEntry) ReasonText() string {
	switch e.Reason {
	case DeniedCommand:
		return "command"
	case DeniedKey:
		return "key"
	case DeniedChannel:
		return "channel"
	case DeniedAuth:
		return "auth"
	}
	return "unknown"
}

func (e *LogEntry) ContextText() string {
	switch e.Context {
	case CtxToplevel:
		return "toplevel"
	case CtxMulti:
		return "multi"
	case CtxLua:
		return "lua"
	}
	return "unknown"
}

// groupingDelta is ACL_LOG_GROUPING_MAX_TIME_DELTA: events this close
// that match an entry bump its count instead of adding one.
const groupingDelta = 60 * time.Second

// Log is the ACL LOG, newest entry first.
type Log struct {
	entries []*LogEntry
}

// Add records an event (addACLLogEntry): the first of the ten newest
// entries with the same reason, context, object and user, within a
// minute, takes it and moves to the front; otherwise it is a new entry,
// and the oldest go beyond max. It returns the entry that took the event,
// whose ClientInfo, if e has none, the caller may update in place.
func (l *Log) Add(e LogEntry, max int) *LogEntry {
	for i := 0; i < len(l.entries) && i < 10; i++ {
		m := l.entries[i]
		d := m.Time.Sub(e.Time)
		if d < 0 {
			d = -d
		}
		if m.Reason == e.Reason && m.Context == e.Context && d <= groupingDelta &&
			m.Object == e.Object && m.Username == e.Username {
			if e.ClientInfo != nil {
				m.ClientInfo = e.ClientInfo
			}
			m.Time = e.Time
			m.Count++
			copy(l.entries[1:i+1], l.entries[:i])
			l.entries[0] = m
			return m
		}
	}
	e.Count = 1
	l.entries = append([]*LogEntry{&e}, l.entries...)
	l.Trim(max)
	return &e
}

// Trim drops the oldest entries beyond max.
func (l *Log) Trim(max int) {
	if max < 0 {
		max = 0
	}
	for len(l.entries) > max {
		l.entries[len(l.entries)-1] = nil
		l.entries = l.entries[:len(l.entries)-1]
	}
}

// Reset empties the log.
func (l *Log) Reset() { l.entries = nil }

// Entries returns the newest n entries.
func (l *Log) Entries(n int) []*LogEntry {
	if n > len(l.entries) {
		n = len(l.entries)
	}
	return l.entries[:n]
}
