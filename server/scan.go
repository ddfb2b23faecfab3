package server

import (
	"bytes"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/store"
)

// The parts SCAN, HSCAN, SSCAN and ZSCAN share, as Redis's
// scanGenericCommand: the cursor, the options, and the key being scanned.

// parseCursor reads a SCAN-family cursor as Redis's parseScanCursorOrReply
// does: strtoul over a C string (nothing after a NUL counts), no leading
// space, nothing left over, no overflow; "" is 0 and "-1" wraps.
func parseCursor(b []byte) (uint64, bool) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if len(b) > 0 && number.IsSpace(b[0]) {
		return 0, false
	}
	v, n, erange := number.Strtoul(b, 10)
	return v, n == len(b) && !erange
}

// scanOptions are SCAN's COUNT, MATCH and TYPE options; HSCAN, SSCAN and
// ZSCAN take the first two.
type scanOptions struct {
	count    int64
	pattern  []byte // nil: everything ("*" included)
	typeName []byte // nil: every type
}

// parseScanOptions parses options as Redis's scanGenericCommand: a COUNT
// below 1 is a syntax error, and so is an option without its value.
func parseScanOptions(c *Client, opts [][]byte, withType bool) (scanOptions, bool) {
	o := scanOptions{count: 10}
	for i := 0; i < len(opts); i += 2 {
		if i+1 >= len(opts) {
			c.w.Error(errSyntax)
			return o, false
		}
		switch opt, val := opts[i], opts[i+1]; {
		case eqFold(opt, "count"):
			n, ok := intArg(c, val)
			if !ok {
				return o, false
			}
			if n < 1 {
				c.w.Error(errSyntax)
				return o, false
			}
			o.count = n
		case eqFold(opt, "match"):
			o.pattern = val
			if len(val) == 1 && val[0] == '*' {
				o.pattern = nil
			}
		case withType && eqFold(opt, "type"):
			o.typeName = val
		default:
			c.w.Error(errSyntax)
			return o, false
		}
	}
	return o, true
}

// scanTarget starts HSCAN and SSCAN as Redis's commands do: the cursor is
// parsed first, then the key is looked up (a missing key answers an empty
// scan before the options are parsed), then the options. It returns false
// once it has answered.
func scanTarget[V store.Value](c *Client, args [][]byte) (v V, cursor uint64, o scanOptions, ok bool) {
	cursor, ok = parseCursor(args[2])
	if !ok {
		c.w.Error(errInvalidCursor)
		return v, 0, o, false
	}
	e := c.db.Get(args[1])
	if e == nil {
		c.w.Array(2)
		c.w.BulkString("0")
		c.w.Array(0)
		return v, 0, o, false
	}
	if v, ok = e.Value().(V); !ok {
		c.w.Error(errWrongType)
		return v, 0, o, false
	}
	o, ok = parseScanOptions(c, args[3:], false)
	return v, cursor, o, ok
}
