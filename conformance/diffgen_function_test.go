package conformance

import (
	"bytes"
	"fmt"
	"strings"
)

// The functions family: FUNCTION LOAD [REPLACE] of small generated
// libraries (each function's body calls a command of any family, as the
// scripting family's EVALs do, with flags from Redis's set), FCALL and
// FCALL_RO, FUNCTION DELETE, FLUSH, LIST (compared !deepsort: Redis lists
// libraries and functions in the order of dicts with a random seed), STATS,
// KILL, and FUNCTION DUMP then RESTORE with each policy (each server
// restores its own payload, whose libraries are in that dict order too).
//
// Libraries and functions come from small pools of names, so loads collide
// (library exists, function exists in another library), REPLACE swaps
// functions between calls, and a deleted library's functions vanish.

var fnLibNames = []string{"lib1", "lib2", "lib3"}

var fnNames = []string{"fa", "fb", "fc", "fd", "FA"}

// fnBodies are function bodies over keys and args; the args name a command
// and its arguments, as the scripting family's ARGV.
var fnBodies = []string{
	"return redis.call(unpack(args))",
	"return redis.call(unpack(args))",
	"return redis.pcall(unpack(args))",
	"local r = redis.pcall(unpack(args)) if type(r) == 'table' and r.err then return 'E:' .. r.err end return {type(r), r}",
	"local ok, e = pcall(redis.call, unpack(args)) if ok then return {1, e} end return type(e) == 'table' and e.err or e",
	"redis.setresp(3) return redis.call(unpack(args))",
	"return {keys, args, #keys, #args}",
	"return redis.status_reply('FINE')",
	"return redis.error_reply('MY failure')",
	"error('boom')",
	"return redis.call('SET', keys[1], args[1] or 'x')",
	"return redis.call('GET', keys[1])",
	"return redis.call('XADD', keys[1], '1-*', 'f', args[1] or 'v')",
	"return redis.call('XRANGE', keys[1], '-', '+')",
}

var fnFlags = []string{"no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys"}

// library returns the code of a library named name.
func (g *gen) library(name string) string {
	var b strings.Builder
	switch g.n(30) {
	case 0:
		return g.pick("return 1", "#!lua\nreturn 1", "#!lua name="+name+"\nlocal x = 1",
			"#!lua name="+name+"\nfoo(", "#!js name="+name+"\nreturn 1",
			"#!lua name="+name+"\nredis.call('ping')", "#!lua name="+name+" bogus=1\nreturn 1")
	}
	fmt.Fprintf(&b, "#!lua name=%s\n", name)
	seen := map[string]string{}
	for range 1 + g.n(3) {
		fn := g.pick(fnNames...)
		// Twice in one library is an error: now and then. Two spellings
		// of one name are not sent: the library's dict tells them apart,
		// the server's does not, so one of them is callable, chosen by the
		// library dict's seeded order, and replacing or deleting such a
		// library frees a function the server's dict still holds (Redis
		// 7.0.15 then crashes).
		if prev, ok := seen[strings.ToLower(fn)]; ok && (prev != fn || g.n(4) != 0) {
			continue
		}
		seen[strings.ToLower(fn)] = fn
		body := g.pick(fnBodies...)
		if g.chance(0.5) {
			fmt.Fprintf(&b, "redis.register_function('%s', function(keys, args) %s end)\n", fn, body)
			continue
		}
		var flags []string
		for _, f := range fnFlags {
			if g.chance(0.25) {
				flags = append(flags, "'"+f+"'")
			}
		}
		if g.n(20) == 0 {
			flags = append(flags, "'bogus'")
		}
		desc := ""
		if g.chance(0.3) {
			desc = ", description='" + g.pick("reads", "writes a key", "") + "'"
		}
		fmt.Fprintf(&b, "redis.register_function{function_name='%s', callback=function(keys, args) %s end, flags={%s}%s}\n",
			fn, body, strings.Join(flags, ", "), desc)
	}
	return b.String()
}

