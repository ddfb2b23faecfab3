package luaengine

import (
	"strings"
	"testing"
)

func run(t testing.TB, e *Engine, f *fakeRedis, body string, keys, args []string) string {
	t.Helper()
	s, err := e.Get([]byte(body))
	w := &respWriter{}
	if err != nil {
		w.Error(err.Error())
		return string(w.b)
	}
	var k, a [][]byte
	for _, x := range keys {
		k = append(k, []byte(x))
	}
	for _, x := range args {
		a = append(a, []byte(x))
	}
	e.Run(s, k, a, f, w)
	return string(w.b)
}

// Every expected reply below is the raw RESP that redis-server 7.0.15 sent
// for the same EVAL.
var evalCases = []struct {
	name, body string
	keys, args []string
	want       string
}{
	{"tostring formats", `return tostring(2^53)..' '..tostring(0.1+0.2)..' '..tostring(3)..' '..tostring(1e15)..' '..tostring(1e14)..' '..tostring(123456789012345)`, nil, nil,
		"$56\r\n9.007199254741e+15 0.3 3 1e+15 1e+14 1.2345678901234e+14\r\n"},
	{"tostring inf", `return tostring(1/0)`, nil, nil, "$3\r\ninf\r\n"},
	{"tostring -0", `local z = 0 return tostring(-z)..' '..(-z)`, nil, nil, "$5\r\n-0 -0\r\n"},
	{"tostring -inf", `return tostring(-1/0)`, nil, nil, "$4\r\n-inf\r\n"},
	{"tostring nan", `return tostring(0/0)`, nil, nil, "$4\r\n-nan\r\n"},
	{"tostring misc", `return tostring(1e100)..' '..tostring(1e-5)..' '..tostring(0.1)..' '..tostring(1/3)..' '..tostring(-1.5)..' '..tostring(2^63)..' '..tostring(123456.789e3)`, nil, nil,
		"$68\r\n1e+100 1e-05 0.1 0.33333333333333 -1.5 9.2233720368548e+18 123456789\r\n"},
	{"concat formats", `return 'x'..0.1 ..' '..(2^53)..' '..(1/3)`, nil, nil, "$40\r\nx0.1 9.007199254741e+15 0.33333333333333\r\n"},
	{"call arg %.17g", `redis.call('set','k',0.1) return redis.call('get','k')`, nil, nil, "$19\r\n0.10000000000000001\r\n"},
	{"call arg 1/3", `redis.call('set','k',1/3) return redis.call('get','k')`, nil, nil, "$19\r\n0.33333333333333331\r\n"},
	{"call arg 2^53", `redis.call('set','k',2^53) return redis.call('get','k')`, nil, nil, "$16\r\n9007199254740992\r\n"},
	{"call arg 1e20", `redis.call('set','k',1e20) return redis.call('get','k')`, nil, nil, "$5\r\n1e+20\r\n"},
	{"call arg -0", `redis.call('set','k',-0.0) return redis.call('get','k')`, nil, nil, "$2\r\n-0\r\n"},
	{"call arg inf", `redis.call('set','k',1/0) return redis.call('get','k')`, nil, nil, "$3\r\ninf\r\n"},
	{"call arg table", `return redis.call('set','k',{})`, nil, nil,
		"-ERR Lua redis lib command arguments must be strings or integers script: 13debc89c40ddde9cfb986db6803b0750cf6fa19, on @user_script:1.\r\n"},
	{"call arg nil", `return redis.call('set','k',nil)`, nil, nil,
		"-ERR Lua redis lib command arguments must be strings or integers script: 20c9464d21db8ca17f3b5475c699a6ccc9642a3f, on @user_script:1.\r\n"},
	{"call no args", `return redis.call()`, nil, nil,
		"-ERR Please specify at least one argument for this redis lib call script: 0a907e1429221a4d85516cab7fd219a82a9439d8, on @user_script:1.\r\n"},
	{"pcall no args", `return redis.pcall()`, nil, nil, "-ERR Please specify at least one argument for this redis lib call\r\n"},
	{"unknown command", `return redis.call('nosuch')`, nil, nil,
		"-ERR Unknown Redis command called from script script: 206396248e12c6e742fd7296250433c8d7343b74, on @user_script:1.\r\n"},
	{"wrong arity", `return redis.call('get')`, nil, nil,
		"-ERR Wrong number of args calling Redis command from script script: f187dee77f607f7cff00bbabc9df38507582c78d, on @user_script:1.\r\n"},
	{"wrong arity line 2", "\nreturn redis.call('set', 'k')", nil, nil,
		"-ERR Wrong number of args calling Redis command from script script: ee83afb3c2236b2a9ed0d132961e2e1420c71bfd, on @user_script:2.\r\n"},
	{"pcall unknown", `return redis.pcall('nosuch')`, nil, nil, "-ERR Unknown Redis command called from script\r\n"},
	{"pcall bad arg", `return redis.pcall('set','k',{})`, nil, nil, "-ERR Lua redis lib command arguments must be strings or integers\r\n"},
	{"number truncates", `return 3.99`, nil, nil, ":3\r\n"},
	{"negative truncates", `return -3.99`, nil, nil, ":-3\r\n"},
	{"inf to integer", `return 1/0`, nil, nil, ":-9223372036854775808\r\n"},
	{"nan to integer", `return 0/0`, nil, nil, ":-9223372036854775808\r\n"},
	{"array stops at nil", `return {1,2,{3,'x'},nil,5}`, nil, nil, "*3\r\n:1\r\n:2\r\n*2\r\n:3\r\n$1\r\nx\r\n"},
	{"true", `return true`, nil, nil, ":1\r\n"},
	{"false", `return false`, nil, nil, "$-1\r\n"},
	{"nil", `return nil`, nil, nil, "$-1\r\n"},
	{"ok table", `return {ok='fine'}`, nil, nil, "+fine\r\n"},
	{"err table", `return {err='bad thing'}`, nil, nil, "-bad thing\r\n"},
	{"err dash", `return {err='-x'}`, nil, nil, "--x\r\n"},
	{"err empty", `return {err=''}`, nil, nil, "-\r\n"},
	{"err crlf", "return {err='a\\r\\nb'}", nil, nil, "-a  b\r\n"},
	{"ok crlf", "return {ok='a\\r\\nb'}", nil, nil, "+a  b\r\n"},
	{"ok trailing crlf", "return {ok='a\\r\\n'}", nil, nil, "+a  \r\n"},
	{"error_reply", `return redis.error_reply('My err')`, nil, nil, "-My err\r\n"},
	{"error_reply dash", `return redis.error_reply('-My err')`, nil, nil, "-My err\r\n"},
	{"error_reply field", `return redis.error_reply('x').err`, nil, nil, "$5\r\nERR x\r\n"},
	{"error_reply empty", `return redis.error_reply('')`, nil, nil, "-ERR \r\n"},
	{"error_reply none", `return redis.error_reply()`, nil, nil, "-ERR wrong number or type of arguments\r\n"},
	{"error_reply number", `return redis.error_reply(5)`, nil, nil, "-ERR wrong number or type of arguments\r\n"},
	{"status_reply", `return redis.status_reply('FINE')`, nil, nil, "+FINE\r\n"},
	{"status_reply field", `return redis.status_reply('x').ok`, nil, nil, "$1\r\nx\r\n"},
	{"status_reply none", `return redis.status_reply()`, nil, nil, "-ERR wrong number or type of arguments\r\n"},
	{"nested conversions", `return {1,{err='x'},{ok='y'},true,false,2.5}`, nil, nil, "*6\r\n:1\r\n-x\r\n+y\r\n:1\r\n$-1\r\n:2\r\n"},
	{"nonexistent global", `return x`, nil, nil,
		"-ERR user_script:1: Script attempted to access nonexistent global variable 'x' script: 03c387736bb5cc009ff35151572cee04677aa374, on @user_script:1.\r\n"},
	{"write global", `x=1`, nil, nil,
		"-ERR user_script:1: Attempt to modify a readonly table script: 7caf6056913504f0508c65faf2dc3f94ff65bcfd, on @user_script:1.\r\n"},
	{"rawset global", `rawset(_G,'x',1) return 1`, nil, nil,
		"-ERR Attempt to modify a readonly table script: 370407d93b0e11a2c9fdd10662499a6b5ac61d6f, on @user_script:1.\r\n"},
	{"setmetatable global", `setmetatable(_G, nil) return 1`, nil, nil,
		"-ERR Attempt to modify a readonly table script: c122f21771d632cc334af0c2a37dd028f1a230b7, on @user_script:1.\r\n"},
	{"write library", `string.x = 1 return 1`, nil, nil,
		"-ERR user_script:1: Attempt to modify a readonly table script: 6770cad2130b462700dfd84be362e79b2d26a288, on @user_script:1.\r\n"},
	{"write redis", `redis.call = nil return 1`, nil, nil,
		"-ERR user_script:1: Attempt to modify a readonly table script: 3f77a250492aaaad06f570f7857ed6ad017e1c74, on @user_script:1.\r\n"},
	{"string metatable", `getmetatable('').__index = nil return 1`, nil, nil,
		"-ERR user_script:1: Attempt to modify a readonly table script: 25ae685d43b673ffb5e7b16d3f30d827aa2e3cee, on @user_script:1.\r\n"},
	{"local table writable", `local t = {} t.x = 1 return t.x`, nil, nil, ":1\r\n"},
	{"KEYS writable", `KEYS.x = 1 return 1`, nil, nil, ":1\r\n"},
	{"no os", `return os`, nil, nil,
		"-ERR user_script:1: Script attempted to access nonexistent global variable 'os' script: <sha>, on @user_script:1.\r\n"},
	{"no print", `return tostring(print)`, nil, nil,
		"-ERR user_script:1: Script attempted to access nonexistent global variable 'print' script: 50e61e85eba593e1799109dab972c83f9ff690fc, on @user_script:1.\r\n"},
	{"wrongtype", `redis.call('set','str','a') return redis.call('lpush','str','a')`, nil, nil,
		"-WRONGTYPE Operation against a key holding the wrong kind of value script: 07fa2588d298718c46d0eed63d0e8826a12e706e, on @user_script:1.\r\n"},
	{"pcall wrongtype", `redis.call('set','str','a') return redis.pcall('lpush','str','a')`, nil, nil,
		"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
	{"redis constants", `return {redis.sha1hex('abc'), redis.REDIS_VERSION, redis.REDIS_VERSION_NUM}`, nil, nil,
		"*3\r\n$40\r\na9993e364706816aba3e25717850c26c9cd0d89d\r\n$6\r\n7.0.15\r\n:458767\r\n"},
	{"compile eof", `return 'a' .. `, nil, nil, "-ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'\r\n"},
	{"compile brace", `return {`, nil, nil, "-ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'\r\n"},
	{"compile eq", `x = = 1`, nil, nil, "-ERR Error compiling script (new function): user_script:1: unexpected symbol near '='\r\n"},
	{"compile string", `local a = 'abc`, nil, nil, "-ERR Error compiling script (new function): user_script:1: unfinished string near '<eof>'\r\n"},
	{"tonumber", `return tonumber('0x10')..' '..tonumber(' 5 ')..' '..tonumber('1e3')..' '..tostring(tonumber('010'))..' '..tostring(tonumber(''))..' '..tostring(tonumber('inf'))..' '..tostring(tonumber('nan'))..' '..tostring(tonumber('5x'))..' '..tostring(tonumber('1_0'))..' '..tostring(tonumber('0b1'))..' '..tostring(tonumber('ff',16))..' '..tostring(tonumber('z',36))..' '..tostring(tonumber('1e'))..' '..tostring(tonumber('.5'))..' '..tostring(tonumber('5.'))`, nil, nil,
		"$53\r\n16 5 1000 10 nil inf nan nil nil nil 255 35 nil 0.5 5\r\n"},
	{"pcall of call is string", `local ok, e = pcall(redis.call, 'nosuch') return e`, nil, nil, "$44\r\nERR Unknown Redis command called from script\r\n"},
	{"pcall error table", `local ok, e = pcall(error, {err='x'}) return e`, nil, nil, "$1\r\nx\r\n"},
	{"pcall runtime", `local ok, e = pcall(function() return x end) return {tostring(ok), type(e), e}`, nil, nil,
		"*3\r\n$5\r\nfalse\r\n$6\r\nstring\r\n$73\r\nuser_script:1: Script attempted to access nonexistent global variable 'x'\r\n"},
	{"rethrow", `redis.call("set","str","a") local ok, e = pcall(redis.call, "lpush", "str", "a") error(e)`, nil, nil,
		"-ERR user_script:1: WRONGTYPE Operation against a key holding the wrong kind of value script: 8edf83823663e3814032e625b3e105194832b42f, on @user_script:1.\r\n"},
	{"error newline", "error(\"a\\nb\")", nil, nil, "-ERR user_script:1: a b script: c25efb1b406ca92aafb584691c5e64cb33f0c894, on @user_script:1.\r\n"},
	{"error string", `error('boom')`, nil, nil, "-ERR user_script:1: boom script: 82903a0434f1503e152f89c03c9acd881a0e8150, on @user_script:1.\r\n"},
	{"error table", `error({err='boom'})`, nil, nil, "-boom script: b4008f1a5b8fc868d0c8eace17f627e4976c6595, on @user_script:1.\r\n"},
	{"error table ERR", `error({err='ERR boom'})`, nil, nil, "-ERR boom script: a376b0b2fd99dafe56c9a5ec47bb699958df9018, on @user_script:1.\r\n"},
	{"error level 0", `error('boom', 0)`, nil, nil, "-ERR boom script: 90724e16396e5864c1184910ba6d7440461cee4f, on @user_script:1.\r\n"},
	{"error nil", `error()`, nil, nil, "-ERR nil script: aca90d914519fdb9825352bdc0befb59f7c8510f, on @user_script:1.\r\n"},
	{"error number", `error(5)`, nil, nil, "-ERR user_script:1: 5 script: 007feaf5de074afe3398416376e34525ad911752, on @user_script:1.\r\n"},
	{"arith nil", `return 1 + nil`, nil, nil, "-ERR user_script:1: attempt to perform arithmetic on a nil value script: e8f647a6e338d050a115f7d097171925636246d4, on @user_script:1.\r\n"},
	{"concat nil", `return 'a' .. nil`, nil, nil, "-ERR user_script:1: attempt to concatenate a nil value script: a954e0524e4e64a9f26274ffcefea47159ca7c15, on @user_script:1.\r\n"},
	{"nested function line", "local function f()\n return redis.call(\"lpush\",\"str\",\"a\") end\n\nredis.call(\"set\",\"str\",\"a\") return f()", nil, nil,
		"-WRONGTYPE Operation against a key holding the wrong kind of value script: e29bc0fc6721ee0a2db973e318224a02ee1ec142, on @user_script:2.\r\n"},
	{"shebang no-writes", "#!lua flags=no-writes\nreturn redis.call('set','k','v')", nil, nil,
		"-ERR Write commands are not allowed from read-only scripts. script: 34c8c9d31128963989284e33e9f94720fd85832d, on @user_script:2.\r\n"},
	{"shebang bogus", "#!lua flags=bogus\nreturn 1", nil, nil, "-ERR Unexpected flag in script shebang: bogus\r\n"},
	{"shebang engine", "#!lua2\nreturn 1", nil, nil, "-ERR Unexpected engine in script shebang: #!lua2\r\n"},
	{"shebang option", "#!lua name=x\nreturn 1", nil, nil, "-ERR Unknown lua shebang option: name=x\r\n"},
	{"shebang all flags", "#!lua flags=no-writes,allow-oom,allow-stale,no-cluster,allow-cross-slot-keys\nreturn 1", nil, nil, ":1\r\n"},
	{"shebang bare", "#!lua\nreturn 1", nil, nil, ":1\r\n"},
	{"shebang empty flags", "#!lua flags=\nreturn 1", nil, nil, ":1\r\n"},
	{"shebang empty flag", "#!lua flags=no-writes,,allow-oom\nreturn 1", nil, nil, "-ERR Unexpected flag in script shebang: \r\n"},
	{"shebang spaced flags", "#!lua flags=no-writes, allow-oom\nreturn 1", nil, nil, "-ERR Unexpected flag in script shebang: \r\n"},
	{"shebang no space", "#! lua\nreturn 1", nil, nil, "-ERR Unexpected engine in script shebang: #!\r\n"},
	{"shebang no newline", "#!lua", nil, nil, "-ERR Invalid script shebang\r\n"},
	{"status reply table", `return type(redis.call('set', 'k', 'v'))`, nil, nil, "$5\r\ntable\r\n"},
	{"status reply ok", `return redis.call('set', 'k', 'v')['ok']`, nil, nil, "$2\r\nOK\r\n"},
	{"null is false", `return type(redis.call('GET', 'missing'))`, nil, nil, "$7\r\nboolean\r\n"},
	{"ping", `return redis.call('PiNg')`, nil, nil, "+PONG\r\n"},
	{"noscript command", `return redis.call('multi')`, nil, nil,
		"-ERR This Redis command is not allowed from script script: <sha>, on @user_script:1.\r\n"},
	{"string.format", `return {string.format('%d', 3.7), string.format('%d', -3.7), string.format('%5.2f', 3.14159), string.format('%s', 0.1), string.format('%s', 1/3), string.format('%x', 255), string.format('%X', 255), string.format('%o', 8), string.format('%e', 12345.678), string.format('%g', 0.1), string.format('%g', 1e20), string.format('%q', 'a\nb"c\0d'), string.format('%c', 65), string.format('%i', 42), string.format('%u', 42), string.format('%%'), string.format('%5s|%-5s|', 'ab', 'cd'), string.format('%.3s', 'abcdef'), string.format('%d', '12'), string.format('%s %s', 1, true and 'x')}`, nil, nil,
		"*20\r\n$1\r\n3\r\n$2\r\n-3\r\n$5\r\n 3.14\r\n$3\r\n0.1\r\n$16\r\n0.33333333333333\r\n$2\r\nff\r\n$2\r\nFF\r\n$2\r\n10\r\n$12\r\n1.234568e+04\r\n$3\r\n0.1\r\n$5\r\n1e+20\r\n$14\r\n\"a\\\nb\\\"c\\000d\"\r\n$1\r\nA\r\n$2\r\n42\r\n$2\r\n42\r\n$1\r\n%\r\n$12\r\n   ab|cd   |\r\n$3\r\nabc\r\n$2\r\n12\r\n$3\r\n1 x\r\n"},
	{"format 2^53", `return string.format('%d', 2^53)`, nil, nil, "$16\r\n9007199254740992\r\n"},
	{"format 2^63", `return string.format('%d', 2^63)`, nil, nil, "$20\r\n-9223372036854775808\r\n"},
	{"format table", `return string.format('%s', {})`, nil, nil,
		"-ERR user_script:1: bad argument #2 to 'format' (string expected, got table) script: 3c9c328b683d6b87a64824dbbb55beda22972a19, on @user_script:1.\r\n"},
	{"format missing", `return string.format('%s')`, nil, nil,
		"-ERR user_script:1: bad argument #2 to 'format' (no value) script: cf510df316aa2a8bf28399bd97b441488fb61f9e, on @user_script:1.\r\n"},
	{"format bad option", `return string.format('%y', 1)`, nil, nil,
		"-ERR user_script:1: invalid option '%y' to 'format' script: 5f049edbcb538c8748f6d1d19449a7474c6106bf, on @user_script:1.\r\n"},
	{"string functions", `return {string.rep('ab', 3), string.rep('ab', 3, ','), string.len(0.1), string.upper(1/3), ('x'):rep(2), string.rep('x', '2'), string.sub(12345, 2, 3), table.concat({1, 0.1, 1/3, 'a'}, ','), table.concat({}, ','), 1 == '1', tostring(1 == 1.0)}`, nil, nil,
		"*11\r\n$6\r\nababab\r\n$6\r\nababab\r\n:3\r\n$16\r\n0.33333333333333\r\n$2\r\nxx\r\n$2\r\nxx\r\n$2\r\n23\r\n$24\r\n1,0.1,0.33333333333333,a\r\n$0\r\n\r\n$-1\r\n$4\r\ntrue\r\n"},
	{"string coercion", `return {'10' + 1, '0x10' + 0, ' 5 ' * 2, '1e2' + 0}`, nil, nil, "*4\r\n:11\r\n:16\r\n:10\r\n:100\r\n"},
	{"math", `return tostring(math.huge)..' '..tostring(-math.huge)..' '..tostring(math.pi)..' '..math.floor(3.7)..' '..math.max(1,5,3)..' '..math.fmod(7,3)..' '..tostring(math.sqrt(2))`, nil, nil,
		"$46\r\ninf -inf 3.1415926535898 3 5 1 1.4142135623731\r\n"},
	{"math.huge", `return math.huge`, nil, nil, ":-9223372036854775808\r\n"},
	{"randomseed", `math.randomseed(42) return {tostring(math.random()), math.random(100)}`, nil, nil, "*2\r\n$16\r\n0.74452500033403\r\n:35\r\n"},
	{"randomseed negative", `math.randomseed(-5) return {tostring(math.random()), math.random(3,5), math.random(-10,10)}`, nil, nil, "*3\r\n$15\r\n0.8168164928522\r\n:3\r\n:-2\r\n"},
	{"KEYS ARGV", `return {#KEYS, #ARGV, KEYS[1], ARGV[1], ARGV[2]}`, []string{"k1", "k2"}, []string{"a1", "a2"}, "*5\r\n:2\r\n:2\r\n$2\r\nk1\r\n$2\r\na1\r\n$2\r\na2\r\n"},
	{"KEYS ARGV empty", `return {#KEYS, #ARGV}`, nil, nil, "*2\r\n:0\r\n:0\r\n"},
	{"unpack", `return unpack({1,2,3})`, nil, nil, ":1\r\n"},
	{"select", `return select('#', 1, 2, 3)`, nil, nil, ":3\r\n"},
	{"_VERSION", `return _VERSION`, nil, nil, "$7\r\nLua 5.1\r\n"},
	{"setresp 3 null", `redis.setresp(3) return {redis.call('get','nokey')}`, nil, nil, "*0\r\n"},
	{"setresp 3 double", `redis.setresp(3) return type(redis.call('zscore','zz','a'))`, nil, nil, "$5\r\ntable\r\n"},
	{"setresp 3 double reply", `redis.setresp(3) return redis.call('zscore','zz','a')`, nil, nil, "$3\r\n1.5\r\n"},
	{"resp2 double", `return redis.call('zscore','zz','a')`, nil, nil, "$3\r\n1.5\r\n"},
	{"double table", `return {double=1.5}`, nil, nil, "$3\r\n1.5\r\n"},
	{"setresp 4", `return redis.setresp(4)`, nil, nil,
		"-ERR RESP version must be 2 or 3. script: 921c0a48021d97dfd5884aeea41875972c7804d9, on @user_script:1.\r\n"},
	{"log", `return redis.log(redis.LOG_WARNING, 'hello', 5)`, nil, nil, "$-1\r\n"},
	{"log bad level", `return redis.log(99, 'hello')`, nil, nil,
		"-ERR Invalid debug level. script: 3317bc21ad2efe0f8ec268e6a5ba083cf1934b2a, on @user_script:1.\r\n"},
	{"log one arg", `return redis.log(redis.LOG_WARNING)`, nil, nil,
		"-ERR redis.log() requires two arguments or more. script: 224c2b6c4d4a245fb6c4394854d25a2ca448909c, on @user_script:1.\r\n"},
	{"set_repl", `return redis.set_repl(redis.REPL_ALL)`, nil, nil, "$-1\r\n"},
	{"set_repl bad", `return redis.set_repl(99)`, nil, nil,
		"-ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE. script: fae934173b6296d6836d5d5f52e192640f8897d9, on @user_script:1.\r\n"},
	{"sha1hex none", `return redis.sha1hex()`, nil, nil,
		"-ERR wrong number of arguments script: 3c7ce947ae74a835cc575b6ee87fb27503cb7ba4, on @user_script:1.\r\n"},
	{"sha1hex number", `return redis.sha1hex(5)`, nil, nil, "$40\r\nac3478d69a3c81fa62e60f5c3696165a4e5e6ac4\r\n"},
	{"bit", `return {bit.tobit(0xffffffff), bit.tobit(2^32+5), bit.tobit(1.5), bit.tobit(2.5), bit.tobit(-1.5), bit.bnot(0), bit.band(0xff, 0x0f, 0x3), bit.bor(1, 2, 4), bit.bxor(5, 3), bit.lshift(1, 31), bit.lshift(1, 33), bit.rshift(-1, 28), bit.arshift(-256, 4), bit.rol(0x12345678, 8), bit.ror(0x12345678, 8), bit.bswap(0x12345678), bit.tohex(255), bit.tohex(-1, -4), bit.tohex(0x12345678, 3), bit.tohex(1, 10), bit.tobit("10")}`, nil, nil,
		"*21\r\n:-1\r\n:5\r\n:2\r\n:2\r\n:-2\r\n:-1\r\n:3\r\n:7\r\n:6\r\n:-2147483648\r\n:2\r\n:15\r\n:-16\r\n:878082066\r\n:2014458966\r\n:2018915346\r\n$8\r\n000000ff\r\n$4\r\nFFFF\r\n$3\r\n678\r\n$8\r\n00000001\r\n:10\r\n"},
	{"no-op helpers", `return {redis.replicate_commands(), redis.breakpoint(), redis.debug('x')}`, nil, nil, "*2\r\n:1\r\n$-1\r\n"},
}

func TestEval(t *testing.T) {
	e := New(Options{})
	defer e.Close()
	for _, tc := range evalCases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeRedis()
			f.engine = e
			got := run(t, e, f, tc.body, tc.keys, tc.args)
			tc.want = strings.ReplaceAll(tc.want, "<sha>", SHA1Hex([]byte(tc.body)))
			if tc.want == "" {
				t.Logf("%q", got)
				return
			}
			if got != tc.want {
				t.Errorf("body %q\n got %q\nwant %q", tc.body, got, tc.want)
			}
		})
	}
}

func TestGlobalsList(t *testing.T) {
	e := New(Options{})
	got := run(t, e, newFakeRedis(), `local out = {} for _, n in ipairs({'assert','collectgarbage','dofile','error','gcinfo','getfenv','getmetatable','ipairs','load','loadfile','loadstring','module','newproxy','next','pairs','pcall','print','rawequal','rawget','rawset','require','select','setfenv','setmetatable','tonumber','tostring','type','unpack','xpcall','_VERSION','coroutine','string','table','math','os','io','debug','package','cjson','bit','struct','cmsgpack','redis','KEYS','ARGV','_G'}) do if rawget(_G, n) ~= nil then out[#out+1] = n end end return table.concat(out, ' ')`, nil, nil)
	want := "assert collectgarbage error gcinfo getmetatable ipairs load loadstring next pairs pcall rawequal rawget rawset select setmetatable tonumber tostring type unpack xpcall _VERSION coroutine string table math cjson bit struct cmsgpack redis KEYS ARGV _G"
	if !strings.Contains(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
