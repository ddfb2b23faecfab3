package conformance

import (
	"fmt"
	"testing"
)

// A script's nested reply is cut where Redis's luaReplyToRedisReply finds
// no room for 4 more Lua stack slots (LUAI_MAXCSTACK, 8,000): 7,995 array
// levels, fewer through maps and sets, which hold more slots per level.
// The value that does not fit is answered "-ERR reached lua stack limit"
// and its siblings go on.
func TestLuaReplyDepth(t *testing.T) {
	nest := func(store string, depth int) string {
		return fmt.Sprintf(`EVAL "local t = {} local cur = t for i = 1, tonumber(ARGV[1]) do local n = {} %s cur = n end return t" 0 %d`, store, depth)
	}
	const array, mapValue, mapKey, set = "cur[1] = n", "cur.map = {k = n}", "cur.map = {[n] = 1}", "cur.set = {[n] = true}"
	var lines []string
	for _, depth := range []int{200, 201, 7993, 7994, 7995, 7996, 9000} {
		lines = append(lines, nest(array, depth))
	}
	for _, depth := range []int{2663, 2664, 2665, 2666} {
		lines = append(lines, nest(mapValue, depth), nest(set, depth))
	}
	for _, depth := range []int{1997, 1998, 1999, 2000} {
		lines = append(lines, nest(mapKey, depth))
	}
	lines = append(lines,
		// A leaf value at the limit is refused as a table is.
		`EVAL "local t = {} local cur = t for i = 1, tonumber(ARGV[1]) do local n = {} cur[1] = n cur = n end cur[1] = 'leaf' return t" 0 7993`,
		`EVAL "local t = {} local cur = t for i = 1, tonumber(ARGV[1]) do local n = {} cur[1] = n cur = n end cur[1] = 'leaf' return t" 0 7994`,
		`EVAL "local t = {} local cur = t for i = 1, tonumber(ARGV[1]) do local n = {} cur[1] = n cur = n end cur[1] = {err = 'deep'} return t" 0 7994`,
		// Siblings after the refused value are answered.
		`EVAL "local t = {} local cur = t for i = 1, tonumber(ARGV[1]) do local n = {} cur[1] = n cur[2] = i cur = n end return t" 0 8000`,
		// A table that holds itself.
		`EVAL "local t = {} t[1] = t return t" 0`,
		`EVAL "local t = {'a'} t[2] = t return t" 0`,
		`EVAL "redis.setresp(3) local t = {} t.map = {k = t} return t" 0`,
		`SCRIPT LOAD "local t = {} t[1] = t return t"`,
		`EVALSHA 6361ba613daffd802d486fccde6088a48407aa8d 0`,
	)
	runCases(t, []tcase{{"nested replies", lines}})
}
