package server

import (
	"fmt"
	"strings"
	"testing"
)

// infoLines returns the "field:value" lines of an INFO reply as a map, and
// the section headers in order.
func infoLines(t *testing.T, text string) (map[string]string, []string) {
	t.Helper()
	fields := map[string]string{}
	var headers []string
	for _, line := range strings.Split(text, "\r\n") {
		if strings.HasPrefix(line, "# ") {
			headers = append(headers, line[2:])
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			fields[k] = v
		}
	}
	return fields, headers
}

func TestLimiterStats(t *testing.T) {
	_, c := throttleServer(t)
	for range 3 {
		reply(t, c, "CL.THROTTLE", "rate:api:alice", "1", "1", "60")
	}
	reply(t, c, "CL.THROTTLE", "rate:api:bob", "1", "1", "60")
	reply(t, c, "CL.THROTTLE", "login:bob", "0", "1", "60")
	reply(t, c, "CL.THROTTLE", "plain", "0", "1", "60")
	reply(t, c, "CL.THROTTLE", "odd key,=\\:x", "0", "1", "60")
	reply(t, c, "CL.THROTTLE", "rate:api:bad", "x", "1", "60") // an error is no decision
	reply(t, c, "INCREX", "rate:api:carol", "UBOUND", "1")     // allowed
	reply(t, c, "INCREX", "rate:api:carol", "UBOUND", "1")     // limited: over the bound
	reply(t, c, "INCREX", "rate:api:carol", "NX")              // refused by NX: no decision
	reply(t, c, "GCRA", "rate:api:dave", "0", "1", "60")       // allowed
	reply(t, c, "GCRA", "rate:api:dave", "0", "1", "60")       // limited

	fields, headers := infoLines(t, reply(t, c, "INFO", "limiter"))
	want := map[string]string{
		"limiter_allowed":      "8",
		"limiter_limited":      "3",
		"limiter_cl_throttle":  "allowed=6,limited=1",
		"limiter_gcra":         "allowed=1,limited=1",
		"limiter_increx":       "allowed=1,limited=1",
		"limiter_prefixes":     "4",
		"limiter_prefixes_max": "1024",
		"limiter_prefix0":      "name=,allowed=1,limited=0",
		"limiter_prefix1":      "name=login,allowed=1,limited=0",
		"limiter_prefix2":      `name=odd\x20key\x2c\x3d\x5c,allowed=1,limited=0`,
		"limiter_prefix3":      "name=rate:api,allowed=5,limited=3",
		"limiter_other":        "allowed=0,limited=0",
	}
	if fmt.Sprint(headers) != "[Limiter]" {
		t.Fatalf("headers %v", headers)
	}
	for k, v := range want {
		if fields[k] != v {
			t.Errorf("%s: got %q, want %q", k, fields[k], v)
		}
	}
	if len(fields) != len(want) {
		t.Errorf("fields %v", fields)
	}

	// Listed as a module's section, but in "all" too (exporters ask for
	// INFO ALL); not in the default INFO.
	for _, tc := range []struct {
		args []any
		has  bool
	}{
		{[]any{"INFO"}, false},
		{[]any{"INFO", "default"}, false},
		{[]any{"INFO", "all"}, true},
		{[]any{"INFO", "module_list"}, false},
		{[]any{"INFO", "everything"}, true},
		{[]any{"INFO", "modules"}, true},
		{[]any{"INFO", "LIMITER"}, true},
		{[]any{"INFO", "all", "limiter"}, true},
		{[]any{"INFO", "server", "limiter"}, true},
	} {
		_, headers := infoLines(t, reply(t, c, tc.args...))
		has := false
		for _, h := range headers {
			has = has || h == "Limiter"
		}
		if has != tc.has {
			t.Errorf("%v: Limiter section %v, want %v (sections %v)", tc.args, has, tc.has, headers)
		}
		if has && headers[len(headers)-1] != "Limiter" {
			t.Errorf("%v: Limiter is not the last section: %v", tc.args, headers)
		}
	}

	// The delimiter is configurable, the empty one groups by whole key.
	if got := reply(t, c, "CONFIG", "GET", "limiter-prefix-delimiter"); got != "[limiter-prefix-delimiter :]" {
		t.Fatalf("CONFIG GET: %s", got)
	}
	if got := reply(t, c, "CONFIG", "RESETSTAT"); got != "OK" {
		t.Fatal(got)
	}
	fields, _ = infoLines(t, reply(t, c, "INFO", "limiter"))
	if fields["limiter_allowed"] != "0" || fields["limiter_prefixes"] != "0" {
		t.Fatalf("after RESETSTAT: %v", fields)
	}
	reply(t, c, "CONFIG", "SET", "limiter-prefix-delimiter", "-")
	reply(t, c, "CL.THROTTLE", "user123-read-rate", "15", "30", "60")
	reply(t, c, "CONFIG", "SET", "limiter-prefix-delimiter", "")
	reply(t, c, "CL.THROTTLE", "user123-read-rate", "15", "30", "60")
	fields, _ = infoLines(t, reply(t, c, "INFO", "limiter"))
	if fields["limiter_prefix0"] != "name=user123-read,allowed=1,limited=0" || fields["limiter_prefix1"] != "name=user123-read-rate,allowed=1,limited=0" {
		t.Fatalf("with other delimiters: %v", fields)
	}
	if got := reply(t, c, "CONFIG", "GET", "limiter-prefix-delimiter"); got != "[limiter-prefix-delimiter ]" {
		t.Fatalf("CONFIG GET: %s", got)
	}
}

