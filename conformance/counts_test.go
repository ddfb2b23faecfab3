package conformance

import "testing"

// TestHugeCounts sends the count, limit, rank and index arguments of every
// family the values at and past the ends of their range (MAX and MIN are
// int64's, P and N a huge count of either sign, 2^32 past C's int). The
// negative counts of HRANDFIELD, SRANDMEMBER and ZRANDMEMBER that Redis
// accepts are not here: it starts a reply it never finishes (see
// server/random_reply.go and TestRandomHugeNegativeCount).
func TestHugeCounts(t *testing.T) {
	const (
		max = "9223372036854775807"
		min = "-9223372036854775808"
		p   = "2259345540790219970"
		n   = "-2259345540790219970"
		big = "4294967296"
	)
	setup := []string{
		"HSET h a 1 b 2 c 3", "SADD s a b c", "ZADD z 1 a 2 b 3 c", "RPUSH l a b c a b", "SET str foobar",
		"GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania",
	}
	with := func(lines ...string) []string { return append(append([]string{}, setup...), lines...) }
	runCases(t, []tcase{
		{"randfield", with(
			"HRANDFIELD h "+max, "HRANDFIELD h "+max+" WITHVALUES", "HRANDFIELD h "+min, "HRANDFIELD h "+min+" WITHVALUES",
			"HRANDFIELD h -9223372036854770000 WITHVALUES", "HRANDFIELD h "+p+" WITHVALUES", "HRANDFIELD h "+big,
			"HRANDFIELD nokey "+n, "HRANDFIELD nokey "+n+" WITHVALUES", "HRANDFIELD h "+n+" WITHVALUE",
		)},
		{"randmember", with(
			"!sort SRANDMEMBER s "+max, "!sort SRANDMEMBER s "+p, "SRANDMEMBER s "+min, "SRANDMEMBER nokey "+n,
			"ZRANDMEMBER z "+max, "ZRANDMEMBER z "+max+" WITHSCORES", "ZRANDMEMBER z "+min, "ZRANDMEMBER z -9223372036854770000 WITHSCORES",
			"ZRANDMEMBER z "+p+" WITHSCORES", "ZRANDMEMBER nokey "+n,
		)},
		{"pop", with(
			"LPOP l "+min, "LPOP l "+n, "RPOP l -1", "LPOP l "+max, "RPUSH l a b", "RPOP l "+big,
			"SPOP s "+n, "SPOP s "+min, "!sort SPOP s "+max, "SADD s a", "SPOP s "+big,
			"LMPOP 1 l LEFT COUNT "+max, "RPUSH l a", "LMPOP 1 l LEFT COUNT "+n, "LMPOP "+max+" l LEFT", "LMPOP "+big+" l LEFT",
			"ZMPOP 1 z MIN COUNT "+max, "ZADD z 1 a", "ZMPOP 1 z MAX COUNT "+min, "ZMPOP "+p+" z MIN",
			"BLMPOP "+max+" 1 l LEFT", "BLMPOP 0 1 l LEFT COUNT "+max,
		)},
		{"list-ranges", with(
			"LRANGE l "+min+" "+max, "LRANGE l "+n+" "+p, "LRANGE l 0 "+n, "LRANGE l -"+big+" "+big,
			"LINDEX l "+min, "LINDEX l "+max, "LSET l "+max+" x", "LSET l "+min+" x",
			"LPOS l a COUNT "+max, "LPOS l a COUNT "+max+" MAXLEN "+max, "LPOS l a RANK "+min, "LPOS l a RANK "+max,
			"LPOS l a RANK "+n+" COUNT "+p+" MAXLEN "+p, "LPOS l a COUNT "+n, "LPOS l a MAXLEN "+n,
			"LPOS l a COUNT "+big+" MAXLEN "+big+" RANK -"+big,
			"LREM l "+min+" a", "LREM l "+n+" b", "LREM l "+max+" c", "LTRIM l "+min+" "+max, "LRANGE l 0 -1",
		)},
		{"zset-ranges", with(
			"ZRANGE z 0 -1 BYSCORE LIMIT 0 "+max, "ZRANGE z 0 -1 LIMIT 0 "+max,
			"ZRANGE z -inf +inf BYSCORE LIMIT "+max+" "+max, "ZRANGE z -inf +inf BYSCORE LIMIT "+min+" "+min,
			"ZRANGE z -inf +inf BYSCORE LIMIT "+n+" "+n, "ZRANGE z -inf +inf BYSCORE LIMIT 0 "+n,
			"ZRANGE z - + BYLEX LIMIT "+p+" "+n, "ZRANGEBYSCORE z -inf +inf LIMIT 0 "+p,
			"ZRANGEBYSCORE z -inf +inf LIMIT "+p+" "+p, "ZREVRANGEBYSCORE z +inf -inf LIMIT "+n+" "+p,
			"ZRANGEBYLEX z - + LIMIT 0 "+max, "ZREVRANGEBYLEX z + - LIMIT "+min+" "+max,
			"ZRANGESTORE dst z -inf +inf BYSCORE LIMIT 0 "+max, "ZRANGE z "+min+" "+max, "ZRANGE z "+n+" "+p,
			"ZREVRANGE z "+min+" "+max+" WITHSCORES", "ZRANGE z -inf +inf BYSCORE LIMIT "+big+" "+big,
			"ZINTERCARD 1 z LIMIT "+max, "ZINTERCARD "+max+" z", "ZUNIONSTORE o "+max+" z", "ZINTER "+p+" z",
			"ZUNION "+max+" z", "ZDIFF "+max+" z", "ZUNIONSTORE o "+big+" z", "ZREMRANGEBYRANK z "+min+" "+max,
		)},
		{"scan", with(
			"SCAN 0 COUNT "+n, "SCAN 0 COUNT "+min, "SCAN 0 MATCH str COUNT "+max, "SCAN 0 MATCH str COUNT "+big,
			"HSCAN h 0 COUNT "+max, "!sort SSCAN s 0 MATCH a COUNT "+max, "ZSCAN z 0 COUNT "+p,
		)},
		{"geo", with(
			"GEOSEARCH g FROMLONLAT 15 37 BYRADIUS 200 km COUNT "+max, "GEOSEARCH g FROMLONLAT 15 37 BYRADIUS 200 km COUNT "+p+" ANY",
			"GEOSEARCH g FROMLONLAT 15 37 BYRADIUS 200 km COUNT "+n, "GEOSEARCH g FROMLONLAT 15 37 BYRADIUS 200 km COUNT "+min,
			"GEORADIUS g 15 37 200 km COUNT "+max, "GEORADIUS g 15 37 200 km COUNT "+p+" ANY ASC",
			"GEORADIUSBYMEMBER g Palermo 200 km COUNT "+max, "GEOSEARCHSTORE dst g FROMLONLAT 15 37 BYRADIUS 200 km COUNT "+max,
			"GEOSEARCH g FROMLONLAT 15 37 BYRADIUS 200 km COUNT "+big,
		)},
		{"sort-and-sets", with(
			"SORT l LIMIT "+min+" "+max+" ALPHA", "SORT l LIMIT "+n+" "+n+" ALPHA", "SORT l LIMIT 0 "+n+" ALPHA",
			"SORT l LIMIT "+p+" "+p+" ALPHA", "SORT_RO l LIMIT "+max+" "+max+" ALPHA", "SORT l LIMIT -1 "+big+" ALPHA",
			"SINTERCARD 1 s LIMIT "+max, "SINTERCARD 1 s LIMIT "+n, "SINTERCARD "+max+" s", "SINTERCARD "+big+" s",
		)},
		{"strings-and-bits", with(
			"BITCOUNT str "+min+" "+max, "BITCOUNT str "+n+" "+p+" BIT", "BITPOS str 1 "+min+" "+max, "BITPOS str 1 "+n+" "+p+" BIT",
			"GETRANGE str "+min+" "+max, "GETRANGE str "+n+" "+p, "SUBSTR str "+min+" "+max,
			"SETBIT str "+max+" 1", "SETBIT str "+n+" 1", "GETBIT str "+max,
			"BITFIELD str GET u8 "+max, "BITFIELD str GET u8 #"+p, "BITFIELD str INCRBY u8 "+max+" 1", "BITFIELD_RO str GET u8 "+max,
			"SETRANGE str "+max+" x", "SETRANGE str "+n+" x", "INCRBY str "+max, "HINCRBY h a "+max, "LINSERT l BEFORE a "+max,
		)},
		{"expiry", with(
			"EXPIRE str "+max, "PEXPIRE str "+max, "EXPIREAT str "+max, "GETEX str EX "+max, "GETEX str PX "+max,
			"SET k v EX "+max, "SET k v PX "+p, "SETEX k "+max+" v", "RESTORE k2 "+max+" x",
			"BLPOP l "+max, "BLPOP l "+p, "BRPOPLPUSH l l2 "+max, "BZPOPMIN z "+p,
		)},
		{"databases", with(
			"SELECT "+max, "SELECT "+big, "SELECT 2147483648", "SELECT -2147483649", "SELECT 16", "SELECT abc", "SELECT -1",
			"SWAPDB "+max+" 0", "SWAPDB "+big+" 0", "SWAPDB 0 "+big, "SWAPDB abc 0", "SWAPDB 0 abc", "SWAPDB 0 16", "SWAPDB -1 0",
			"SWAPDB 2147483648 0", "SWAPDB 0 -2147483649",
			"MOVE str "+max, "MOVE str "+big, "MOVE str abc", "COPY str n DB "+big, "COPY str n DB "+max, "COPY str n DB abc",
		)},
		{"server", with(
			"SLOWLOG RESET", "SLOWLOG GET "+max, "SLOWLOG GET "+n, "SLOWLOG GET "+min, "SLOWLOG GET "+big,
			"EVAL \"return 1\" "+max, "EVAL \"return 1\" "+n, "EVAL \"return 1\" "+big, "EVALSHA aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa "+big,
			"OBJECT FREQ str", "CLIENT KILL ID "+max, "CLIENT LIST ID "+max,
			"COMMAND GETKEYS ZUNIONSTORE o "+max+" z", "COMMAND GETKEYS EVAL x "+max,
			"MEMORY USAGE h SAMPLES "+n,
		)},
	})
}
