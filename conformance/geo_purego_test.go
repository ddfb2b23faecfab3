//go:build !(cgo && linux)

package conformance

// libmTrig: floodgate's geo distances and Lua math library are computed in
// Go (store/geomath_purego.go, luaengine/libm_purego.go).
const libmTrig = false
