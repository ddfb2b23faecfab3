package server

import (
	"strings"

	"github.com/floodgate/floodgate/internal/number"
)

// keySpec is one of a command's key specifications, as Redis 7.0's
// COMMAND INFO reports it and COMMAND GETKEYSANDFLAGS applies it: where the
// search for keys begins (an index, or after a keyword), how keys are found
// from there (a range, or a numkeys argument), and how the command uses
// them (RO/RW/OW/RM plus access, update, insert, delete).
type keySpec struct {
	notes string
	flags string // space-separated, in Redis's order
	begin keyBegin
	find  keyFind
}

// keyBegin is a key spec's begin_search: index > 0 for an index search, a
// keyword for a keyword search, neither for "unknown".
type keyBegin struct {
	index     int
	keyword   string
	startFrom int
}

// keyFind is a key spec's find_keys: a range (lastKey, keyStep, limit), a
// keynum (keyNumIdx, firstKey, keyStep) or, with neither, "unknown".
type keyFind struct {
	kind                string // "range", "keynum" or "unknown"
	lastKey, keyStep    int
	limit               int
	keyNumIdx, firstKey int
}

func beginIndex(i int) keyBegin { return keyBegin{index: i} }
func beginKeyword(k string, startFrom int) keyBegin {
	return keyBegin{keyword: k, startFrom: startFrom}
}
func findRange(last, step, limit int) keyFind {
	return keyFind{kind: "range", lastKey: last, keyStep: step, limit: limit}
}
func findKeyNum(idx, first, step int) keyFind {
	return keyFind{kind: "keynum", keyNumIdx: idx, firstKey: first, keyStep: step}
}

var (
	unknownBegin = keyBegin{}
	unknownFind  = keyFind{kind: "unknown"}
)

// flagList returns the spec's flags as COMMAND replies list them.
func (s *keySpec) flagList() []string { return strings.Fields(s.flags) }

// positions returns the argument positions the spec designates in args
// (args[0] is the command name), as Redis's getKeysUsingKeySpecs finds
// them; an unknown spec designates none.
func (s *keySpec) positions(args [][]byte) []int {
	start := 0
	switch {
	case s.begin.index > 0:
		start = s.begin.index
	case s.begin.keyword != "":
		// A negative startfrom searches backwards from the end.
		from, end, step := s.begin.startFrom, len(args), 1
		if from < 0 {
			from, end, step = len(args)+from, 0, -1
		}
		for i := from; i != end && i >= 0 && i < len(args); i += step {
			if eqFold(args[i], s.begin.keyword) {
				start = i + 1
				break
			}
		}
	}
	if start <= 0 || start >= len(args) {
		return nil
	}
	var pos []int
	switch s.find.kind {
	case "range":
		last := s.find.lastKey
		switch {
		case last >= 0:
			last += start
		case s.find.limit > 0:
			// Keys take 1/limit of the arguments from start on.
			last = start + (len(args)-start)/s.find.limit + last
		default:
			last = len(args) + last
		}
		for i := start; i <= last && i < len(args); i += s.find.keyStep {
			pos = append(pos, i)
		}
	case "keynum":
		idx := start + s.find.keyNumIdx
		if idx >= len(args) {
			return nil
		}
		n, ok := number.ParseInt(args[idx])
		if !ok || n < 0 {
			return nil
		}
		first := start + s.find.firstKey
		for i := 0; i < int(n) && first+i*s.find.keyStep < len(args); i++ {
			pos = append(pos, first+i*s.find.keyStep)
		}
	}
	return pos
}

// keyFlags returns the access flags COMMAND GETKEYSANDFLAGS gives the key at
// args[p]. SET and BITFIELD have variable flags, decided by their
// arguments as Redis's own key procedures decide them; otherwise the first
// spec that designates p says, and a key no spec designates (SORT's STORE
// destination, found by SORT's own parser) takes the last spec's flags.
func keyFlags(cmd *Command, args [][]byte, p int) []string {
	switch cmd.Name {
	case "set":
		for _, a := range args[3:] {
			if eqFold(a, "get") {
				return []string{"RW", "access", "update"}
			}
		}
		return []string{"OW", "update"}
	case "migrate":
		return []string{"RW", "access", "delete"} // migrateGetKeys's, for either spec
	case "bitfield":
		for _, a := range args[2:] {
			if eqFold(a, "set") || eqFold(a, "incrby") {
				return []string{"RW", "access", "update"}
			}
		}
		return []string{"RO", "access"}
	}
	specs, ok := commandKeySpecs[cmd.Name]
	if !ok {
		return keySpecFlags(cmd)
	}
	for i := range specs {
		for _, q := range specs[i].positions(args) {
			if q == p {
				return specs[i].flagList()
			}
		}
	}
	return specs[len(specs)-1].flagList()
}

