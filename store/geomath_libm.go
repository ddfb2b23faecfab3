//go:build cgo && linux

package store

/*
#cgo LDFLAGS: -lm
#include <math.h>
*/
import "C"

// The C library's functions, as Redis calls them (see geomath.go).
func geoSin(x float64) float64  { return float64(C.sin(C.double(x))) }
func geoCos(x float64) float64  { return float64(C.cos(C.double(x))) }
func geoAsin(x float64) float64 { return float64(C.asin(C.double(x))) }
