package server

import "github.com/floodgate/floodgate/store"

// Error replies shared by many commands, with Redis 7.0's exact text.
const (
	errSyntax        = "ERR syntax error"
	errInvalidExpire = "ERR invalid expire time in '%s' command"
	errNoAuth        = "NOAUTH Authentication required."
	errOutOfRange    = "ERR value is out of range, must be positive"
)

// The store's errors carry Redis's text; a handler that finds the same
// condition itself (a bad argument rather than a bad stored value) sends
// the same text, typed once, there.
var (
	errNotInteger     = store.ErrNotInteger.Error()
	errNotFloat       = store.ErrNotFloat.Error()
	errWrongType      = store.ErrWrongType.Error()
	errNoSuchKey      = store.ErrNoSuchKey.Error()
	errDBIndex        = store.ErrDBIndex.Error()
	errStringTooLarge = store.ErrStringTooBig.Error()
)

// arityError is Redis's reply to a wrong number of arguments, for a
// command or a subcommand ("config|get").
func arityError(cmd *Command) string {
	return "ERR wrong number of arguments for '" + cmd.FullName() + "' command"
}