// commandKeySpecs holds the key specs of every command with keys, as
// redis-server 7.0.15's COMMAND INFO reports them (the table was made from
// its replies). A command missing here (CL.THROTTLE, not in Redis) gets
// one spec derived from its first/last/step key positions.
var commandKeySpecs = map[string][]keySpec{
	"append":               {{flags: "RW insert", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"bitcount":             {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"bitfield":             {{notes: "This command allows both access and modification of the key", flags: "RW access update variable_flags", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"bitfield_ro":          {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"bitop":                {{flags: "OW update", begin: beginIndex(2), find: findRange(0, 1, 0)}, {flags: "RO access", begin: beginIndex(3), find: findRange(-1, 1, 0)}},
	"bitpos":               {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"blmove":               {{flags: "RW access delete", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "RW insert", begin: beginIndex(2), find: findRange(0, 1, 0)}},
	"blmpop":               {{flags: "RW access delete", begin: beginIndex(2), find: findKeyNum(0, 1, 1)}},
	"blpop":                {{flags: "RW access delete", begin: beginIndex(1), find: findRange(-2, 1, 0)}},
	"brpop":                {{flags: "RW access delete", begin: beginIndex(1), find: findRange(-2, 1, 0)}},
	"brpoplpush":           {{flags: "RW access delete", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "RW insert", begin: beginIndex(2), find: findRange(0, 1, 0)}},
	"bzmpop":               {{flags: "RW access delete", begin: beginIndex(2), find: findKeyNum(0, 1, 1)}},
	"bzpopmax":             {{flags: "RW access delete", begin: beginIndex(1), find: findRange(-2, 1, 0)}},
	"bzpopmin":             {{flags: "RW access delete", begin: beginIndex(1), find: findRange(-2, 1, 0)}},
	"copy":                 {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "OW update", begin: beginIndex(2), find: findRange(0, 1, 0)}},
	"decr":                 {{flags: "RW access update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"decrby":               {{flags: "RW access update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"del":                  {{flags: "RM delete", begin: beginIndex(1), find: findRange(-1, 1, 0)}},
	"dump":                 {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"eval":                 {{notes: "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE", flags: "RW access update", begin: beginIndex(2), find: findKeyNum(0, 1, 1)}},
	"eval_ro":              {{notes: "We cannot tell how the keys will be used so we assume the worst, RO and ACCESS", flags: "RO access", begin: beginIndex(2), find: findKeyNum(0, 1, 1)}},
	"evalsha":              {{flags: "RW access update", begin: beginIndex(2), find: findKeyNum(0, 1, 1)}},
	"evalsha_ro":           {{flags: "RO access", begin: beginIndex(2), find: findKeyNum(0, 1, 1)}},
	"exists":               {{flags: "RO", begin: beginIndex(1), find: findRange(-1, 1, 0)}},
	"expire":               {{flags: "RW update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"expireat":             {{flags: "RW update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"expiretime":           {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"geoadd":               {{flags: "RW update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"geodist":              {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"geohash":              {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"geopos":               {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"georadius":            {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "OW update", begin: beginKeyword("STORE", 6), find: findRange(0, 1, 0)}, {flags: "OW update", begin: beginKeyword("STOREDIST", 6), find: findRange(0, 1, 0)}},
	"georadius_ro":         {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"georadiusbymember":    {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "OW update", begin: beginKeyword("STORE", 5), find: findRange(0, 1, 0)}, {flags: "OW update", begin: beginKeyword("STOREDIST", 5), find: findRange(0, 1, 0)}},
	"georadiusbymember_ro": {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"geosearch":            {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"geosearchstore":       {{flags: "OW update", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "RO access", begin: beginIndex(2), find: findRange(0, 1, 0)}},
	"get":                  {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"getbit":               {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"getdel":               {{flags: "RW access delete", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"getex":                {{notes: "RW and UPDATE because it changes the TTL", flags: "RW access update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"getrange":             {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"getset":               {{flags: "RW access update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"hdel":                 {{flags: "RW delete", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"hexists":              {{flags: "RO", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"hget":                 {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"hgetall":              {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"hincrby":              {{flags: "RW access update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"hincrbyfloat":         {{flags: "RW access update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"hkeys":                {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"hlen":                 {{flags: "RO", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"hmget":                {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"hmset":                {{flags: "RW update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"hrandfield":           {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"hscan":                {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"hset":                 {{flags: "RW update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"hsetnx":               {{flags: "RW insert", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"hstrlen":              {{flags: "RO", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"hvals":                {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"incr":                 {{flags: "RW access update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"incrby":               {{flags: "RW access update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"incrbyfloat":          {{flags: "RW access update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"lcs":                  {{flags: "RO access", begin: beginIndex(1), find: findRange(1, 1, 0)}},
	"lindex":               {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"linsert":              {{flags: "RW insert", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"llen":                 {{flags: "RO", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"lmove":                {{flags: "RW access delete", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "RW insert", begin: beginIndex(2), find: findRange(0, 1, 0)}},
	"lmpop":                {{flags: "RW access delete", begin: beginIndex(1), find: findKeyNum(0, 1, 1)}},
	"lpop":                 {{flags: "RW access delete", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"lpos":                 {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"lpush":                {{flags: "RW insert", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"lpushx":               {{flags: "RW insert", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"lrange":               {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"lrem":                 {{flags: "RW delete", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"lset":                 {{flags: "RW update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"ltrim":                {{flags: "RW delete", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"mget":                 {{flags: "RO access", begin: beginIndex(1), find: findRange(-1, 1, 0)}},
	"migrate":              {{flags: "RW access delete", begin: beginIndex(3), find: findRange(0, 1, 0)}, {flags: "RW access delete incomplete", begin: beginKeyword("KEYS", -2), find: findRange(-1, 1, 0)}},
	"move":                 {{flags: "RW access update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"mset":                 {{flags: "OW update", begin: beginIndex(1), find: findRange(-1, 2, 0)}},
	"msetnx":               {{flags: "OW insert", begin: beginIndex(1), find: findRange(-1, 2, 0)}},
	"object|freq":          {{flags: "RO", begin: beginIndex(2), find: findRange(0, 1, 0)}},
	"object|encoding":      {{flags: "RO", begin: beginIndex(2), find: findRange(0, 1, 0)}},
	"object|idletime":      {{flags: "RO", begin: beginIndex(2), find: findRange(0, 1, 0)}},
	"object|refcount":      {{flags: "RO", begin: beginIndex(2), find: findRange(0, 1, 0)}},
	"persist":              {{flags: "RW update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"pexpire":              {{flags: "RW update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"pexpireat":            {{flags: "RW update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"pexpiretime":          {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"pfadd":                {{flags: "RW insert", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"pfcount":              {{notes: "RW because it may change the internal representation of the key, and propagate to replicas", flags: "RW access", begin: beginIndex(1), find: findRange(-1, 1, 0)}},
	"pfdebug":              {{flags: "RW access", begin: beginIndex(2), find: findRange(0, 1, 0)}},
	"pfmerge":              {{flags: "RW access insert", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "RO access", begin: beginIndex(2), find: findRange(-1, 1, 0)}},
	"psetex":               {{flags: "OW update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"pttl":                 {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"rename":               {{flags: "RW access delete", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "OW update", begin: beginIndex(2), find: findRange(0, 1, 0)}},
	"renamenx":             {{flags: "RW access delete", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "OW insert", begin: beginIndex(2), find: findRange(0, 1, 0)}},
	"restore":              {{flags: "OW update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"rpop":                 {{flags: "RW access delete", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"rpoplpush":            {{flags: "RW access delete", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "RW insert", begin: beginIndex(2), find: findRange(0, 1, 0)}},
	"rpush":                {{flags: "RW insert", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"rpushx":               {{flags: "RW insert", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"sadd":                 {{flags: "RW insert", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"scard":                {{flags: "RO", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"sdiff":                {{flags: "RO access", begin: beginIndex(1), find: findRange(-1, 1, 0)}},
	"sdiffstore":           {{flags: "OW update", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "RO access", begin: beginIndex(2), find: findRange(-1, 1, 0)}},
	"set":                  {{notes: "RW and ACCESS due to the optional `GET` argument", flags: "RW access update variable_flags", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"setbit":               {{flags: "RW access update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"setex":                {{flags: "OW update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"setnx":                {{flags: "OW insert", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"setrange":             {{flags: "RW update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"sinter":               {{flags: "RO access", begin: beginIndex(1), find: findRange(-1, 1, 0)}},
	"sintercard":           {{flags: "RO access", begin: beginIndex(1), find: findKeyNum(0, 1, 1)}},
	"sinterstore":          {{flags: "RW update", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "RO access", begin: beginIndex(2), find: findRange(-1, 1, 0)}},
	"sismember":            {{flags: "RO", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"smembers":             {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"smismember":           {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"smove":                {{flags: "RW access delete", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "RW insert", begin: beginIndex(2), find: findRange(0, 1, 0)}},
	"sort":                 {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}, {notes: "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort", flags: "RO access", begin: unknownBegin, find: unknownFind}, {notes: "For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array", flags: "OW update", begin: unknownBegin, find: unknownFind}},
	"sort_ro":              {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}, {notes: "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort", flags: "RO access", begin: unknownBegin, find: unknownFind}},
	"spop":                 {{flags: "RW access delete", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"srandmember":          {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"srem":                 {{flags: "RW delete", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"sscan":                {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"strlen":               {{flags: "RO", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"substr":               {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"sunion":               {{flags: "RO access", begin: beginIndex(1), find: findRange(-1, 1, 0)}},
	"sunionstore":          {{flags: "OW update", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "RO access", begin: beginIndex(2), find: findRange(-1, 1, 0)}},
	"touch":                {{flags: "RO", begin: beginIndex(1), find: findRange(-1, 1, 0)}},
	"ttl":                  {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"type":                 {{flags: "RO", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"unlink":               {{flags: "RM delete", begin: beginIndex(1), find: findRange(-1, 1, 0)}},
	"watch":                {{flags: "RO", begin: beginIndex(1), find: findRange(-1, 1, 0)}},
	"zadd":                 {{flags: "RW update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zcard":                {{flags: "RO", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zcount":               {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zdiff":                {{flags: "RO access", begin: beginIndex(1), find: findKeyNum(0, 1, 1)}},
	"zdiffstore":           {{flags: "OW update", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "RO access", begin: beginIndex(2), find: findKeyNum(0, 1, 1)}},
	"zincrby":              {{flags: "RW access update", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zinter":               {{flags: "RO access", begin: beginIndex(1), find: findKeyNum(0, 1, 1)}},
	"zintercard":           {{flags: "RO access", begin: beginIndex(1), find: findKeyNum(0, 1, 1)}},
	"zinterstore":          {{flags: "OW update", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "RO access", begin: beginIndex(2), find: findKeyNum(0, 1, 1)}},
	"zlexcount":            {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zmpop":                {{flags: "RW access delete", begin: beginIndex(1), find: findKeyNum(0, 1, 1)}},
	"zmscore":              {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zpopmax":              {{flags: "RW access delete", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zpopmin":              {{flags: "RW access delete", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zrandmember":          {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zrange":               {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zrangebylex":          {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zrangebyscore":        {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zrangestore":          {{flags: "OW update", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "RO access", begin: beginIndex(2), find: findRange(0, 1, 0)}},
	"zrank":                {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zrem":                 {{flags: "RW delete", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zremrangebylex":       {{flags: "RW delete", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zremrangebyrank":      {{flags: "RW delete", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zremrangebyscore":     {{flags: "RW delete", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zrevrange":            {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zrevrangebylex":       {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zrevrangebyscore":     {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zrevrank":             {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zscan":                {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zscore":               {{flags: "RO access", begin: beginIndex(1), find: findRange(0, 1, 0)}},
	"zunion":               {{flags: "RO access", begin: beginIndex(1), find: findKeyNum(0, 1, 1)}},
	"zunionstore":          {{flags: "OW update", begin: beginIndex(1), find: findRange(0, 1, 0)}, {flags: "RO access", begin: beginIndex(2), find: findKeyNum(0, 1, 1)}},
}

// writeTableKeySpecs writes key specs as COMMAND INFO does: a map per
// spec with notes (when there are any), flags, begin_search and find_keys.
func writeTableKeySpecs(w Writer, specs []keySpec) {
	w.Set(len(specs))
	for i := range specs {
		s := &specs[i]
		n := 3
		if s.notes != "" {
			n++
		}
		w.Map(n)
		if s.notes != "" {
			w.BulkString("notes")
			w.BulkString(s.notes)
		}
		flags := s.flagList()
		w.BulkString("flags")
		w.Set(len(flags))
		for _, f := range flags {
			w.Status(f)
		}
		w.BulkString("begin_search")
		w.Map(2)
		w.BulkString("type")
		switch {
		case s.begin.index > 0:
			w.BulkString("index")
			w.BulkString("spec")
			w.Map(1)
			w.BulkString("index")
			w.Int(int64(s.begin.index))
		case s.begin.keyword != "":
			w.BulkString("keyword")
			w.BulkString("spec")
			w.Map(2)
			w.BulkString("keyword")
			w.BulkString(s.begin.keyword)
			w.BulkString("startfrom")
			w.Int(int64(s.begin.startFrom))
		default:
			w.BulkString("unknown")
			w.BulkString("spec")
			w.Map(0)
		}
		w.BulkString("find_keys")
		w.Map(2)
		w.BulkString("type")
		w.BulkString(s.find.kind)
		w.BulkString("spec")
		switch s.find.kind {
		case "range":
			w.Map(3)
			w.BulkString("lastkey")
			w.Int(int64(s.find.lastKey))
			w.BulkString("keystep")
			w.Int(int64(s.find.keyStep))
			w.BulkString("limit")
			w.Int(int64(s.find.limit))
		case "keynum":
			w.Map(3)
			w.BulkString("keynumidx")
			w.Int(int64(s.find.keyNumIdx))
			w.BulkString("firstkey")
			w.Int(int64(s.find.firstKey))
			w.BulkString("keystep")
			w.Int(int64(s.find.keyStep))
		default:
			w.Map(0)
		}
	}
}
