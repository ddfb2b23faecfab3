//go:build !(cgo && linux)

package conformance

// libmTrig: floodgate's geo distances are computed in Go (store/geomath_purego.go).
const libmTrig = false
