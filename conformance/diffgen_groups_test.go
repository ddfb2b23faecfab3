package conformance

import (
	"slices"
	"strconv"
)

// The consumer-groups family: XGROUP (CREATE, SETID, DESTROY,
// CREATECONSUMER, DELCONSUMER, HELP), non-blocking XREADGROUP (">" and
// history, NOACK, COUNT), XACK, XPENDING (summary and extended), XCLAIM
// and XAUTOCLAIM with a min-idle-time of 0 (JUSTID, FORCE, RETRYCOUNT,
// LASTID, IDLE), XINFO GROUPS and CONSUMERS, and what changes a group's
// entries under it (XADD, XDEL, XTRIM, XSETID, DEL).
//
// Its streams are keys of their own (groupKeys): a group's seen and
// delivery times would show in the streams family's XINFO STREAM FULL and
// DUMP. The other keys get only commands that create no group, for their
// errors (WRONGTYPE, NOGROUP, no such key).
//
// Idle times depend on the clock: XPENDING's extended form and XINFO
// CONSUMERS go through a Lua wrapper that replaces each idle time with its
// type (groupPendingScript, groupConsumersScript), so IDs, consumers and
// delivery counts are still compared; inside MULTI and scripts, where no
// EVAL can wrap, they are not sent. A min-idle-time or IDLE filter is 0 or
// invalid, never one an entry might or might not reach. XCLAIM's TIME is
// not sent (its time only shows as an idle time).

var groupKeys = []string{"gs1", "gs2", "gs3"}

// groupPendingScript is XPENDING (ARGV: its arguments after the key) with
// each entry's idle time masked; a summary or an error passes unchanged.
const groupPendingScript = "local r = redis.call('xpending', KEYS[1], unpack(ARGV)) " +
	"for _, e in ipairs(r) do if type(e) == 'table' and e[3] ~= nil then e[3] = type(e[3]) end end return r"

// groupConsumersScript is XINFO CONSUMERS (ARGV: the group) with each
// consumer's idle time (its sixth field in 7.0) masked.
const groupConsumersScript = "local r = redis.call('xinfo', 'consumers', KEYS[1], unpack(ARGV)) " +
	"for _, c in ipairs(r) do if type(c) == 'table' and c[6] ~= nil then c[6] = type(c[6]) end end return r"

func (g *gen) groupKey() string {
	if g.n(15) == 0 {
		return g.key()
	}
	return groupKeys[g.n(len(groupKeys))]
}

func (g *gen) groupName() string {
	if g.n(30) == 0 {
		return g.pick("", "nogroup", "G1")
	}
	return g.pick("g1", "g1", "g2")
}

func (g *gen) consumerName() string {
	if g.n(30) == 0 {
		return g.pick("", "C1", "c\x00")
	}
	return g.pick("c1", "c1", "c2", "c3")
}

// groupID is an entry ID of a group stream: the small IDs groupCmd adds,
// sometimes an edge or a bad one.
func (g *gen) groupID() string {
	switch g.n(12) {
	case 0:
		return g.pick("0", "0-0", "-", "+", "$", ">", "18446744073709551615-18446744073709551615")
	case 1:
		return g.pick("abc", "1-x", "-1", "")
	case 2:
		return strconv.Itoa(1 + g.n(20))
	}
	return strconv.Itoa(1+g.n(20)) + "-" + strconv.Itoa(g.n(3))
}

func (g *gen) groupCount() string {
	if g.n(8) == 0 {
		return g.pick("0", "-1", "x", "9223372036854775807", "9223372036854775808")
	}
	return strconv.Itoa(1 + g.n(5))
}

// groupSetID is XGROUP CREATE's or SETID's ID, with ENTRIESREAD sometimes.
func (g *gen) groupSetID() []string {
	args := []string{g.pick("$", "0", "0", g.groupID())}
	if g.chance(0.3) {
		args = append(args, g.pick("ENTRIESREAD", "entriesread"), g.pick("0", "1", "3", "10", "-1", "-2", "x", "9223372036854775807"))
	}
	return args
}