func (g *gen) functionCmd(inner bool) ([]string, string) {
	lib := g.pick(fnLibNames...)
	r := g.n(30)
	switch r {
	case 0, 1, 2, 3, 4:
		args := []string{"FUNCTION", "LOAD"}
		if g.chance(0.4) {
			args = append(args, g.pick("REPLACE", "REPLACE", "replace", "BOGUS"))
		}
		return append(args, g.library(lib)), "fnexists"
	case 5, 6, 7, 8, 9, 10, 11, 12:
		// The function's args are a command of any family; its first key
		// is declared, as a well-behaved caller would.
		args := g.innerCmd()
		numkeys, keys := g.firstKey(args)
		return cmd(g.pick("FCALL", "FCALL", "FCALL", "FCALL_RO", "fcall"), g.pick(append(fnNames, "Fb")...), numkeys, keys, args), ""
	case 13:
		return cmd(g.pick("FCALL", "FCALL_RO"), g.pick("fa", "nosuch"), g.pick("0", "1", "2"), g.keys(2), g.value()), ""
	case 14, 15:
		return cmd("FUNCTION", "DELETE", g.pick(lib, lib, "nosuch", "LIB1")), ""
	case 16:
		args := []string{"FUNCTION", "FLUSH"}
		if g.chance(0.5) {
			args = append(args, g.pick("ASYNC", "SYNC", "sync", "LAZY"))
		}
		return args, ""
	case 17, 18, 19:
		args := []string{"FUNCTION", "LIST"}
		if g.chance(0.5) {
			args = append(args, "WITHCODE")
		}
		if g.chance(0.5) {
			args = append(args, "LIBRARYNAME", g.pick("lib*", "lib1", "*2", "x", "*"))
		}
		if g.n(10) == 0 {
			args = append(args, g.pick("WITHCODE", "LIBRARYNAME", "BOGUS"))
		}
		return args, "deepsort"
	case 20:
		return cmd("FUNCTION", "STATS"), ""
	case 21:
		return cmd("FUNCTION", g.pick("KILL", "BOGUS", "RESTORE")), ""
	case 22:
		return cmd("FUNCTION", "RESTORE", g.pick("", "\x00", "garbage", "\xf5\x00"), g.pick("APPEND", "FLUSH")), ""
	case 23, 24:
		if !inner {
			return cmd("FUNCTION", "DUMP"), "restore"
		}
	}
	return cmd("FUNCTION", "STATS"), ""
}

// sameCollision reports whether two replies are the same error of a
// FUNCTION LOAD or RESTORE naming a function or library that exists: which
// one is named, when several collide, follows the order of a dict with a
// random seed.
func sameCollision(want, got []byte) bool {
	w, g := string(want), string(got)
	for _, e := range [][2]string{{"-ERR Function ", " already exists\r\n"}, {"-ERR Library ", " already exists\r\n"}} {
		if strings.HasPrefix(w, e[0]) && strings.HasPrefix(g, e[0]) && strings.HasSuffix(w, e[1]) && strings.HasSuffix(g, e[1]) {
			return true
		}
	}
	return false
}

// restorePolicies are FUNCTION RESTORE's policies; "" sends none (APPEND).
var restorePolicies = []string{"", "APPEND", "FLUSH", "REPLACE", "flush", "BOGUS"}

// ownRestore is a FUNCTION RESTORE of the server's own FUNCTION DUMP with
// policy: each server restores what it dumped, whose libraries come in its
// dict's order, so payloads are not compared.
func ownRestore(policy string) func(c *rawConn) ([]string, error) {
	return func(c *rawConn) ([]string, error) {
		raw, err := c.do("FUNCTION", "DUMP")
		if err != nil {
			return nil, err
		}
		if len(raw) == 0 || raw[0] != '$' {
			return nil, fmt.Errorf("FUNCTION DUMP: %q", raw)
		}
		_, payload, _ := bytes.Cut(raw, []byte("\r\n"))
		args := []string{"FUNCTION", "RESTORE", string(bytes.TrimSuffix(payload, []byte("\r\n")))}
		if policy != "" {
			args = append(args, policy)
		}
		return args, nil
	}
}
