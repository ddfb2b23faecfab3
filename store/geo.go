package store

import "math"

// Geo sets are sorted sets whose scores are 52-bit geohashes, as in Redis:
// longitude and latitude each scaled to 26 bits over [-180, 180] and
// [-85.05112878, 85.05112878] and interleaved, latitude in the even bits.
// The arithmetic below follows Redis's geohash.c and geohash_helper.c
// operation for operation, since replies show the doubles it produces.

// Geo limits and constants, Redis's.
const (
	GeoLonMin = -180.0
	GeoLonMax = 180.0
	GeoLatMin = -85.05112878
	GeoLatMax = 85.05112878

	geoStepMax   = 26
	earthRadius  = 6372797.560856 // meters
	mercatorMax  = 20037726.37
	geohashChars = "0123456789bcdefghjkmnpqrstuvwxyz"
)

// degToRad is C's M_PI / 180.0: a double division of the rounded pi,
// which a Go constant expression (exact, then rounded) would not give.
var degToRad = pi / 180.0

var pi = math.Pi

// GeoValid reports whether a longitude, latitude pair can be indexed.
func GeoValid(lon, lat float64) bool {
	return lon >= GeoLonMin && lon <= GeoLonMax && lat >= GeoLatMin && lat <= GeoLatMax
}

// geoHash is a geohash of step*2 bits (Redis's GeoHashBits).
type geoHash struct {
	bits uint64
	step uint
}

type geoRange struct{ min, max float64 }

var (
	lonRange = geoRange{GeoLonMin, GeoLonMax}
	latRange = geoRange{GeoLatMin, GeoLatMax}
)

// spread puts the 32 bits of v in the even bit positions.
func spread(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000FFFF0000FFFF
	x = (x | x<<8) & 0x00FF00FF00FF00FF
	x = (x | x<<4) & 0x0F0F0F0F0F0F0F0F
	x = (x | x<<2) & 0x3333333333333333
	x = (x | x<<1) & 0x5555555555555555
	return x
}

// squash gathers the even bits of x into 32 bits.
func squash(x uint64) uint32 {
	x &= 0x5555555555555555
	x = (x | x>>1) & 0x3333333333333333
	x = (x | x>>2) & 0x0F0F0F0F0F0F0F0F
	x = (x | x>>4) & 0x00FF00FF00FF00FF
	x = (x | x>>8) & 0x0000FFFF0000FFFF
	x = (x | x>>16) & 0x00000000FFFFFFFF
	return uint32(x)
}

// encode is geohashEncode; ok is false outside the ranges.
func encode(lonR, latR geoRange, lon, lat float64, step uint) (geoHash, bool) {
	if lon > GeoLonMax || lon < GeoLonMin || lat > GeoLatMax || lat < GeoLatMin ||
		lat < latR.min || lat > latR.max || lon < lonR.min || lon > lonR.max {
		return geoHash{step: step}, false
	}
	latOff := (lat - latR.min) / (latR.max - latR.min)
	lonOff := (lon - lonR.min) / (lonR.max - lonR.min)
	latOff *= float64(uint64(1) << step)
	lonOff *= float64(uint64(1) << step)
	return geoHash{bits: spread(uint32(latOff)) | spread(uint32(lonOff))<<1, step: step}, true
}

// geoArea is a decoded cell (Redis's GeoHashArea).
type geoArea struct{ lon, lat geoRange }

// decode is geohashDecode. The explicit float64 conversions keep Go from
// fusing multiply-adds, which C does not do here either.
func decode(h geoHash) geoArea {
	lat, lon := squash(h.bits), squash(h.bits>>1)
	scale := float64(uint64(1) << h.step)
	latScale, lonScale := latRange.max-latRange.min, lonRange.max-lonRange.min
	return geoArea{
		lat: geoRange{
			latRange.min + float64(float64(lat)*1.0/scale*latScale),
			latRange.min + float64((float64(lat)+1)*1.0/scale*latScale),
		},
		lon: geoRange{
			lonRange.min + float64(float64(lon)*1.0/scale*lonScale),
			lonRange.min + float64((float64(lon)+1)*1.0/scale*lonScale),
		},
	}
}

// GeoEncode returns the sorted set score of a position (GEOADD).
func GeoEncode(lon, lat float64) float64 {
	h, _ := encode(lonRange, latRange, lon, lat, geoStepMax)
	return float64(h.bits << (52 - 2*h.step))
}

