package luaengine

import (
	"math"

	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// The bit library is LuaBitOp 1.0.2 as Redis ships it: operands are
// reduced to 32 bits the way its barg() does (round to nearest through the
// 2^52+2^51 trick, then the low 32 bits) and results are signed 32-bit.

func bitArg(L *lua.LState, n int) uint32 {
	f, ok := toNumber(L.Get(n))
	b := uint32(math.Float64bits(f + 6755399441055744.0))
	if b == 0 && !ok {
		argTypeError(L, n, "number")
	}
	return b
}

func pushBits(L *lua.LState, b uint32) int {
	L.Push(luaNumber(float64(int32(b))))
	return 1
}

func newBitLib(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	fn := func(name string, f lua.LGFunction) { t.RawSetString(name, L.NewFunction(f)) }
	fold := func(op func(a, b uint32) uint32) lua.LGFunction {
		return func(L *lua.LState) int {
			b := bitArg(L, 1)
			for i := L.GetTop(); i > 1; i-- { // LuaBitOp reads them backwards
				b = op(b, bitArg(L, i))
			}
			return pushBits(L, b)
		}
	}
	fn("tobit", func(L *lua.LState) int { return pushBits(L, bitArg(L, 1)) })
	fn("bnot", func(L *lua.LState) int { return pushBits(L, ^bitArg(L, 1)) })
	fn("band", fold(func(a, b uint32) uint32 { return a & b }))
	fn("bor", fold(func(a, b uint32) uint32 { return a | b }))
	fn("bxor", fold(func(a, b uint32) uint32 { return a ^ b }))
	shift := func(op func(b uint32, n uint) uint32) lua.LGFunction {
		return func(L *lua.LState) int {
			b := bitArg(L, 1)
			n := uint(bitArg(L, 2) & 31)
			return pushBits(L, op(b, n))
		}
	}
	fn("lshift", shift(func(b uint32, n uint) uint32 { return b << n }))
	fn("rshift", shift(func(b uint32, n uint) uint32 { return b >> n }))
	fn("arshift", shift(func(b uint32, n uint) uint32 { return uint32(int32(b) >> n) }))
	fn("rol", shift(func(b uint32, n uint) uint32 { return b<<n | b>>(32-n) }))
	fn("ror", shift(func(b uint32, n uint) uint32 { return b>>n | b<<(32-n) }))
	fn("bswap", func(L *lua.LState) int {
		b := bitArg(L, 1)
		return pushBits(L, b>>24|(b>>8)&0xff00|(b&0xff00)<<8|b<<24)
	})
	fn("tohex", func(L *lua.LState) int {
		b := bitArg(L, 1)
		n := int32(8)
		if L.GetTop() >= 2 {
			n = int32(bitArg(L, 2))
		}
		digits := "0123456789abcdef"
		if n < 0 {
			n = -n
			digits = "0123456789ABCDEF"
		}
		// -INT_MIN overflows; gcc folds the test so it counts as > 8.
		if n > 8 || n < 0 {
			n = 8
		}
		buf := make([]byte, n)
		for i := n - 1; i >= 0; i-- {
			buf[i] = digits[b&15]
			b >>= 4
		}
		L.Push(lua.LString(buf))
		return 1
	})
	return t
}