func (g *gen) groupCmd(inner bool) ([]string, string) {
	k, grp := g.groupKey(), g.groupName()
	r := g.n(40)
	if inner && (r == 20 || r == 21 || r == 36) {
		r = 22
	}
	switch r {
	case 0, 1, 2, 3, 4, 5:
		// Entries to deliver: IDs from the last on ("ms-*" never meets a
		// full sequence here).
		args := cmd("XADD", k)
		if g.n(10) == 0 {
			args = append(args, "MAXLEN", g.pick("1", "3", "5"))
		}
		id := strconv.Itoa(1+g.n(20)) + "-" + g.pick("*", "*", "0", "1", "2")
		return cmd(args, id, "f", g.pick("1", "2", "v")), ""
	case 6, 7:
		if !slices.Contains(groupKeys, k) {
			k = groupKeys[0] // no group on a key of another family
		}
		args := cmd("XGROUP", g.pick("CREATE", "CREATE", "create"), k, grp, g.groupSetID())
		if g.chance(0.4) {
			args = append(args, "MKSTREAM")
		}
		return args, ""
	case 8:
		return cmd("XGROUP", g.pick("SETID", "setid"), k, grp, g.groupSetID()), ""
	case 9:
		return cmd("XGROUP", "DESTROY", k, grp), ""
	case 10:
		return cmd("XGROUP", "CREATECONSUMER", k, grp, g.consumerName()), ""
	case 11:
		return cmd("XGROUP", "DELCONSUMER", k, grp, g.consumerName()), ""
	case 12:
		return cmd("XGROUP", g.pick("HELP", "help", "BOGUS", "CREATE")), ""
	case 13, 14, 15, 16, 17, 18:
		args := cmd("XREADGROUP", g.pick("GROUP", "GROUP", "group"), grp, g.consumerName())
		if g.chance(0.6) {
			args = append(args, "COUNT", g.groupCount())
		}
		if g.n(5) == 0 {
			args = append(args, "NOACK")
		}
		ks := []string{k}
		if g.n(5) == 0 {
			ks = append(ks, g.groupKey())
		}
		args = append(args, g.pick("STREAMS", "STREAMS", "streams"))
		args = append(args, ks...)
		for range ks {
			if g.chance(0.7) {
				args = append(args, ">")
			} else {
				args = append(args, g.groupID())
			}
		}
		return args, ""
	case 19:
		return cmd("XACK", k, grp, g.many(1+g.n(3), g.groupID)), ""
	case 20, 21:
		var args []string
		if g.chance(0.3) {
			args = append(args, "IDLE", g.pick("0", "0", "-1", "x"))
		}
		args = append(args, g.pick("-", "(1-0", g.groupID()), g.pick("+", "(20-0", g.groupID()), g.groupCount())
		if g.chance(0.5) {
			args = append(args, g.consumerName())
		}
		return cmd("EVAL", groupPendingScript, "1", k, grp, args), ""
	case 22, 23:
		return cmd("XPENDING", k, grp), ""
	case 24, 25, 26:
		args := cmd("XCLAIM", k, grp, g.consumerName(), g.pick("0", "0", "0", "-1", "x"), g.many(1+g.n(3), g.groupID))
		for range g.n(3) {
			switch g.n(6) {
			case 0:
				args = append(args, "IDLE", g.pick("0", "1000", "-5", "x"))
			case 1:
				args = append(args, "RETRYCOUNT", g.pick("0", "3", "-1", "x"))
			case 2:
				args = append(args, "FORCE")
			case 3:
				args = append(args, "LASTID", g.groupID())
			default:
				args = append(args, "JUSTID")
			}
		}
		return args, ""
	case 27, 28, 29:
		args := cmd("XAUTOCLAIM", k, grp, g.consumerName(), g.pick("0", "0", "0", "-1", "x"), g.groupID())
		if g.chance(0.5) {
			args = append(args, "COUNT", g.pick("1", "2", "3", "10", "0", "-1", "x", "1000000000"))
		}
		if g.chance(0.4) {
			args = append(args, "JUSTID")
		}
		return args, ""
	case 30, 31:
		return cmd("XINFO", "GROUPS", k), ""
	case 32:
		return cmd("XINFO", g.pick("HELP", "help", "BOGUS")), ""
	case 33:
		return cmd("XDEL", k, g.many(1+g.n(2), g.groupID)), ""
	case 34:
		return cmd("XTRIM", k, g.pick("MAXLEN", "MINID"), g.pick("0", "1", "3", "5-0", "10-0")), ""
	case 35:
		return cmd("XSETID", k, g.groupID()), ""
	case 36:
		return cmd("EVAL", groupConsumersScript, "1", k, grp), ""
	case 37:
		return cmd("DEL", k), ""
	case 38:
		return cmd("XLEN", k), ""
	}
	return cmd("XRANGE", k, "-", "+"), ""
}
