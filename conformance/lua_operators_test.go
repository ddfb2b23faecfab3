package conformance

import "testing"

// The operators Lua 5.1 computes differently from gopher-lua's upstream
// VM, which the fork (third_party/gopher-lua) patches: ".." (luaV_concat,
// numbers as "%.14g", the operand luaG_concaterror blames), "%"
// (a - floor(a/b)*b) and "^" (the C library's pow), their constant folding,
// and their errors, named and unnamed (inside a coroutine no name is
// looked up).
func TestLuaOperators(t *testing.T) {
	runCases(t, []tcase{
		{"concatenation", []string{
			`EVAL "return 'x'..0.1 ..' '..(2^53)..' '..(1/3)" 0`,
			`EVAL "return 1e15 .. ' ' .. 1e14 .. ' ' .. 123456789012345678" 0`,
			`EVAL "return (1/0) .. (-1/0) .. (0/0) .. -0 .. (0 * -1)" 0`,
			`EVAL "local a = 3 return a .. a .. 0.5 .. a" 0`,
			`EVAL "return 'a' .. string.gsub('x', 'x', 'y')" 0`,
			`EVAL "local t = setmetatable({}, {__concat = function(a, b) return type(a) .. type(b) end}) return {t .. 5, 5 .. t, t .. 5 .. 6, 5 .. 6 .. t}" 0`,
			`EVAL "local t = setmetatable({}, {__concat = function(a, b) return 'T' end}) return 'a' .. t .. 'b' .. 1" 0`,
		}},
		{"concatenation errors", []string{
			`EVAL "return 'a' .. nil" 0`,
			`EVAL "local x return 'a' .. x" 0`,
			`EVAL "local x return x .. 'a'" 0`,
			`EVAL "return 'a' .. {} .. 'b'" 0`,
			`EVAL "return 'a' .. 'b' .. nil" 0`,
			`EVAL "local t = {} return 'a' .. t.x .. 'b'" 0`,
			`EVAL "return KEYS[3] .. 'x'" 0`,
			`EVAL "local b = true return 'x' .. b" 0`,
			`EVAL "return true .. 'x'" 0`,
			`EVAL "local up = nil local function f() return 'x' .. up end return f()" 0`,
			`EVAL "local t = setmetatable({}, {__concat = function(a, b) return {} end}) return 'a' .. 'b' .. t" 0`,
			`EVAL "local t = setmetatable({}, {__concat = function(a, b) return {} end}) local u = 'b' return 'a' .. u .. t" 0`,
			`EVAL "return {pcall(function() return 'a' .. {} end)}" 0`,
			`EVAL "return {coroutine.resume(coroutine.create(function() return 'a' .. nil end))}" 0`,
		}},
		{"modulo and power", []string{
			`EVAL "return {1e29 % 7, 2^53 % -7, 5.5 % 2, -5 % 3, 5 % -3}" 0`,
			`EVAL "local a, b = 1e29, 7 local c, d = 2^53, -7 return {a % b, c % d}" 0`,
			`EVAL "return {tostring(1 % (1/0)), tostring(-5 % math.huge), tostring(7 % 0), tostring(-7 % 0), tostring(0 % 0), tostring(-0 % 5)}" 0`,
			`EVAL "local z = 0 return {tostring(-z % 5), tostring(0/0 % 1)}" 0`,
			`EVAL "return {string.format('%.17g', 5.3 % 2), string.format('%.17g', 0.1 % 0.01)}" 0`,
			`EVAL "local a, b = 5.3, 2 return string.format('%.17g', a % b)" 0`,
			`EVAL "return {tostring(2 ^ 0.5), tostring((-8) ^ (1/3)), 2^2^3, -2^2, 2^-1}" 0`,
			`EVAL "local a, b = 3, 0.3 return {string.format('%.17g', a ^ b), tostring((-8) ^ (1/3))}" 0`,
			`EVAL "local a, b = '10', '3' return {a % b, a ^ b, ('5') % 2, '0x10' % 3}" 0`,
			`EVAL "local t = setmetatable({}, {__mod = function() return 'mod' end, __pow = function() return 'pow' end}) return {t % 2, 2 % t, t ^ 3, 'x' % t, '2' ^ t}" 0`,
			`EVAL "return 1 ^ 1 ^ 1 ^ 1 ^ 1 ^ 1 ^ 1 ^ 1 ^ 1 ^ 1 ^ 1 ^ 1 ^ 1" 0`,
		}},
		{"modulo and power errors", []string{
			`EVAL "local x return x % 2" 0`,
			`EVAL "local x return 2 ^ x" 0`,
			`EVAL "local t = {} return t.a % 2" 0`,
			`EVAL "local t = {} return 2 ^ t.a" 0`,
			`EVAL "return nil % 2" 0`,
			`EVAL "return 'abc' % 2" 0`,
			`EVAL "local s = 'abc' return 2 % s" 0`,
			`EVAL "return {} ^ 2" 0`,
			`EVAL "local up = nil local function f() return up % 2 end return f()" 0`,
			`EVAL "return {pcall(function() local x return x % 1 end)}" 0`,
			`EVAL "return {xpcall(function() local x return x ^ 1 end, function(e) return 'h:' .. e end)}" 0`,
			`EVAL "return {coroutine.resume(coroutine.create(function() local x = 1 % nil end))}" 0`,
			`EVAL "return {coroutine.resume(coroutine.create(function() return 1 + nil end))}" 0`,
			`EVAL "return {coroutine.resume(coroutine.create(function() return 2 ^ {} end))}" 0`,
		}},
	})
}
