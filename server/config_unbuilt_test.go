package server

import (
	"context"
	"errors"
	"strconv"
	"testing"
)

// nonDefault is a value of p other than its default that its syntax takes.
func nonDefault(p *configParam) string {
	switch p.kind {
	case kindBool:
		if p.def == "yes" {
			return "no"
		}
		return "yes"
	case kindInt, kindMemory:
		n, _ := strconv.ParseInt(p.def, 10, 64)
		if n < p.max {
			return strconv.FormatInt(n+1, 10)
		}
		return strconv.FormatInt(p.min, 10)
	case kindEnum:
		for _, v := range p.values {
			if v != p.def {
				return v
			}
		}
	}
	if p.name == "oom-score-adj-values" {
		return "1 2 3"
	}
	if p.def == "x" {
		return "y"
	}
	return "x"
}

// TestUnbuiltSettingsRefusedAsUnknown sets every parameter floodgate does
// not implement to a value other than its default, by CONFIG SET, in a
// config file and on the command line: each is refused with Redis's text
// for a parameter it does not know, never in floodgate's own words, while
// its default is still accepted (a stock redis.conf names many of them).
func TestUnbuiltSettingsRefusedAsUnknown(t *testing.T) {
	srv := startServer(t, Config{})
	c := newRedisClient(t, srv)
	ctx := context.Background()
	seen := map[string]bool{}
	for _, p := range configTable {
		if p.effect != effectDefaultOnly {
			continue
		}
		seen[p.name] = true
		if v := nonDefault(p); true {
			want := "ERR Unknown option or number of arguments for CONFIG SET - '" + p.name + "'"
			if p.flags&paramImmutable != 0 {
				want = "ERR CONFIG SET failed (possibly related to argument '" + p.name + "') - can't set immutable config"
			}
			if err := c.Do(ctx, "CONFIG", "SET", p.name, v).Err(); err == nil || err.Error() != want {
				t.Errorf("CONFIG SET %s %q: %v; want %q", p.name, v, err, want)
			}
			for _, where := range []struct{ text, options string }{{p.name + " \"" + v + "\"\n", ""}, {"", p.name + " \"" + v + "\""}} {
				_, err := load(t, where.text, where.options)
				var ce *ConfigError
				if !errors.As(err, &ce) || ce.Reason != errBadDirective {
					t.Errorf("%s %q in a config file: %v; want %q", p.name, v, err, errBadDirective)
				}
			}
		}
		if _, err := load(t, p.name+" \""+p.def+"\"\n", ""); err != nil {
			t.Errorf("%s at its default %q: %v", p.name, p.def, err)
		}
		if p.flags&paramImmutable == 0 {
			if err := c.Do(ctx, "CONFIG", "SET", p.name, p.def).Err(); err != nil {
				t.Errorf("CONFIG SET %s to its default %q: %v", p.name, p.def, err)
			}
		}
	}
	for _, name := range []string{"replica-lazy-flush", "repl-diskless-load", "cluster-enabled", "unixsocket", "tls-replication"} {
		if !seen[name] {
			t.Errorf("%s is not among the unbuilt settings", name)
		}
	}
	// Directives floodgate has no row for are Redis's too.
	for _, line := range []string{"rename-command FLUSHALL \"\"", "loadmodule /x.so", "sentinel monitor m 127.0.0.1 6379 2", "mymodule.setting 1"} {
		_, err := load(t, line+"\n", "")
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Reason != errBadDirective {
			t.Errorf("%q: %v; want %q", line, err, errBadDirective)
		}
	}
}
