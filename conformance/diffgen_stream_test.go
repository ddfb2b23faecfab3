package conformance

import (
	"strconv"
	"strings"
)

// The streams family: every non-group stream command (XADD with each ID
// form and trimming option, XRANGE/XREVRANGE, XDEL, XTRIM, XLEN, XSETID,
// non-blocking XREAD, XINFO STREAM [FULL]), DUMP and RESTORE of a stream,
// and the two node-size settings, which decide where a
// stream's nodes split and so what approximate trimming removes.
//
// IDs are explicit, or "ms-*" (its sequence follows the stream's last ID,
// not the clock). A bare "*" reads the clock, so it is sent only when the
// reference's stream already has a last ID past the clock (a far-future
// ms, which the generator also produces): Redis then increments the last
// ID, and the reply is deterministic. Inside MULTI and scripts, where no
// skipIf can ask, "*" is never sent.
//
// MEMORY USAGE is not sent here: TestStreamMemoryUsage
// (stream_memory_test.go) compares it over its own random shapes.

// streamNodeSettings are reset at the start of every segment, so a
// segment replays from a known state.
var streamNodeSettings = []string{"CONFIG", "SET", "stream-node-max-entries", "100", "stream-node-max-bytes", "4096"}

// farMs is a millisecond time after any clock this test runs on.
const farMs = 99999999999999

func (g *gen) streamMs() string {
	switch g.n(12) {
	case 0:
		return strconv.Itoa(farMs + g.n(3))
	case 1:
		return g.pick("18446744073709551615", "18446744073709551614", "9223372036854775808")
	}
	return strconv.Itoa(g.n(8))
}

func (g *gen) streamSeq() string {
	if g.n(10) == 0 {
		return g.pick("18446744073709551615", "18446744073709551614", "9223372036854775807")
	}
	return strconv.Itoa(g.n(5))
}

// streamID is an ID for a range, XDEL, XSETID or XREAD: mostly complete,
// sometimes a bare ms (its missing sequence is 0 or the largest), or bad.
func (g *gen) streamID() string {
	switch g.n(16) {
	case 0:
		return g.streamMs()
	case 1:
		return g.pick("0-0", "0", "18446744073709551615-18446744073709551615", "-", "+")
	case 2:
		return g.pick("abc", "1-x", "-1", "1-", "-1-1", "", "1-2-3", "18446744073709551616-0", "0x1-0", " 1-1", "1.5")
	}
	return g.streamMs() + "-" + g.streamSeq()
}

// addID is XADD's ID ("*" is left to streamCmd) and the op's mode: an
// "ms-*" whose ms is the last ID's while its sequence is the largest fails
// in streamAppendItem without setting errno, and xaddCommand reads errno
// to choose its error ("equal or smaller" for EDOM, which an earlier
// failed XADD leaves, "too large" otherwise). Such an XADD goes after an
// op that clears errno (see sortCmd), and is not sent inside MULTI or
// scripts, where nothing can clear it.
func (g *gen) addID(inner bool) (string, string) {
	switch g.n(10) {
	case 0, 1:
		if !inner {
			return g.streamMs() + "-*", "clearerrno"
		}
	case 2:
		id := g.pick("0-0", "0-1", "0", "5", "18446744073709551615-18446744073709551615", "abc", "-*", "1-*-", "+", "-")
		if !inner && g.chance(0.2) {
			return "18446744073709551615-*", "clearerrno"
		}
		return id, ""
	}
	return g.streamMs() + "-" + g.streamSeq(), ""
}

func (g *gen) streamRange() string {
	switch g.n(8) {
	case 0:
		return g.pick("-", "+", "(-", "(+", "(", "((1-0")
	case 1, 2:
		return "(" + g.streamID()
	}
	return g.streamID()
}

func (g *gen) streamFields() []string {
	var fv []string
	for range 1 + g.n(3) {
		if g.n(4) == 0 {
			fv = append(fv, g.value(), g.value())
		} else {
			fv = append(fv, g.pick("f1", "f2", "f3"), g.pick("1", "2", "v", "hello", "-7"))
		}
	}
	if g.n(30) == 0 {
		fv = fv[:len(fv)-1] // an odd count: wrong number of arguments
	}
	return fv
}

// trimArgs is MAXLEN or MINID with its strategy, threshold and LIMIT.
func (g *gen) trimArgs() []string {
	var args []string
	minid := g.n(3) == 0
	if minid {
		args = append(args, g.pick("MINID", "MINID", "minid"))
	} else {
		args = append(args, g.pick("MAXLEN", "MAXLEN", "maxlen"))
	}
	switch g.n(3) {
	case 0:
		args = append(args, "=")
	case 1:
		args = append(args, "~")
	}
	if minid {
		args = append(args, g.streamID())
	} else {
		args = append(args, g.pick("0", "1", "2", "3", "5", "10", "50", "-1", "abc", "9223372036854775807", "9223372036854775808"))
	}
	if g.n(4) == 0 {
		args = append(args, "LIMIT", g.pick("0", "1", "2", "10", "100", "-1", "x", "1000001"))
	}
	return args
}

