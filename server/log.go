package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"
)

// redisHandler writes log records as Redis does
// ("pid:M 01 Dec 2026 01:42:47.168 * message"), so tools that read Redis's
// log read floodgate's: '.' debug, '-' verbose, '*' notice, '#' warning.
type redisHandler struct {
	mu    *sync.Mutex
	w     io.Writer
	level slog.Leveler
	attrs string
}

// NewRedisLogger returns a logger that writes Redis's log format to w at
// level (which CONFIG SET loglevel changes).
func NewRedisLogger(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(&redisHandler{mu: new(sync.Mutex), w: w, level: level})
}

func (h *redisHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.level.Level()
}

func (h *redisHandler) Handle(_ context.Context, r slog.Record) error {
	mark := byte('#')
	switch {
	case r.Level < slog.LevelDebug:
		mark = '.'
	case r.Level < slog.LevelInfo:
		mark = '-'
	case r.Level < slog.LevelWarn:
		mark = '*'
	}
	var b strings.Builder
	b.WriteString(r.Message)
	b.WriteString(h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	t := r.Time
	if t.IsZero() {
		t = time.Now()
	}
	line := fmt.Sprintf("%d:M %s %c %s\n", os.Getpid(), t.Format("02 Jan 2006 15:04:05.000"), mark, b.String())
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, line)
	return err
}

func (h *redisHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := *h
	for _, a := range attrs {
		n.attrs += fmt.Sprintf(" %s=%v", a.Key, a.Value)
	}
	return &n
}

func (h *redisHandler) WithGroup(string) slog.Handler { return h }
