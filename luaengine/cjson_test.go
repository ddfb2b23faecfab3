package luaengine

import (
	"strings"
	"testing"
)

// libCase is one EVAL and the raw RESP reply redis-server 7.0.15 sent for
// it ("<sha>" stands for the script's SHA1).
type libCase struct{ name, body, want string }

// runLibCases runs each case on a fresh engine: cjson's settings outlive a
// script, as in Redis, so a case must not see the one before it.
func runLibCases(t *testing.T, cases []libCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Options{})
			defer e.Close()
			f := newFakeRedis()
			f.engine = e
			got := run(t, e, f, tc.body, nil, nil)
			want := strings.ReplaceAll(tc.want, "<sha>", SHA1Hex([]byte(tc.body)))
			if got != want {
				t.Errorf("body %s\n got %q\nwant %q", tc.body, got, want)
			}
		})
	}
}

func TestCJSON(t *testing.T) { runLibCases(t, cjsonCases) }

var cjsonCases = []libCase{
	{"encode nil", `return cjson.encode(nil)`, "$4\r\nnull\r\n"},
	{"encode booleans", `return cjson.encode({true, false})`, "$12\r\n[true,false]\r\n"},
	{"encode integers", `return cjson.encode({0, 1, -1, 42, 123456789, 2^31, -2^31, 2^53, 1e14, 1e15, 99999999999999, 100000000000000})`, "$96\r\n[0,1,-1,42,123456789,2147483648,-2147483648,9.007199254741e+15,1e+14,1e+15,99999999999999,1e+14]\r\n"},
	{"encode floats", `return cjson.encode({0.1, 1/3, -1.5, 1e-5, 1e100, 3.14159265358979, 123456.789e3, 1e-300, 2^63, -0.0})`, "$96\r\n[0.1,0.33333333333333,-1.5,1e-05,1e+100,3.1415926535898,123456789,1e-300,9.2233720368548e+18,-0]\r\n"},
	{"encode inf", `return cjson.encode(1/0)`, "-ERR user_script:1: Cannot serialise number: must not be NaN or Inf script: 08ffdaa5e7f117332da21c3b5222c2ede9492c60, on @user_script:1.\r\n"},
	{"encode -inf in table", `return cjson.encode({1, -1/0})`, "-ERR user_script:1: Cannot serialise number: must not be NaN or Inf script: 7a448bdd4019b01ceb1ecdd4b38eb0115f2624ea, on @user_script:1.\r\n"},
	{"encode nan", `return cjson.encode(0/0)`, "-ERR user_script:1: Cannot serialise number: must not be NaN or Inf script: d3f8d4e745d6587b04e9dd216e0d4631f0a306d9, on @user_script:1.\r\n"},
	{"encode string escapes", `return cjson.encode("a\"b\\c/d\n\r\t\b\f\0\1\31\127 é")`, "$49\r\n\"a\\\"b\\\\c\\/d\\n\\r\\t\\b\\f\\u0000\\u0001\\u001f\\u007f é\"\r\n"},
	{"encode string plain", `return cjson.encode("hello world")`, "$13\r\n\"hello world\"\r\n"},
	{"encode empty string", `return cjson.encode("")`, "$2\r\n\"\"\r\n"},
	{"encode empty table", `return cjson.encode({})`, "$2\r\n{}\r\n"},
	{"encode one key object", `return cjson.encode({a=1})`, "$7\r\n{\"a\":1}\r\n"},
	{"encode nested", `return cjson.encode({a={1,2,{b="c"}}})`, "$21\r\n{\"a\":[1,2,{\"b\":\"c\"}]}\r\n"},
	{"encode number key", `return cjson.encode({[1.5]="x"})`, "$11\r\n{\"1.5\":\"x\"}\r\n"},
	{"encode zero key", `return cjson.encode({[0]="x"})`, "$9\r\n{\"0\":\"x\"}\r\n"},
	{"encode negative key", `return cjson.encode({[-1]="x"})`, "$10\r\n{\"-1\":\"x\"}\r\n"},
	{"encode object in lua_next order", `return cjson.encode({allowed=1, remaining=5, reset=60})`, "$38\r\n{\"remaining\":5,\"allowed\":1,\"reset\":60}\r\n"},
	{"encode decoded object in lua_next order", `return cjson.encode(cjson.decode('{"user":"x","count":3,"window":60,"limit":100}'))`, "$46\r\n{\"limit\":100,\"window\":60,\"count\":3,\"user\":\"x\"}\r\n"},
	{"encode mixed keys is object", `local t = cjson.decode(cjson.encode({1, 2, x=3})) return {t["1"], t["2"], t.x}`, "*3\r\n:1\r\n:2\r\n:3\r\n"},
	{"encode bool key", `return cjson.encode({[true]=1})`, "-ERR user_script:1: Cannot serialise boolean: table key must be a number or string script: 376a640005c8509c694166527ca834359bf69aa8, on @user_script:1.\r\n"},
	{"encode table key", `return cjson.encode({[{}]=1})`, "-ERR user_script:1: Cannot serialise table: table key must be a number or string script: d2e2560c1eac16fa2ba971165f1a135f816add6f, on @user_script:1.\r\n"},
	{"encode function", `return cjson.encode({f=function() end})`, "-ERR user_script:1: Cannot serialise function: type not supported script: f553a5b7a0a31cbdb6c2b020bf120caab5b65793, on @user_script:1.\r\n"},
	{"encode function top", `return cjson.encode(print or tostring)`, "-ERR user_script:1: Script attempted to access nonexistent global variable 'print' script: 628c583879f668e86747a887bafae63af2ad784b, on @user_script:1.\r\n"},
	{"encode coroutine", `return cjson.encode(coroutine.create(function() end))`, "-ERR user_script:1: Cannot serialise thread: type not supported script: a6623ce6b732fc5d7a9f3cf8070e4ed88fffcddb, on @user_script:1.\r\n"},
	{"encode null", `return cjson.encode({cjson.null, 1})`, "$8\r\n[null,1]\r\n"},
	{"encode null top", `return cjson.encode(cjson.null)`, "$4\r\nnull\r\n"},
	{"encode sparse ok", `local t = {} t[1] = 1 t[3] = 3 return cjson.encode(t)`, "$10\r\n[1,null,3]\r\n"},
	{"encode sparse safe 10", `local t = {} t[10] = 1 return cjson.encode(t)`, "$48\r\n[null,null,null,null,null,null,null,null,null,1]\r\n"},
	{"encode sparse error", `local t = {} t[11] = 1 return cjson.encode(t)`, "-ERR user_script:1: Cannot serialise table: excessively sparse array script: 9f101c0f82a78e27b00630695a09bfbc9e0a1629, on @user_script:1.\r\n"},
	{"encode sparse ratio edge", `local t = {} t[1] = 1 t[2] = 2 t[3] = 3 t[4] = 4 t[5] = 5 t[6] = 6 t[12] = 12 return cjson.encode(t)`, "$41\r\n[1,2,3,4,5,6,null,null,null,null,null,12]\r\n"},
	{"encode sparse ratio over", `local t = {} t[1] = 1 t[2] = 2 t[3] = 3 t[4] = 4 t[5] = 5 t[13] = 13 return cjson.encode(t)`, "-ERR user_script:1: Cannot serialise table: excessively sparse array script: 71bd3c8fb776b46e9139bea4a95323ad73d11000, on @user_script:1.\r\n"},
	{"encode depth 1000", `local t = {} local c = t for i = 1, 999 do c[1] = {} c = c[1] end return #cjson.encode(t)`, ":2000\r\n"},
	{"encode depth 1001", `local t = {} local c = t for i = 1, 1000 do c[1] = {} c = c[1] end return cjson.encode(t)`, "-ERR user_script:1: Cannot serialise, excessive nesting (1001) script: 3e058141c7812f5acf06d8733fd6b9e690c0dbe9, on @user_script:1.\r\n"},
	{"encode self reference", `local t = {} t[1] = t return cjson.encode(t)`, "-ERR user_script:1: Cannot serialise, excessive nesting (1001) script: 576653f0096d47f87063058b9abe9085cdcd4f41, on @user_script:1.\r\n"},
	{"encode no args", `return cjson.encode()`, "-ERR user_script:1: bad argument #1 to 'encode' (expected 1 argument) script: fc593ea31f478c7ed65c77495cc63edeb9153530, on @user_script:1.\r\n"},
	{"encode two args", `return cjson.encode(1, 2)`, "-ERR user_script:1: bad argument #1 to 'encode' (expected 1 argument) script: e3a38cd8c1bb7de419304607b05108c80af53cbc, on @user_script:1.\r\n"},
	{"encode numeric string", `return cjson.encode("12")`, "$4\r\n\"12\"\r\n"},
	{"encode array with holes nil", `return cjson.encode({1, nil, 3})`, "$10\r\n[1,null,3]\r\n"},
	{"encode float key", `return cjson.encode({[1e20]=1})`, "$11\r\n{\"1e+20\":1}\r\n"},
	{"encode inf key", `return cjson.encode({[1/0]=1})`, "-ERR user_script:1: Cannot serialise number: must not be NaN or Inf script: d755e1d8b557c8f3573fc89852e5b5cdcc2f6583, on @user_script:1.\r\n"},
	{"decode object", `local t = cjson.decode('{"a":1,"b":[1,2,3],"c":{"d":"e"}}') return {t.a, t.b[3], t.c.d, #t.b}`, "*4\r\n:1\r\n:3\r\n$1\r\ne\r\n:3\r\n"},
	{"decode array", `return cjson.decode('[1,"two",true,false]')`, "*4\r\n:1\r\n$3\r\ntwo\r\n:1\r\n$-1\r\n"},
	{"decode numbers", `local t = cjson.decode('[0, 1.5, -1.5e3, 1E2, 12345678901234567890, 1e400, -1e400, 0.1]') local o = {} for i = 1, #t do o[i] = tostring(t[i]) end return o`, "*8\r\n$1\r\n0\r\n$3\r\n1.5\r\n$5\r\n-1500\r\n$3\r\n100\r\n$19\r\n1.2345678901235e+19\r\n$3\r\ninf\r\n$4\r\n-inf\r\n$3\r\n0.1\r\n"},
	{"decode negative zero", `return cjson.encode(cjson.decode('[-0]'))`, "$4\r\n[-0]\r\n"},
	{"decode strings", `return cjson.decode('["a\\"b", "\\\\", "\\/", "\\b\\f\\n\\r\\t", "\\u0041\\u00e9\\u20ac", "\\ud83d\\ude00", "\\u0000x"]')`, "*7\r\n$3\r\na\"b\r\n$1\r\n\\\r\n$1\r\n/\r\n$5\r\n\b\f\n\r\t\r\n$6\r\nAé€\r\n$4\r\n😀\r\n$2\r\n\x00x\r\n"},
	{"decode string raw control", `return cjson.decode('"a\tb"')`, "$3\r\na\tb\r\n"},
	{"decode null", `return {type(cjson.decode('null')), tostring(cjson.decode('null')), tostring(cjson.null), cjson.decode('[null]')[1] == cjson.null, cjson.decode('null') == cjson.null}`, "*5\r\n$8\r\nuserdata\r\n$15\r\nuserdata: (nil)\r\n$15\r\nuserdata: (nil)\r\n:1\r\n:1\r\n"},
	{"decode null in object", `local t = cjson.decode('{"a":null}') return {type(t.a), t.a == cjson.null}`, "*2\r\n$8\r\nuserdata\r\n:1\r\n"},
	{"decode top scalars", `return {cjson.decode('1'), cjson.decode('"s"'), cjson.decode('true'), cjson.decode(' 7 ')}`, "*4\r\n:1\r\n$1\r\ns\r\n:1\r\n:7\r\n"},
	{"decode false top", `return cjson.decode('false')`, "$-1\r\n"},
	{"decode invalid token", `return cjson.decode('x')`, "-ERR user_script:1: Expected value but found invalid token at character 1 script: 5f58dd5cefb3eb0313af3534f36be4b83e79ae80, on @user_script:1.\r\n"},
	{"decode empty", `return cjson.decode('')`, "-ERR user_script:1: Expected value but found T_END at character 1 script: 7ff8cf86abed928f4d61a01dcc9713f0117b180a, on @user_script:1.\r\n"},
	{"decode whitespace only", `return cjson.decode('   ')`, "-ERR user_script:1: Expected value but found T_END at character 4 script: c55950cccca076561efcae12a56bc05b96a20dc4, on @user_script:1.\r\n"},
	{"decode trailing", `return cjson.decode('[1] x')`, "-ERR user_script:1: Expected the end but found invalid token at character 5 script: 90488ed3df43636c96be19291b12cbc738913942, on @user_script:1.\r\n"},
	{"decode trailing comma", `return cjson.decode('[1,]')`, "-ERR user_script:1: Expected value but found T_ARR_END at character 4 script: d31ab1dd313d99d4ad3dac6e48cdff283bea270c, on @user_script:1.\r\n"},
	{"decode missing comma", `return cjson.decode('[1 2]')`, "-ERR user_script:1: Expected comma or array end but found T_NUMBER at character 4 script: cae89247ef27d42d411c61ae44ff3af6ab258d99, on @user_script:1.\r\n"},
	{"decode object key number", `return cjson.decode('{1:2}')`, "-ERR user_script:1: Expected object key string but found T_NUMBER at character 2 script: b7dfc51e0d5bf164c246fe708a2e33743e899be6, on @user_script:1.\r\n"},
	{"decode object missing colon", `return cjson.decode('{"a" 2}')`, "-ERR user_script:1: Expected colon but found T_NUMBER at character 6 script: 53f0a907a457a723a04a12b158e74d644432a6dc, on @user_script:1.\r\n"},
	{"decode object missing value", `return cjson.decode('{"a":}')`, "-ERR user_script:1: Expected value but found T_OBJ_END at character 6 script: 271f75bfc2ffe1a84becf0088927c2079d8cd197, on @user_script:1.\r\n"},
	{"decode object trailing comma", `return cjson.decode('{"a":1,}')`, "-ERR user_script:1: Expected object key string but found T_OBJ_END at character 8 script: 7e3659dd873275ff5047e436b0cc31cc91d160e4, on @user_script:1.\r\n"},
	{"decode object bad sep", `return cjson.decode('{"a":1 "b":2}')`, "-ERR user_script:1: Expected comma or object end but found T_STRING at character 8 script: 7e6d40e89e823b8e3c90db9a275f3a62289f33af, on @user_script:1.\r\n"},
	{"decode unterminated string", `return cjson.decode('"abc')`, "-ERR user_script:1: Expected value but found unexpected end of string at character 5 script: 30d67c6fb8e066eef4796bfcc59cee500c381744, on @user_script:1.\r\n"},
	{"decode bad escape", `return cjson.decode('"a\\qb"')`, "-ERR user_script:1: Expected value but found invalid escape code at character 3 script: 0b7ef200cfebc919089eee8fef383f21467e76c3, on @user_script:1.\r\n"},
	{"decode bad unicode", `return cjson.decode('"\\u12G4"')`, "-ERR user_script:1: Expected value but found invalid unicode escape code at character 2 script: 6d63048ea23054f244b4a9ce48c86ec34a309518, on @user_script:1.\r\n"},
	{"decode lone low surrogate", `return cjson.decode('"\\udc00"')`, "-ERR user_script:1: Expected value but found invalid unicode escape code at character 2 script: a551f20265e3eab757862642d41b385fa7b03fa1, on @user_script:1.\r\n"},
	{"decode high surrogate alone", `return cjson.decode('"\\ud800x"')`, "-ERR user_script:1: Expected value but found invalid unicode escape code at character 2 script: da0b51213451f00f23d4b1f6a165d2325736514b, on @user_script:1.\r\n"},
	{"decode high surrogate bad low", `return cjson.decode('"\\ud800\\u0041"')`, "-ERR user_script:1: Expected value but found invalid unicode escape code at character 2 script: 0c787ccdb93cc047269ee4581030a7fbd08125df, on @user_script:1.\r\n"},
	{"decode short unicode", `return cjson.decode('"\\u12')`, "-ERR user_script:1: Expected value but found invalid unicode escape code at character 2 script: 8c0e28d486d25b48590b5fb0c1a3a6b0bc544cbd, on @user_script:1.\r\n"},
	{"decode invalid numbers", `local t = cjson.decode('[+5, 0x10, 010, inf, -Infinity, nan, NaN, 1.]') local o = {} for i = 1, #t do o[i] = tostring(t[i]) end return o`, "*8\r\n$1\r\n5\r\n$2\r\n16\r\n$2\r\n10\r\n$3\r\ninf\r\n$4\r\n-inf\r\n$3\r\nnan\r\n$3\r\nnan\r\n$1\r\n1\r\n"},
	{"decode lone minus", `return cjson.decode('-')`, "-ERR user_script:1: Expected value but found invalid number at character 1 script: a968c762a4638482bd9ef50dcecdc4504214d87d, on @user_script:1.\r\n"},
	{"decode dot number", `return cjson.decode('.5')`, "-ERR user_script:1: Expected value but found invalid token at character 1 script: 121c0b0f2d2ad62de9456ed953ed7b854d2ec58d, on @user_script:1.\r\n"},
	{"decode number then letters", `return cjson.decode('1abc')`, "-ERR user_script:1: Expected the end but found invalid token at character 2 script: f209954e7548fd1fe75fe4ee23fe7c5b68ebc5d2, on @user_script:1.\r\n"},
	{"decode true prefix", `return cjson.decode('tru')`, "-ERR user_script:1: Expected value but found invalid token at character 1 script: b0ae6f0426d6ff93bdff3364f547baa19aa4171b, on @user_script:1.\r\n"},
	{"decode nul", `return cjson.decode('nul')`, "-ERR user_script:1: Expected value but found invalid token at character 1 script: 5586fdf8c512d9c8a68678c91a0de23617e84e25, on @user_script:1.\r\n"},
	{"decode uppercase TRUE", `return cjson.decode('TRUE')`, "-ERR user_script:1: Expected value but found invalid token at character 1 script: 6fe477aa27fea266005a0773d013d4c474c4e163, on @user_script:1.\r\n"},
	{"decode utf16", `return cjson.decode('\0a')`, "-ERR user_script:1: JSON parser does not support UTF-16 or UTF-32 script: dd78d9328784e2bc97ce56b69c1960be18a3e442, on @user_script:1.\r\n"},
	{"decode embedded nul ends", `return cjson.decode('[1]\0garbage')`, "*1\r\n:1\r\n"},
	{"decode nul in string", `return cjson.decode('"ab\0cd"')`, "-ERR user_script:1: Expected value but found unexpected end of string at character 4 script: 3f1d7c4537d5073d24a7f06aa3651f26df175ce6, on @user_script:1.\r\n"},
	{"decode depth 1000", `local s = string.rep('[', 1000) .. string.rep(']', 1000) local t = cjson.decode(s) return type(t)`, "$5\r\ntable\r\n"},
	{"decode depth 1001", `local s = string.rep('[', 1001) .. string.rep(']', 1001) return cjson.decode(s)`, "-ERR user_script:1: Found too many nested data structures (1001) at character 1001 script: 83d14d2075bffa4920b753a9c8affc2b0eb4acc3, on @user_script:1.\r\n"},
	{"decode depth objects", `local s = string.rep('{"a":', 1001) .. '1' .. string.rep('}', 1001) return cjson.decode(s)`, "-ERR user_script:1: Found too many nested data structures (1001) at character 5001 script: 9920032060faac2ab9ed65dbd62d24588030b3e9, on @user_script:1.\r\n"},
	{"decode no args", `return cjson.decode()`, "-ERR user_script:1: bad argument #1 to 'decode' (expected 1 argument) script: 5378278d59343caf5c3375a655dfea5e69ab8a74, on @user_script:1.\r\n"},
	{"decode two args", `return cjson.decode('1', 2)`, "-ERR user_script:1: bad argument #1 to 'decode' (expected 1 argument) script: 4dee7eb34084cb8ce8cae2b2931531f03a96ba30, on @user_script:1.\r\n"},
	{"decode table arg", `return cjson.decode({})`, "-ERR user_script:1: bad argument #1 to 'decode' (string expected, got table) script: 10c706d54b3ae7d2bcc169d647405abd961145fa, on @user_script:1.\r\n"},
	{"decode number arg", `return cjson.decode(123)`, ":123\r\n"},
	{"decode duplicate keys", `return cjson.decode('{"a":1,"a":2}').a`, ":2\r\n"},
	{"decode large array", `return #cjson.decode('[' .. string.rep('1,', 9999) .. '1]')`, ":10000\r\n"},
	{"decode empty containers", `local a = cjson.decode('[]') local o = cjson.decode('{}') return {type(a), type(o), next(a) == nil, next(o) == nil, cjson.encode(a), cjson.encode(o)}`, "*6\r\n$5\r\ntable\r\n$5\r\ntable\r\n:1\r\n:1\r\n$2\r\n{}\r\n$2\r\n{}\r\n"},
	{"roundtrip", `return cjson.encode(cjson.decode('[1,"a",{"b":[true,false,null]},[],-2.5]'))`, "$39\r\n[1,\"a\",{\"b\":[true,false,null]},{},-2.5]\r\n"},
	{"pcall decode", `return {pcall(cjson.decode, 'x')}`, "*2\r\n$-1\r\n$53\r\nExpected value but found invalid token at character 1\r\n"},
	{"pcall decode no arg", `return {pcall(cjson.decode)}`, "*2\r\n$-1\r\n$44\r\nbad argument #1 to '?' (expected 1 argument)\r\n"},
	{"pcall encode function", `return {pcall(cjson.encode, function() end)}`, "*2\r\n$-1\r\n$45\r\nCannot serialise function: type not supported\r\n"},
	{"pcall wrapped", `return {pcall(function() return cjson.decode('{') end)}`, "*2\r\n$-1\r\n$72\r\nuser_script:1: Expected object key string but found T_END at character 2\r\n"},
	{"local alias error name", `local f = cjson.decode return f()`, "-ERR user_script:1: bad argument #1 to 'f' (expected 1 argument) script: 1e9da00060545c87ba2ea168074fcec745da910d, on @user_script:1.\r\n"},
	{"readonly set", `cjson.foo = 1 return 1`, "-ERR user_script:1: Attempt to modify a readonly table script: 918a1d6103b09ecb0c79cfc4bcba2747770ddc0d, on @user_script:1.\r\n"},
	{"readonly overwrite", `cjson.encode = nil return 1`, "-ERR user_script:1: Attempt to modify a readonly table script: 82d8a7ee5e8a87e4fd1070c19e88572c449093d8, on @user_script:1.\r\n"},
	{"fields", `return {cjson._NAME, cjson._VERSION, type(cjson.null), type(cjson.new)}`, "*4\r\n$5\r\ncjson\r\n$5\r\n2.1.0\r\n$8\r\nuserdata\r\n$8\r\nfunction\r\n"},
	{"null reply", `return cjson.null`, "$-1\r\n"},
	{"null in reply array", `return {1, cjson.null, 2}`, "*3\r\n:1\r\n$-1\r\n:2\r\n"},
	{"null call arg", `return redis.call('set', 'k', cjson.null)`, "-ERR Lua redis lib command arguments must be strings or integers script: e162cbea656d5036bc9efd73616b27dd37485c70, on @user_script:1.\r\n"},
	{"settings defaults", `local j = cjson.new() return {j.encode_max_depth(), j.decode_max_depth(), j.encode_number_precision(), tostring(j.encode_keep_buffer()), tostring(j.encode_invalid_numbers()), tostring(j.decode_invalid_numbers()), {j.encode_sparse_array()}}`, "*7\r\n:1000\r\n:1000\r\n:14\r\n$4\r\ntrue\r\n$5\r\nfalse\r\n$4\r\ntrue\r\n*3\r\n$-1\r\n:2\r\n:10\r\n"},
	{"sparse array settings", `local j = cjson.new() local r = {j.encode_sparse_array(true, 3, 5)} local t = {} t[20] = 1 local s = j.encode(t) return {tostring(r[1]), r[2], r[3], s}`, "*4\r\n$4\r\ntrue\r\n:3\r\n:5\r\n$8\r\n{\"20\":1}\r\n"},
	{"sparse array ratio 0", `local j = cjson.new() j.encode_sparse_array(false, 0) local t = {} t[20] = 1 return j.encode(t)`, "$98\r\n[null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,1]\r\n"},
	{"sparse array bad ratio", `local j = cjson.new() return j.encode_sparse_array(false, -1)`, "-ERR user_script:1: bad argument #1 to 'encode_sparse_array' (expected integer between 0 and 2147483647) script: a898fe048120e2a3875a5041fa3455e69d785db6, on @user_script:1.\r\n"},
	{"sparse array bad convert", `local j = cjson.new() return j.encode_sparse_array(5)`, "-ERR user_script:1: bad argument #1 to 'encode_sparse_array' (invalid option '5') script: c554dd538442e188fe630d0bbc3d32cf941630f0, on @user_script:1.\r\n"},
	{"sparse array string convert", `local j = cjson.new() return {tostring(j.encode_sparse_array('on')), tostring(j.encode_sparse_array('off'))}`, "*2\r\n$4\r\ntrue\r\n$5\r\nfalse\r\n"},
	{"sparse array too many", `local j = cjson.new() return j.encode_sparse_array(true, 1, 1, 1)`, "-ERR user_script:1: bad argument #4 to 'encode_sparse_array' (found too many arguments) script: 320fa10cedc2b1f9c79cb8d2494ce68d7af67c65, on @user_script:1.\r\n"},
	{"max depth set", `local j = cjson.new() j.encode_max_depth(2) return {pcall(j.encode, {{1}})}`, "*2\r\n:1\r\n$5\r\n[[1]]\r\n"},
	{"max depth exceeded", `local j = cjson.new() j.encode_max_depth(2) return j.encode({{{1}}})`, "-ERR user_script:1: Cannot serialise, excessive nesting (3) script: 720f1f118262e700107c874ba1b81a224459ef9b, on @user_script:1.\r\n"},
	{"max depth zero", `local j = cjson.new() return j.encode_max_depth(0)`, "-ERR user_script:1: bad argument #1 to 'encode_max_depth' (expected integer between 1 and 2147483647) script: bcc4068dc37397b00957eaad87a2a41b072087e3, on @user_script:1.\r\n"},
	{"max depth string", `local j = cjson.new() return j.encode_max_depth('x')`, "-ERR user_script:1: bad argument #1 to 'encode_max_depth' (number expected, got string) script: c551e29f02bc61e545afcebf479dff31a2079077, on @user_script:1.\r\n"},
	{"max depth numeric string", `local j = cjson.new() return j.encode_max_depth('7')`, ":7\r\n"},
	{"max depth float", `local j = cjson.new() return j.encode_max_depth(3.9)`, ":3\r\n"},
	{"decode max depth set", `local j = cjson.new() j.decode_max_depth(2) return j.decode('[[[1]]]')`, "-ERR user_script:1: Found too many nested data structures (3) at character 3 script: 92b092601e174e846ea26b548dba2cc9546174ec, on @user_script:1.\r\n"},
	{"precision", `local j = cjson.new() local r = j.encode_number_precision(3) return {r, j.encode({1/3, 12345, 100, 0.5, 1e20, 2^53})}`, "*2\r\n:3\r\n$39\r\n[0.333,1.23e+04,100,0.5,1e+20,9.01e+15]\r\n"},
	{"precision 1", `local j = cjson.new() j.encode_number_precision(1) return j.encode({15, 0.15, 1})`, "$13\r\n[2e+01,0.1,1]\r\n"},
	{"precision out of range", `local j = cjson.new() return j.encode_number_precision(15)`, "-ERR user_script:1: bad argument #1 to 'encode_number_precision' (expected integer between 1 and 14) script: 025917f00e33450e5793944ffb987fe482a9b50f, on @user_script:1.\r\n"},
	{"keep buffer", `local j = cjson.new() return {tostring(j.encode_keep_buffer(false)), j.encode({1}), tostring(j.encode_keep_buffer('on'))}`, "*3\r\n$5\r\nfalse\r\n$3\r\n[1]\r\n$4\r\ntrue\r\n"},
	{"keep buffer bad", `local j = cjson.new() return j.encode_keep_buffer('maybe')`, "-ERR user_script:1: bad argument #1 to 'encode_keep_buffer' (invalid option 'maybe') script: a6713ac4085f215abc0a238d887b5590719da820, on @user_script:1.\r\n"},
	{"keep buffer number", `local j = cjson.new() return j.encode_keep_buffer(1)`, "-ERR user_script:1: bad argument #1 to 'encode_keep_buffer' (invalid option '1') script: f2e2d48a042badc937698d45957257dc89ee59bc, on @user_script:1.\r\n"},
	{"invalid numbers on", `local j = cjson.new() local r = j.encode_invalid_numbers(true) return {tostring(r), j.encode({1/0, -1/0, 0/0})}`, "*2\r\n$4\r\ntrue\r\n$14\r\n[inf,-inf,nan]\r\n"},
	{"invalid numbers null", `local j = cjson.new() local r = j.encode_invalid_numbers('null') return {r, j.encode({1/0, -1/0, 0/0, 1})}`, "*2\r\n$4\r\nnull\r\n$18\r\n[null,null,null,1]\r\n"},
	{"invalid numbers key on", `local j = cjson.new() j.encode_invalid_numbers(true) return j.encode({[1/0]=1})`, "$9\r\n{\"inf\":1}\r\n"},
	{"invalid numbers bad", `local j = cjson.new() return j.encode_invalid_numbers('both')`, "-ERR user_script:1: bad argument #1 to 'encode_invalid_numbers' (invalid option 'both') script: 4c304f2a9d04f6b579265f5bd8306ec0e74d6c32, on @user_script:1.\r\n"},
	{"decode invalid numbers off", `local j = cjson.new() j.decode_invalid_numbers(false) return {pcall(j.decode, '[0x10]'), pcall(j.decode, 'inf'), pcall(j.decode, '+1'), pcall(j.decode, '01'), j.decode('[-0.5]')[1] * 2}`, "*5\r\n$-1\r\n$-1\r\n$-1\r\n$-1\r\n:-1\r\n"},
	{"decode invalid numbers off tokens", `local j = cjson.new() j.decode_invalid_numbers(false) local r = {} for _, s in ipairs({'[0x10]', 'inf', '+1', '01', '-nan', 'NaN'}) do local ok, e = pcall(j.decode, s) r[#r+1] = e end return r`, "*6\r\n$54\r\nExpected value but found invalid number at character 2\r\n$53\r\nExpected value but found invalid token at character 1\r\n$53\r\nExpected value but found invalid token at character 1\r\n$54\r\nExpected value but found invalid number at character 1\r\n$54\r\nExpected value but found invalid number at character 1\r\n$53\r\nExpected value but found invalid token at character 1\r\n"},
	{"new independent", `local j = cjson.new() j.encode_max_depth(1) return {cjson.encode_max_depth(), j.encode_max_depth(), pcall(j.encode, {{}}), j.null == cjson.null}`, "*4\r\n:1000\r\n:1\r\n$-1\r\n:1\r\n"},
	{"new table writable", `local j = cjson.new() j.x = 1 return j.x`, ":1\r\n"},
	{"encode key 2^31", `return cjson.encode({[2^31]=1})`, "$16\r\n{\"2147483648\":1}\r\n"},
	{"encode key 2^32+1", `return cjson.encode({[2^32+1]=1})`, "$16\r\n{\"4294967297\":1}\r\n"},
	{"encode key 2^40", `return cjson.encode({[2^40]=1})`, "$19\r\n{\"1099511627776\":1}\r\n"},
	{"encode huge depth objects", `cjson.encode_max_depth(100000) local t = {} local c = t for i = 1, 5000 do c.a = {} c = c.a end local ok, e = pcall(cjson.encode, t) cjson.encode_max_depth(1000) return e`, "$42\r\nCannot serialise, excessive nesting (4000)\r\n"},
	{"decode huge depth objects", `cjson.decode_max_depth(100000) local ok, e = pcall(cjson.decode, string.rep('{"a":', 5000)) cjson.decode_max_depth(1000) return e`, "$63\r\nFound too many nested data structures (4000) at character 19996\r\n"},
	{"encode array depth 7997", `cjson.encode_max_depth(100000) local t = {} local c = t for i = 1, 7996 do c[1] = {} c = c[1] end local ok, e = pcall(cjson.encode, t) cjson.encode_max_depth(1000) return #e`, ":15994\r\n"},
	{"encode array depth 7998", `cjson.encode_max_depth(100000) local t = {} local c = t for i = 1, 7997 do c[1] = {} c = c[1] end local ok, e = pcall(cjson.encode, t) cjson.encode_max_depth(1000) return e`, "$42\r\nCannot serialise, excessive nesting (7998)\r\n"},
	{"decode array depth 7998", `cjson.decode_max_depth(100000) local ok, e = pcall(cjson.decode, string.rep('[', 7998) .. string.rep(']', 7998)) cjson.decode_max_depth(1000) return type(e)`, "$5\r\ntable\r\n"},
	{"decode array depth 7999", `cjson.decode_max_depth(100000) local ok, e = pcall(cjson.decode, string.rep('[', 7999)) cjson.decode_max_depth(1000) return e`, "$62\r\nFound too many nested data structures (7999) at character 7999\r\n"},
}