func (g *gen) streamCmd(inner bool) ([]string, string) {
	k := g.key()
	r := g.n(40)
	if inner && r >= 36 {
		r = g.n(36)
	}
	switch r {
	case 0, 1, 2, 3, 4, 5, 6, 7, 8, 9:
		args := cmd("XADD", k)
		if g.n(8) == 0 {
			args = append(args, "NOMKSTREAM")
		}
		if g.n(4) == 0 {
			args = append(args, g.trimArgs()...)
		}
		id, mode := g.addID(inner)
		return cmd(args, id, g.streamFields()), mode
	case 10, 11, 12:
		args := cmd(g.pick("XRANGE", "XREVRANGE"), k, g.streamRange(), g.streamRange())
		if g.chance(0.4) {
			args = append(args, g.pick("COUNT", "COUNT", "count", "LIMIT"), g.pick("0", "1", "2", "3", "-1", "10", "x", "9223372036854775807"))
		}
		return args, ""
	case 13:
		return cmd(g.pick("XRANGE", "XREVRANGE"), k, g.pick("-", "+"), g.pick("+", "-")), ""
	case 14:
		return cmd("XLEN", k), ""
	case 15, 16:
		return cmd("XDEL", k, g.many(1+g.n(3), g.streamID)), ""
	case 17, 18:
		return cmd("XTRIM", k, g.trimArgs()), ""
	case 19:
		args := cmd("XSETID", k, g.streamID())
		if g.chance(0.4) {
			args = append(args, "ENTRIESADDED", g.pick("0", "1", "3", "5", "100", "-1", "x", "18446744073709551615"))
		}
		if g.chance(0.4) {
			args = append(args, "MAXDELETEDID", g.streamID())
		}
		return args, ""
	case 20, 21, 22:
		ks := g.keys(2)
		args := []string{"XREAD"}
		if g.chance(0.5) {
			args = append(args, "COUNT", g.pick("1", "2", "0", "-1", "x", "10"))
		}
		args = append(args, g.pick("STREAMS", "STREAMS", "STREAMS", "streams", "KEYS"))
		args = append(args, ks...)
		for range ks {
			args = append(args, g.pick(g.streamID(), "$", "0", "0-0"))
		}
		if g.n(20) == 0 {
			args = args[:len(args)-1] // unbalanced
		}
		return args, ""
	case 23, 24:
		args := cmd("XINFO", "STREAM", k)
		if g.chance(0.5) {
			args = append(args, g.pick("FULL", "full", "FOO"))
			if g.chance(0.5) {
				args = append(args, "COUNT", g.pick("0", "1", "2", "-1", "x"))
			}
		}
		return args, ""
	case 25:
		// XINFO HELP lists the group subcommands: left to the groups work.
		return cmd("XINFO", g.pick("BOGUS", "STREAM", "stream")), ""
	case 26:
		if !inner {
			// Of a stream only: a hash table's DUMP follows its seeded order.
			return cmd("DUMP", k), "dumpstream"
		}
	case 27:
		// A DUMP restored elsewhere: the payload's listpacks and metadata
		// reach every reader.
		args := cmd("EVAL", "return redis.call('RESTORE', KEYS[2], 0, redis.call('DUMP', KEYS[1]), unpack(ARGV))", "2", k, g.key())
		if g.chance(0.6) {
			args = append(args, "REPLACE")
		}
		return args, ""
	case 28:
		return cmd("OBJECT", "ENCODING", k), ""
	case 29:
		return cmd("TYPE", k), ""
	case 30:
		return cmd("XADD", k, g.pick("MAXLEN", "MINID", "NOMKSTREAM", "LIMIT", "~", "=", "MAXLEN ~")), ""
	case 31:
		id, mode := g.addID(inner)
		return cmd("XADD", k, g.trimArgs(), id), mode
	case 32, 33:
		id, mode := g.addID(inner)
		return cmd("XADD", k, id, g.streamFields()), mode
	case 34:
		return cmd("DEL", k), ""
	case 35:
		return cmd("XRANGE", k, "-", "+", "COUNT", g.pick("1", "2")), ""
	case 36, 37:
		// "*": only where the reference's last ID is past the clock.
		args := cmd("XADD", k)
		if g.n(4) == 0 {
			args = append(args, g.trimArgs()...)
		}
		return cmd(args, "*", g.streamFields()), "clockid"
	case 38:
		if g.chance(0.5) {
			return cmd("CONFIG", "SET", "stream-node-max-entries", g.pick("1", "2", "3", "5", "0", "100", "-1")), ""
		}
		// Not below the default: Redis 7.0.15 corrupts its memory after
		// nodes were built with a small stream-node-max-bytes (3 crashed
		// a later dictFind; 100 crashed DUMP's lzf_compress of a node).
		// Entries of long values still split 4 KB nodes by bytes.
		return cmd("CONFIG", "SET", "stream-node-max-bytes", g.pick("0", "4096", "8192", "-1")), ""
	}
	return cmd("XLEN", k), ""
}

// skipUnlessStream skips an op unless the reference's key is a stream.
func skipUnlessStream(key string) func(ref *rawConn) bool {
	return func(ref *rawConn) bool {
		t, err := ref.do("TYPE", key)
		return err != nil || string(t) != "+stream\r\n"
	}
}

// skipClockID skips an XADD of "*" unless the reference's stream at key
// has a last ID past the clock, after which "*" increments it.
func skipClockID(key string) func(ref *rawConn) bool {
	return func(ref *rawConn) bool {
		info, err := ref.do("XINFO", "STREAM", key)
		if err != nil {
			return true
		}
		s := string(info)
		i := strings.Index(s, "last-generated-id\r\n")
		if i < 0 {
			return true
		}
		lines := strings.SplitN(s[i:], "\r\n", 4)
		if len(lines) < 3 {
			return true
		}
		ms, _, _ := strings.Cut(lines[2], "-")
		n, err := strconv.ParseUint(ms, 10, 64)
		return err != nil || n < farMs
	}
}