// scoreBits converts a score to a geohash as Redis's (uint64_t) cast does
// on x86-64, where gcc subtracts 2^63 from a value that is not below it
// and flips the top bit back: a score of 2^64 or more, or NaN, is 0
// (Go's conversion gives 2^63), a negative one is its int64 bits.
func scoreBits(score float64) uint64 {
	const two63 = 1 << 63
	if score < two63 {
		return uint64(castInt64(score))
	}
	return uint64(castInt64(score-two63)) ^ two63
}

// castInt64 is x86-64's cvttsd2si: out of range or NaN gives INT64_MIN.
func castInt64(x float64) int64 {
	if x >= -(1<<63) && x < 1<<63 {
		return int64(x)
	}
	return math.MinInt64
}

// GeoDecode returns the centre of the cell a score stands for, clamped to
// the valid ranges (GEOPOS).
func GeoDecode(score float64) (lon, lat float64) {
	a := decode(geoHash{bits: scoreBits(score), step: geoStepMax})
	lon = (a.lon.min + a.lon.max) / 2
	lon = min(max(lon, GeoLonMin), GeoLonMax)
	lat = (a.lat.min + a.lat.max) / 2
	lat = min(max(lat, GeoLatMin), GeoLatMax)
	return lon, lat
}

// GeoHashString returns the standard 11-character geohash of a score: its
// position re-encoded over [-90, 90] latitudes, the last character 0
// (Redis keeps 52 bits, not 55).
func GeoHashString(score float64) string {
	lon, lat := GeoDecode(score)
	h, _ := encode(geoRange{-180, 180}, geoRange{-90, 90}, lon, lat, geoStepMax)
	var buf [11]byte
	for i := range buf {
		idx := 0
		if i < 10 {
			idx = int(h.bits>>(52-(i+1)*5)) & 0x1f
		}
		buf[i] = geohashChars[idx]
	}
	return string(buf[:])
}

func latDistance(lat1, lat2 float64) float64 {
	return earthRadius * math.Abs(lat2*degToRad-lat1*degToRad)
}

// GeoDistance is the haversine distance in meters over Redis's earth
// radius (geohashGetDistance).
func GeoDistance(lon1, lat1, lon2, lat2 float64) float64 {
	lon1r, lon2r := lon1*degToRad, lon2*degToRad
	v := geoSin((lon2r - lon1r) / 2)
	if v == 0 {
		return latDistance(lat1, lat2)
	}
	lat1r, lat2r := lat1*degToRad, lat2*degToRad
	u := geoSin((lat2r - lat1r) / 2)
	p := float64(float64(float64(geoCos(lat1r)*geoCos(lat2r))*v) * v)
	a := float64(u*u) + p
	return 2.0 * earthRadius * geoAsin(math.Sqrt(a))
}

// GeoShape is the area of a GEOSEARCH: a circle of Radius, or a box of
// Width by Height, in a unit of Conversion meters, centred on Lon, Lat.
type GeoShape struct {
	Lon, Lat      float64
	Box           bool
	Radius        float64
	Width, Height float64
	Conversion    float64
}

// Contains decodes a score and reports the position and its distance in
// meters from the centre, if it lies in the shape (geoWithinShape).
func (s *GeoShape) Contains(score float64) (lon, lat, dist float64, ok bool) {
	lon, lat = GeoDecode(score)
	if !s.Box {
		dist = GeoDistance(s.Lon, s.Lat, lon, lat)
		return lon, lat, dist, dist <= s.Radius*s.Conversion
	}
	w, h := s.Width*s.Conversion, s.Height*s.Conversion
	if latDistance(lat, s.Lat) > h/2 {
		return lon, lat, 0, false
	}
	if GeoDistance(lon, lat, s.Lon, lat) > w/2 { // along the point's parallel
		return lon, lat, 0, false
	}
	return lon, lat, GeoDistance(s.Lon, s.Lat, lon, lat), true
}

// bounds is geohashBoundingBox: min lon, min lat, max lon, max lat.
func (s *GeoShape) bounds() [4]float64 {
	height, width := s.Radius, s.Radius
	if s.Box {
		height, width = s.Height/2, s.Width/2
	}
	height *= s.Conversion
	width *= s.Conversion
	latDelta := height / earthRadius / degToRad
	lonDeltaTop := width / earthRadius / geoCos((s.Lat+latDelta)*degToRad) / degToRad
	lonDeltaBottom := width / earthRadius / geoCos((s.Lat-latDelta)*degToRad) / degToRad
	if s.Lat < 0 {
		return [4]float64{s.Lon - lonDeltaBottom, s.Lat - latDelta, s.Lon + lonDeltaBottom, s.Lat + latDelta}
	}
	return [4]float64{s.Lon - lonDeltaTop, s.Lat - latDelta, s.Lon + lonDeltaTop, s.Lat + latDelta}
}