// TestCJSONSettingsPersist: in Redis a setting changed by one script is
// still in force in the next (real server: EVAL "return
// cjson.encode_max_depth(3)" then EVAL "return cjson.encode_max_depth()"
// replies :3).
func TestCJSONSettingsPersist(t *testing.T) {
	e := New(Options{})
	defer e.Close()
	f := newFakeRedis()
	if got := run(t, e, f, `return cjson.encode_max_depth(3)`, nil, nil); got != ":3\r\n" {
		t.Fatalf("set: %q", got)
	}
	if got := run(t, e, f, `return cjson.encode_max_depth()`, nil, nil); got != ":3\r\n" {
		t.Fatalf("next script: %q", got)
	}
}

// SCRIPT FLUSH gives Redis a new Lua state, so the global cjson table's
// settings go back to lua-cjson's defaults; a table from cjson.new() that
// a script keeps is its own business (and no script can keep one).
func TestCJSONResetRestoresDefaults(t *testing.T) {
	e := New(Options{})
	defer e.Close()
	f := newFakeRedis()
	f.engine = e
	set := `return {cjson.encode_max_depth(2), cjson.decode_max_depth(3), cjson.encode_number_precision(3), cjson.encode_keep_buffer(false), cjson.encode_invalid_numbers('null'), cjson.decode_invalid_numbers(false), cjson.encode_sparse_array(true, 5, 5)}`
	read := `return {cjson.encode_max_depth(), cjson.decode_max_depth(), cjson.encode_number_precision(), cjson.encode_keep_buffer(), cjson.encode_invalid_numbers(), cjson.decode_invalid_numbers(), cjson.encode_sparse_array()}`
	defaults := "*9\r\n:1000\r\n:1000\r\n:14\r\n:1\r\n$-1\r\n:1\r\n$-1\r\n:2\r\n:10\r\n"
	changed := "*9\r\n:2\r\n:3\r\n:3\r\n$-1\r\n$4\r\nnull\r\n$-1\r\n:1\r\n:5\r\n:5\r\n"
	e.resetCJSON() // before the first script there is no Lua state yet
	if got := run(t, e, f, read, nil, nil); got != defaults {
		t.Fatalf("fresh engine: got %q, want %q", got, defaults)
	}
	run(t, e, f, set, nil, nil)
	if got := run(t, e, f, read, nil, nil); got != changed {
		t.Fatalf("settings did not outlive the script: got %q, want %q", got, changed)
	}
	e.resetCJSON()
	if got := run(t, e, f, read, nil, nil); got != defaults {
		t.Fatalf("after reset: got %q, want %q", got, defaults)
	}
}