// TestLimiterStatsBounded: however many prefixes clients invent, at most
// limiterMaxPrefixes are tracked, of bounded length; the rest count as other.
func TestLimiterStatsBounded(t *testing.T) {
	var l limiterStats
	long := strings.Repeat("x", 10*limiterMaxPrefixLen)
	for i := range 5 * limiterMaxPrefixes {
		l.count(limiterThrottle, fmt.Appendf(nil, "%s%d:user", long, i), i%2 == 0)
	}
	if len(l.counts.prefixes) != 1 {
		// Every prefix shares its first limiterMaxPrefixLen bytes.
		t.Fatalf("%d prefixes of a shared %d-byte head", len(l.counts.prefixes), limiterMaxPrefixLen)
	}
	l.reset()
	for i := range 5 * limiterMaxPrefixes {
		l.count(limiterThrottle, fmt.Appendf(nil, "tenant%d:user", i), i%2 == 0)
	}
	if len(l.counts.prefixes) != limiterMaxPrefixes {
		t.Fatalf("%d prefixes tracked, want %d", len(l.counts.prefixes), limiterMaxPrefixes)
	}
	if got := l.counts.other[limiterThrottle].allowed + l.counts.other[limiterThrottle].limited; got != 4*limiterMaxPrefixes {
		t.Fatalf("other counted %d, want %d", got, 4*limiterMaxPrefixes)
	}
	if l.counts.total.allowed != 5*limiterMaxPrefixes/2 || l.counts.total.limited != 5*limiterMaxPrefixes/2 {
		t.Fatalf("totals %+v", l.counts.total)
	}
	for p := range l.counts.prefixes {
		if len(p) > limiterMaxPrefixLen {
			t.Fatalf("prefix of %d bytes", len(p))
		}
	}
	// A tracked prefix keeps counting after the table is full.
	l.count(limiterThrottle, []byte("tenant0:other-user"), true)
	if c := l.counts.prefixes["tenant0"][limiterThrottle]; c.allowed != 0 || c.limited != 2 {
		t.Fatalf("tenant0: %+v", c)
	}
	// Every one does: the filter in front of the map never hides one.
	for i := range limiterMaxPrefixes {
		l.count(limiterThrottle, fmt.Appendf(nil, "tenant%d:x", i), false)
	}
	for p, byCmd := range l.counts.prefixes {
		c := byCmd[limiterThrottle]
		want := int64(2) // one from the first round, one now
		if p == "tenant0" {
			want = 3
		}
		if c.allowed+c.limited != want {
			t.Fatalf("%s: %+v, want %d decisions", p, c, want)
		}
	}
	if got := l.counts.other[limiterThrottle].allowed + l.counts.other[limiterThrottle].limited; got != 4*limiterMaxPrefixes {
		t.Fatalf("other counted %d after tracked prefixes, want %d", got, 4*limiterMaxPrefixes)
	}
	// RESETSTAT forgets them, filter included: new prefixes are tracked.
	l.reset()
	l.count(limiterThrottle, []byte("fresh:user"), false)
	if c := l.counts.prefixes["fresh"]; c == nil || c[limiterThrottle].allowed != 1 || len(l.counts.prefixes) != 1 {
		t.Fatalf("after reset: %v", l.counts.prefixes)
	}
}