// stepsForRadius is geohashEstimateStepsByRadius.
func stepsForRadius(meters, lat float64) uint {
	if meters == 0 {
		return 26
	}
	step := 1
	for meters < mercatorMax {
		meters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	return uint(min(max(step, 1), 26))
}

// move shifts a hash by one cell along the longitude (odd bits) or the
// latitude (even bits), wrapping around (geohash_move_x/_y).
func (h geoHash) move(dLon, dLat int) geoHash {
	shift := 64 - 2*h.step
	step := func(bits, mask uint64, d int) uint64 {
		zz := (^mask) >> shift // the other coordinate's bits
		part := bits & mask
		if d > 0 {
			part += zz + 1
		} else {
			part |= zz
			part -= zz + 1
		}
		return part & (mask >> shift)
	}
	const odd, even = 0xaaaaaaaaaaaaaaaa, 0x5555555555555555
	bits := h.bits
	if dLon != 0 {
		bits = step(bits, odd, dLon) | bits&even
	}
	if dLat != 0 {
		bits = step(bits, even, dLat) | bits&odd
	}
	return geoHash{bits: bits, step: h.step}
}

// GeoScoreRange is a range of scores [Min, Max) to scan.
type GeoScoreRange struct{ Min, Max float64 }

// Ranges returns the score ranges to scan for the shape, in Redis's order
// (the centre cell, then north, south, east, west, north-east, north-west,
// south-east, south-west), leaving out the cells the area cannot reach
// and a cell equal to the one scanned before it
// (geohashCalculateAreasByShapeWGS84 and membersOfAllNeighbors).
func (s *GeoShape) Ranges() []GeoScoreRange {
	b := s.bounds()
	minLon, minLat, maxLon, maxLat := b[0], b[1], b[2], b[3]
	radius := s.Radius
	if s.Box {
		radius = math.Sqrt((s.Width/2)*(s.Width/2) + (s.Height/2)*(s.Height/2))
	}
	radius *= s.Conversion
	steps := stepsForRadius(radius, s.Lat)
	cells := func(steps uint) (geoHash, [8]geoHash, geoArea) {
		h, _ := encode(lonRange, latRange, s.Lon, s.Lat, steps)
		n := [8]geoHash{h.move(0, 1), h.move(0, -1), h.move(1, 0), h.move(-1, 0),
			h.move(1, 1), h.move(-1, 1), h.move(1, -1), h.move(-1, -1)}
		return h, n, decode(h)
	}
	const north, south, east, west, ne, nw, se, sw = 0, 1, 2, 3, 4, 5, 6, 7
	h, n, area := cells(steps)
	if decode(n[north]).lat.max < maxLat || decode(n[south]).lat.min > minLat ||
		decode(n[east]).lon.max < maxLon || decode(n[west]).lon.min > minLon {
		if steps > 1 {
			steps--
			h, n, area = cells(steps)
		}
	}
	var zero [8]bool
	if steps >= 2 {
		if area.lat.min < minLat {
			zero[south], zero[sw], zero[se] = true, true, true
		}
		if area.lat.max > maxLat {
			zero[north], zero[ne], zero[nw] = true, true, true
		}
		if area.lon.min < minLon {
			zero[west], zero[sw], zero[nw] = true, true, true
		}
		if area.lon.max > maxLon {
			zero[east], zero[se], zero[ne] = true, true, true
		}
	}
	all := []geoHash{h}
	for i, c := range n {
		if zero[i] {
			c = geoHash{} // Redis zeroes bits and step: the cell is skipped
		}
		all = append(all, c)
	}
	var out []GeoScoreRange
	last := -1
	for i, c := range all {
		if c.bits == 0 && c.step == 0 {
			continue
		}
		if last > 0 && c == all[last] {
			continue
		}
		shift := 52 - 2*c.step
		out = append(out, GeoScoreRange{float64(c.bits << shift), float64((c.bits + 1) << shift)})
		last = i
	}
	return out
}
