package store

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDoubleDoubleTrig checks the pure-Go functions against the math
// package: within a few units in the last place, and agreeing
// with the C library whenever cgo provides it (but for its rare misroundings).
func TestDoubleDoubleTrig(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	differ := 0
	const n = 20000
	for range n {
		x := (rng.Float64()*2 - 1) * 3.2
		y := rng.Float64() * 0.99 // Go's Asin loses digits nearer 1
		for _, c := range []struct {
			name     string
			dd, want float64
		}{{"sin", ddSin(x), math.Sin(x)}, {"cos", ddCos(x), math.Cos(x)}, {"asin", ddAsin(y), math.Asin(y)}} {
			if math.Abs(c.dd-c.want) > 1e-15*math.Abs(c.want) {
				t.Fatalf("%s(%v or %v) = %v, math says %v", c.name, x, y, c.dd, c.want)
			}
		}
		if ddSin(x) != geoSin(x) || ddCos(x) != geoCos(x) || ddAsin(y) != geoAsin(y) {
			differ++
		}
	}
	if differ > n/100 {
		t.Errorf("double-double and the geo functions differ for %d of %d arguments", differ, n)
	}
}

// TestGeoDocExample checks the positions and distance of Redis's GEOADD
// documentation example.
func TestGeoDocExample(t *testing.T) {
	lon, lat := GeoDecode(GeoEncode(13.361389, 38.115556))
	if lon != 13.361389338970184 || lat != 38.1155563954963 {
		t.Errorf("Palermo decodes to %v, %v", lon, lat)
	}
	lon2, lat2 := GeoDecode(GeoEncode(15.087269, 37.502669))
	if d := GeoDistance(lon, lat, lon2, lat2); math.Abs(d-166274.1516) > 0.001 {
		t.Errorf("Palermo-Catania = %v m", d)
	}
	if h := GeoHashString(GeoEncode(13.361389, 38.115556)); h != "sqc8b49rny0" {
		t.Errorf("Palermo's geohash = %s", h)
	}
}
