//go:build cgo && linux

package conformance

// libmTrig: floodgate's geo distances call the C library (store/geomath_libm.go).
const libmTrig = true
