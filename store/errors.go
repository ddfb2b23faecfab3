package store

import "errors"

// Errors returned by the store. Their text is the Redis 7.0 error reply
// (without the leading '-'), so the server can send them as they are.
var (
	ErrWrongType    = errors.New("WRONGTYPE Operation against a key holding the wrong kind of value")
	ErrNotInteger   = errors.New("ERR value is not an integer or out of range")
	ErrNotFloat     = errors.New("ERR value is not a valid float")
	ErrOverflow     = errors.New("ERR increment or decrement would overflow")
	ErrNaNOrInf     = errors.New("ERR increment would produce NaN or Infinity")
	ErrNoSuchKey    = errors.New("ERR no such key")
	ErrDBIndex      = errors.New("ERR DB index is out of range")
	ErrStringTooBig = errors.New("ERR string exceeds maximum allowed size (proto-max-bulk-len)")
	ErrScoreNaN     = errors.New("ERR resulting score is not a number (NaN)")
)
