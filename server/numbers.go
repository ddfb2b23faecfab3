package server

import (
	"math/big"
	"strconv"

	"github.com/floodgate/floodgate/internal/number"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// string2d parses a double argument as Redis's string2d, which sets errno
// to 0 before its strtod: it leaves Server.errnoERANGE as that leaves
// errno, for a later SORT.
func (c *Client) string2d(b []byte) (float64, bool) {
	c.srv.errnoERANGE.Store(strtodRange(b))
	return number.ParseDouble(b)
}

// string2ld parses a long double argument as Redis's string2ld, which also
// sets errno to 0 first; strtold's range covers any argument short of
// 4932 decimal digits of exponent, so errno is left clear.
func (c *Client) string2ld(b []byte) (*big.Float, bool) {
	c.srv.errnoERANGE.Store(false)
	return number.ParseLongDouble(b)
}
