//go:build cgo && linux

package conformance

// libmTrig: floodgate's geo distances and Lua math library call the C
// library (store/geomath_libm.go, luaengine/libm_cgo.go).
const libmTrig = true
