package conformance

import (
	"strings"
	"testing"
)

// TestErrorsEchoingArguments: Redis prints an argument into an error with
// C's %s, so it stops at a NUL byte; addReplyErrorFormat then trims CR and
// LF from both ends of the message and turns the ones inside into spaces
// (rejectCommandFormat only turns them into spaces). %.128s cuts long ones.
func TestErrorsEchoingArguments(t *testing.T) {
	long := strings.Repeat("s", 200)
	runCases(t, []tcase{
		{"unknown command", []string{
			`"a\x00b"`, `"\x00"`, `"x\r\n"`, `"\r\nx"`, `"a\nb" "c\r\n"`, `NOSUCH "\x00" "d\x00e" "\r\n"`,
			`"` + long + `" x`, `NOSUCH ` + long, `"xadd \x00"`,
		}},
		{"unknown subcommand", []string{
			`CONFIG "a\x00b"`, `CONFIG "\r\nx\r\n"`, `OBJECT "x\x00y" k`, `SCRIPT "\n"`, `CLIENT "a\x00b"`,
			`COMMAND "a\nb"`, `CONFIG ` + long, `OBJECT ` + long + ` k`, `CLIENT ` + long,
		}},
		{"subcommand syntax errors", []string{
			`CLIENT KILL "a\x00b"`, `CLIENT KILL TYPE "x\x00y"`, `CLIENT KILL USER "u\x00v"`, `CLIENT KILL USER "u\r\n"`,
			`CLIENT LIST TYPE "t\x00u"`, `CLIENT LIST TYPE "t\r\n"`, `CLIENT KILL "a\x00b" c`,
			`CLIENT NO-EVICT "x\x00"`,
			`CLIENT SETNAME "a\x00b"`, `CLIENT UNBLOCK 1 "x\x00"`,
			`OBJECT FREQ "x\x00"`, `SCRIPT FLUSH "x\x00"`,
			`CLIENT KILL ID 1 "x\x00y" 1`, `CLIENT ` + long + ` a b`,
		}},
		{"CONFIG", []string{
			`CONFIG SET "a\x00b" 1`, `CONFIG SET "a\r\n" 1`, `CONFIG SET maxmemory "x\r\n"`,
			`CONFIG SET maxmemory-policy "x\x00y"`, `CONFIG SET appendfsync "\r\n"`, `CONFIG SET hz "\x00"`, `CONFIG SET hz "20\x00x"`, "CONFIG GET hz", "CONFIG SET hz 10",
			`CONFIG SET port 1 "a\x00" 2`, `CONFIG SET save "1 x\x00"`, `CONFIG SET timeout 1 timeout 2`,
			`CONFIG GET "a\x00b"`, `!known=Redis-compares-names-up-to-a-NUL-but-hashes-all-bytes-with-a-random-seed:-found-only-when-both-share-a-bucket CONFIG SET "hz\x00x" 20`, `!known=Redis-compares-names-up-to-a-NUL-but-hashes-all-bytes-with-a-random-seed:-found-only-when-both-share-a-bucket CONFIG GET "hz\x00x"`,
			// Where Redis found hz, both must hold the same value again.
			"CONFIG SET hz 10", `!sort CONFIG GET "h*\x00x"`, `CONFIG SET ` + long + ` 1`,
		}},
		{"other commands", []string{
			`!known=Redis-compares-names-up-to-a-NUL-but-hashes-all-bytes-with-a-random-seed:-found-only-when-both-share-a-bucket COMMAND INFO "set\x00x"`, `!known=Redis-compares-names-up-to-a-NUL-but-hashes-all-bytes-with-a-random-seed:-found-only-when-both-share-a-bucket COMMAND GETKEYS "get\x00" k`, `COMMAND GETKEYS "\r\n" k`, `!known=Redis-compares-names-up-to-a-NUL-but-hashes-all-bytes-with-a-random-seed:-found-only-when-both-share-a-bucket COMMAND DOCS "get\x00"`,
			`PFDEBUG "x\x00y" k`, `PFDEBUG "x\r\n" k`, `OBJECT HELP "x\x00"`, `SCRIPT HELP "\x00"`,
			`CLIENT ID "x\x00"`, `CLIENT GETNAME "\r\n"`,
		}},
		// Redis reads most values as C strings (up to a NUL), integers
		// and strings with their length.
		{"CONFIG SET values with a NUL", []string{
			`CONFIG SET maxmemory-policy "allkeys-lru\x00x"`, "CONFIG GET maxmemory-policy", "CONFIG SET maxmemory-policy noeviction",
			`CONFIG SET notify-keyspace-events "KE\x00x"`, "CONFIG GET notify-keyspace-events", `CONFIG SET notify-keyspace-events ""`, "CONFIG GET notify-keyspace-events",
			`CONFIG SET lazyfree-lazy-user-flush "yes\x00x"`, "CONFIG GET lazyfree-lazy-user-flush", "CONFIG SET lazyfree-lazy-user-flush no",
			`CONFIG SET client-output-buffer-limit "normal 0 0 0\x00x pubsub 1mb\x00z 2mb 3"`, "CONFIG GET client-output-buffer-limit",
			`CONFIG SET client-output-buffer-limit "pubsub 32mb 8mb 60"`,
			`CONFIG SET oom-score-adj-values "0 200\x00 800"`, "CONFIG GET oom-score-adj-values",
			`CONFIG SET hz "20\x00x"`, "CONFIG GET hz",
			`CONFIG SET maxmemory "5\x00gb"`, "CONFIG GET maxmemory", "CONFIG SET maxmemory 0",
		}},
		{"HELLO and AUTH", []string{
			`HELLO 3 "x\x00y"`, `HELLO 2 "\r\nz"`, `HELLO "3\x00"`, `HELLO 2 SETNAME "a\x00 b"`, `HELLO 2 AUTH "u\x00" p`,
		}},
		{"expire options", []string{
			"SET k v", `EXPIRE k 10 "\x00"`, `PEXPIREAT k 10 "x\r\n"`, `EXPIREAT k 10 "\r\nx\x00y"`, `EXPIRE k 10 ` + long,
		}},
		{"scripts", []string{ // \\ is one backslash for Lua to read
			`EVAL "return redis.error_reply('a\\0b')" 0`,
			`EVAL "return redis.error_reply('x\\r\\n')" 0`,
			`EVAL "return redis.error_reply('\\r\\nMY x\\ny')" 0`,
			`EVAL "return {err='E a\\0b'}" 0`,
			`EVAL "return redis.status_reply('a\\0b')" 0`,
			`EVAL "error('a\\0b')" 0`,
			`EVAL "error('x\\r\\n')" 0`,
			`EVAL "error({err='CODE a\\0b'})" 0`,
			`EVAL "return redis.call('nosuch\\0x')" 0`,
			`EVAL "return redis.pcall('nosuch\\0x')" 0`,
			`EVAL "return redis.call('config', 'set', 'a\\0b', 1)" 0`,
			`EVAL "return redis.pcall('expire', 'k', 1, 'x\\0y')" 0`,
			`EVAL "return redis.call('expire', 'k', 1, 'x\\r\\n')" 0`,
			`EVAL "x = 'a\\0b' .." 0`,
			`EVAL "x 'a\\0b'" 0`,
			`EVAL "x 'a\\r\\nb'" 0`,
			`EVAL "return redis.call('config', 'set', 'hz\\0x', 20)" 0`,
			`EVAL "return struct.pack('i\\0')" 0`,
			`EVAL "return string.format('%\\0', 1)" 0`,
			`EVAL "return string.format('%y\\0', 1)" 0`,
			`EVAL "return cjson.decode('\\0')" 0`,
			`EVAL "return cjson.decode('[1,\\0]')" 0`,
			`EVAL "return cmsgpack.unpack('\\0')" 0`,
			`EVAL "return nosuch_global_x" 0`,
			`EVAL "return string.rep('a\\0b', 2) .. {}" 0`,
			`EVAL "return ('a\\0b'):bad()" 0`,
		}},
		{"in MULTI", []string{
			"MULTI", `"a\x00b" c`, `CONFIG "x\x00"`, "EXEC",
			"MULTI", `CONFIG SET "a\x00" 1`, `EXPIRE k 1 "x\r\n"`, "EXEC",
		}},
	})
}
