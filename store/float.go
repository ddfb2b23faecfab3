package store

import (
	"math/big"

	"github.com/floodgate/floodgate/internal/number"
)

// IncrByFloat returns the String that INCRBYFLOAT stores: cur (nil for a
// missing key) plus incr, computed and formatted as Redis does. The result
// is never int-encoded: Redis stores the formatted text as it is.
func IncrByFloat(cur *String, incr []byte) (*String, error) {
	value := new(big.Float).SetPrec(number.LongDoublePrec)
	if cur != nil {
		if n, ok := cur.Int(); ok {
			value.SetInt64(n)
		} else if v, ok := number.ParseLongDouble(cur.b); ok {
			value = v
		} else {
			return nil, ErrNotFloat
		}
	}
	delta, ok := number.ParseLongDouble(incr)
	if !ok {
		return nil, ErrNotFloat
	}
	sum, ok := number.AddLongDouble(value, delta)
	if !ok {
		return nil, ErrNaNOrInf
	}
	return byteString([]byte(number.FormatLongDouble(sum)), false), nil
}
