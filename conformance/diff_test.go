package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// Replies can be thousands of bytes (COMMAND, INFO, big arrays); a failure
// shows where they part, not both whole.
const (
	diffBefore = 40  // bytes of agreement shown before the first difference
	diffAfter  = 80  // bytes of each side shown from it
	lineMax    = 200 // a case line longer than this is cut
)

// replyDiff describes how got differs from want: the offset of the first
// differing byte, then both sides from a little before it, quoted and cut.
func replyDiff(want, got []byte) string {
	at := 0
	for at < len(want) && at < len(got) && want[at] == got[at] {
		at++
	}
	from := max(0, at-diffBefore)
	side := func(b []byte) string {
		s := ""
		if from > 0 {
			s = "…"
		}
		end := min(len(b), at+diffAfter)
		s += strconv.Quote(string(b[from:end]))
		if end < len(b) {
			s += fmt.Sprintf("… (%d bytes)", len(b))
		}
		return s
	}
	return fmt.Sprintf("first difference at byte %d\n  redis:     %s\n  floodgate: %s", at, side(want), side(got))
}

// shortLine cuts a case line for a failure message.
func shortLine(line string) string {
	if len(line) <= lineMax {
		return line
	}
	return line[:lineMax] + fmt.Sprintf("… (%d bytes)", len(line))
}

func TestReplyDiff(t *testing.T) {
	long := strings.Repeat("x", 500)
	for _, tc := range []struct{ want, got, has string }{
		{"+OK\r\n", "+OK\r\n!", "first difference at byte 5"},
		{"$3\r\nabc\r\n", "$3\r\nabd\r\n", `"$3\r\nabc\r\n"`},
		{"*1\r\n$500\r\n" + long + "\r\n", "*1\r\n$500\r\n" + long[:300] + "y" + long[301:] + "\r\n", "first difference at byte 310"},
	} {
		d := replyDiff([]byte(tc.want), []byte(tc.got))
		if !strings.Contains(d, tc.has) || len(d) > 2*(diffBefore+diffAfter)+200 {
			t.Errorf("replyDiff(%.20q, %.20q) = %q; want it short and containing %q", tc.want, tc.got, d, tc.has)
		}
	}
}
