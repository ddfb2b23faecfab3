//go:build !(cgo && linux)

package store

// Without cgo: the correctly rounded results (see geomath.go).
func geoSin(x float64) float64  { return ddSin(x) }
func geoCos(x float64) float64  { return ddCos(x) }
func geoAsin(x float64) float64 { return ddAsin(x) }
