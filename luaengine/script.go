package luaengine

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"

	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// Flags are the script flags of a "#!lua flags=..." shebang.
type Flags uint8

const (
	// FlagShebang marks a script that declared a shebang. Redis applies the
	// flags only to such scripts; a script without one may write.
	FlagShebang Flags = 1 << iota
	FlagNoWrites
	FlagAllowOOM
	FlagAllowStale
	FlagNoCluster
	FlagAllowCrossSlotKeys
)

var flagNames = map[string]Flags{
	"no-writes":             FlagNoWrites,
	"allow-oom":             FlagAllowOOM,
	"allow-stale":           FlagAllowStale,
	"no-cluster":            FlagNoCluster,
	"allow-cross-slot-keys": FlagAllowCrossSlotKeys,
}

// Script is one compiled script, shared by every call of the same body.
type Script struct {
	// SHA is the lower-case hex SHA1 of Body, the name EVALSHA uses.
	SHA   string
	Body  string
	Flags Flags

	fn            *lua.LFunction
	changesTables bool // may leave KEYS or ARGV changed (env.go)
	// function is set for a registered function's callback (functions.go),
	// which Run calls with the keys and arguments as arguments.
	function *Function
	// keepsArgs is set for a function that may keep or change its KEYS
	// and ARGV tables, which then are new for every call (env.go).
	keepsArgs bool
}

// Function returns the function s runs, or nil for an EVAL script.
func (s *Script) Function() *Function { return s.function }

// ReadOnly reports whether the script declared flags=no-writes.
func (s *Script) ReadOnly() bool { return s.Flags&FlagNoWrites != 0 }

// SHA1Hex returns the lower-case hex SHA1 of body, as SCRIPT LOAD and
// redis.sha1hex compute it.
func SHA1Hex(body []byte) string {
	sum := sha1.Sum(body)
	return hex.EncodeToString(sum[:])
}

// parseShebang reads the flags of a "#!lua" first line, with Redis 7.0's
// error texts. It returns the body with the shebang line blanked out (the
// line stays, empty, so that error line numbers match Redis, which hands the
// whole text to the Lua parser after skipping the '#' line).
func parseShebang(body string) (Flags, error) {
	if !strings.HasPrefix(body, "#!") {
		return 0, nil
	}
	nl := strings.IndexByte(body, '\n')
	if nl < 0 {
		return 0, Error("ERR Invalid script shebang")
	}
	parts := strings.Fields(body[:nl])
	if len(parts) == 0 || parts[0] != "#!lua" {
		engine := "#!"
		if len(parts) > 0 {
			engine = parts[0]
		}
		return 0, Error("ERR Unexpected engine in script shebang: " + engine)
	}
	flags := FlagShebang
	for _, part := range parts[1:] {
		value, ok := strings.CutPrefix(part, "flags=")
		if !ok {
			return 0, Error("ERR Unknown lua shebang option: " + part)
		}
		if value == "" {
			continue // Redis splits "" into no flags at all
		}
		for _, name := range strings.Split(value, ",") {
			f, ok := flagNames[name]
			if !ok {
				return 0, Error("ERR Unexpected flag in script shebang: " + name)
			}
			flags |= f
		}
	}
	return flags, nil
}

// ShebangFlags returns the flags a script body declares, as EVAL's command
// flags are judged before the script runs (Redis's evalGetCommandFlags); a
// bad shebang counts as none, and EVAL then reports it.
func ShebangFlags(body []byte) Flags {
	if len(body) < 2 || body[0] != '#' || body[1] != '!' {
		return 0
	}
	f, err := parseShebang(string(body))
	if err != nil {
		return 0
	}
	return f
}
