package conformance

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"testing"
)

// Errors a script raises (assert, error with any value, error tables with
// and without err, runtime errors, errors caught by pcall and by nested
// pcalls, on line N of a multi-line script) are quoted as Redis 7.0.15
// quotes them. error() with a table that has no err string crashes
// redis-server 7.0.15, so those are not compared.
func TestLuaErrorQuoting(t *testing.T) {
	assertLines := `local x = 1\n\nassert(false, 'line 3')`
	runtimeLines := `local t = nil\n\n\nreturn t.x`
	runCases(t, []tcase{
		{"raised errors", []string{
			`EVAL "assert(false)" 0`,
			`EVAL "assert(false, 'msg')" 0`,
			`EVAL "assert(nil, 5)" 0`,
			`EVAL "assert(nil, 5.5)" 0`,
			`EVAL "assert(nil, {err='tab'})" 0`,
			`EVAL "assert(nil, {})" 0`,
			`EVAL "assert(nil, nil)" 0`,
			`EVAL "assert(false, true)" 0`,
			`EVAL "assert()" 0`,
			`EVAL "assert(1 == 2, 'x' .. 1)" 0`,
			`EVAL "return assert(1, 2)" 0`,
			`EVAL "error('x')" 0`,
			`EVAL "error('x', 0)" 0`,
			`EVAL "error('x', 1)" 0`,
			`EVAL "error('x', 2)" 0`,
			`EVAL "error('x', 3)" 0`,
			`EVAL "error({err='x'})" 0`,
			`EVAL "error({err='ERR x'})" 0`,
			`EVAL "error({err='MYERR x'})" 0`,
			`EVAL "error({err=5})" 0`,
			`EVAL "error(5)" 0`,
			`EVAL "error(5.5)" 0`,
			`EVAL "error(true)" 0`,
			`EVAL "error(nil)" 0`,
			`EVAL "error()" 0`,
			`!type EVAL "error(function() end)" 0`, // an address
			`EVAL "local x = nil\nlocal y = 1\nerror('line 3')" 0`,
			`EVAL "local x = 1\n\nassert(false, 'line 3')" 0`,
			`EVAL "local t = nil\n\n\nreturn t.x" 0`,
			`EVAL "return redis.call('nosuch')" 0`,
			`EVAL "return redis.call('incr', 'k', 'x')" 0`,
			`EVAL "redis.call('set', 'str', 'a') return redis.call('incr', 'str')" 0`,
			`EVAL "return redis.pcall('nosuch')" 0`,
			`EVAL "local r = redis.pcall('nosuch') return r.err" 0`,
			`EVAL "return pcall(error, 'x')" 0`,
			`EVAL "return {pcall(error, 'x')}" 0`,
			`EVAL "return {pcall(error, {err='x'})}" 0`,
			`EVAL "return {pcall(error, 5)}" 0`,
			`EVAL "return {pcall(error)}" 0`,
			`EVAL "return {pcall(assert, false)}" 0`,
			`EVAL "return {pcall(assert, false, 'm')}" 0`,
			`EVAL "return {pcall(assert, nil, 5)}" 0`,
			`EVAL "return {pcall(function() error('in f') end)}" 0`,
			`EVAL "return {pcall(function() error('in f', 2) end)}" 0`,
			`EVAL "return {pcall(function() assert(false, 'af') end)}" 0`,
			`EVAL "return {pcall(function() local t = nil return t.x end)}" 0`,
			`EVAL "return {pcall(function() return redis.call('nosuch') end)}" 0`,
			`EVAL "local ok, e = pcall(function() return redis.call('nosuch') end) return type(e)" 0`,
			`EVAL "local ok, e = pcall(function() return redis.call('nosuch') end) return e" 0`,
			`EVAL "return {pcall(function() pcall(error, 'inner') error('outer') end)}" 0`,
			`EVAL "return {pcall(function() local ok, e = pcall(error, 'inner') error(e) end)}" 0`,
			`EVAL "local ok, e = pcall(error, {err='x'}) return type(e)" 0`,
			`EVAL "local ok, e = pcall(error, {err='x'}) error(e)" 0`,
			`EVAL "local ok, e = pcall(error, 'x') error(e, 0)" 0`,
			`EVAL "local ok, e = pcall(function() error({err='deep'}) end) return e" 0`,
			`EVAL "return {xpcall(function() error('x') end, function(m) return 'h:' .. tostring(m) end)}" 0`,
			`EVAL "return {xpcall(function() error({err='x'}) end, function(m) return type(m) end)}" 0`,
			`EVAL "local function f() error('from f') end f()" 0`,
			`EVAL "local function f() error('from f', 2) end f()" 0`,
			`EVAL "local function f() assert(false, 'af') end f()" 0`,
			`EVAL "local function f() local x = nil return x.y end f()" 0`,
			`EVAL "local function f() return redis.call('nosuch') end f()" 0`,
			`EVAL "error('x\ny')" 0`,
			`EVAL "error('x\\r\ny')" 0`,
			`EVAL "error('')" 0`,
			`EVAL "error(' ')" 0`,
			`EVAL "error({err=''})" 0`,
			`EVAL "error({err='x\ny'})" 0`,
			`EVAL "assert(false, '')" 0`,
			`EVAL "error('-ERR x')" 0`,
			`EVAL "error('ERR x')" 0`,
			`EVAL "error('WRONGTYPE x')" 0`,
			`EVAL "assert(false, 'WRONGTYPE x')" 0`,
			`EVAL "return redis.error_reply('x')" 0`,
			`EVAL "return redis.error_reply('ERR x')" 0`,
			`EVAL "return {err='x'}" 0`,
			`EVAL "return {err='-ERR x'}" 0`,
			`EVAL "error(redis.error_reply('custom'))" 0`,
			`EVAL "return {coroutine.resume(coroutine.create(function() error('co') end))}" 0`,
			`EVAL "string.rep()" 0`,
			`EVAL "return ('x'):bad()" 0`,
			`EVAL "return #nil" 0`,
			`EVAL "return 1 + {}" 0`,
			`EVAL "return nil .. 'x'" 0`,
			`EVAL "local a = {} a.b.c = 1" 0`,
			`EVAL "return tostring(nil)()" 0`,
			`EVAL "assert(false, setmetatable({}, {__tostring = function() return 'tostr' end}))" 0`,
			`EVAL "return {pcall(error, {err=5})}" 0`,
			`EVAL "return {pcall(error, {err=5.5})}" 0`,
			`EVAL "local ok, e = pcall(error, {err=5}) return type(e)" 0`,
			`EVAL "error({err=5.5})" 0`,
			`EVAL "return {err=5}" 0`,
			`EVAL "return {pcall(assert, nil, {})}" 0`,
			`EVAL "return {pcall(assert)}" 0`,
			`EVAL "local a = assert a(nil, {})" 0`,
			`EVAL "local t = {a = assert} t.a(nil, {})" 0`,
			`EVAL "local t = {a = assert} t:a({})" 0`,
			`EVAL "return assert(1, 2, 3)" 0`,
			`EVAL "return {assert(1, 2, 3)}" 0`,
			`EVAL "return {pcall(assert, 1, 2)}" 0`,
			`EVAL "assert(false, 1e20)" 0`,
			`EVAL "assert(0/0 == 1, -0.0)" 0`,
			`EVAL "local function f() return assert(false, 'tail') end f()" 0`,
		}},
		{"inside EVALSHA", []string{
			"SCRIPT LOAD \"" + assertLines + "\"",
			fmt.Sprintf("EVALSHA %s 0", luaSHA("local x = 1\n\nassert(false, 'line 3')")),
			"SCRIPT LOAD \"" + runtimeLines + "\"",
			fmt.Sprintf("EVALSHA %s 0", luaSHA("local t = nil\n\n\nreturn t.x")),
			"SCRIPT LOAD \"assert(nil, 5)\"",
			fmt.Sprintf("EVALSHA %s 0", luaSHA("assert(nil, 5)")),
			"SCRIPT LOAD \"error({err=5})\"",
			fmt.Sprintf("EVALSHA %s 0", luaSHA("error({err=5})")),
		}},
	})
}

// luaSHA is the name EVALSHA calls body by.
func luaSHA(body string) string {
	sum := sha1.Sum([]byte(body))
	return hex.EncodeToString(sum[:])
}
