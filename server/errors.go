package server

// Error replies shared by many commands, with Redis 7.0's exact text.
const (
	errSyntax        = "ERR syntax error"
	errNotInteger    = "ERR value is not an integer or out of range"
	errNotFloat      = "ERR value is not a valid float"
	errWrongType     = "WRONGTYPE Operation against a key holding the wrong kind of value"
	errNoSuchKey     = "ERR no such key"
	errDBIndex       = "ERR DB index is out of range"
	errInvalidExpire = "ERR invalid expire time in '%s' command"
	errNoAuth        = "NOAUTH Authentication required."
	errOutOfRange    = "ERR value is out of range, must be positive"
)
