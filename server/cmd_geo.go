package server

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/floodgate/floodgate/internal/resp"
	"github.com/floodgate/floodgate/store"
)

var geoHandlers = map[string]Handler{
	"geoadd":               cmdGeoAdd,
	"geodist":              cmdGeoDist,
	"geohash":              cmdGeoHash,
	"geopos":               cmdGeoPos,
	"geosearch":            cmdGeoSearch,
	"geosearchstore":       cmdGeoSearchStore,
	"georadius":            cmdGeoRadius,
	"georadius_ro":         cmdGeoRadiusRO,
	"georadiusbymember":    cmdGeoRadiusByMember,
	"georadiusbymember_ro": cmdGeoRadiusByMemberRO,
}

const (
	errGeoUnit         = "ERR unsupported unit provided. please use M, KM, FT, MI"
	errGeoRadius       = "ERR need numeric radius"
	errGeoNegRadius    = "ERR radius cannot be negative"
	errGeoWidth        = "ERR need numeric width"
	errGeoHeight       = "ERR need numeric height"
	errGeoNegBox       = "ERR height or width cannot be negative"
	errGeoMember       = "ERR could not decode requested zset member"
	errGeoCount        = "ERR COUNT must be > 0"
	errGeoAnyNeedCount = "ERR the ANY argument requires COUNT argument"
	errGeoStoreWith    = "ERR %s is not compatible with WITHDIST, WITHHASH and WITHCOORD options"
	errGeoFrom         = "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for %s"
	errGeoBy           = "ERR exactly one of BYRADIUS and BYBOX can be specified for %s"
)

// geoFloat formats a coordinate as C's %f for the invalid-pair error.
func geoFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// lonLatArgs parses a longitude and a latitude (extractLongLatOrReply).
func lonLatArgs(c *Client, args [][]byte) (lon, lat float64, ok bool) {
	var xy [2]float64
	for i := range xy {
		if xy[i], ok = c.string2d(args[i]); !ok {
			c.w.Error(errNotFloat)
			return 0, 0, false
		}
	}
	if !store.GeoValid(xy[0], xy[1]) {
		c.w.Error("ERR invalid longitude,latitude pair " + geoFloat(xy[0]) + "," + geoFloat(xy[1]))
		return 0, 0, false
	}
	return xy[0], xy[1], true
}

// unitArg returns the meters in a unit, or 0 having answered the error.
func unitArg(c *Client, arg []byte) float64 {
	switch {
	case eqFold(arg, "m"):
		return 1
	case eqFold(arg, "km"):
		return 1000
	case eqFold(arg, "ft"):
		return 0.3048
	case eqFold(arg, "mi"):
		return 1609.34
	}
	c.w.Error(errGeoUnit)
	return 0
}

// distanceArgs parses "<radius> <unit>" into the shape.
func distanceArgs(c *Client, args [][]byte, shape *store.GeoShape) bool {
	r, ok := c.string2d(args[0])
	if !ok {
		c.w.Error(errGeoRadius)
		return false
	}
	if r < 0 {
		c.w.Error(errGeoNegRadius)
		return false
	}
	shape.Radius = r
	shape.Conversion = unitArg(c, args[1])
	return shape.Conversion != 0
}

// boxArgs parses "<width> <height> <unit>" into the shape.
func boxArgs(c *Client, args [][]byte, shape *store.GeoShape) bool {
	w, ok := c.string2d(args[0])
	if !ok {
		c.w.Error(errGeoWidth)
		return false
	}
	h, ok := c.string2d(args[1])
	if !ok {
		c.w.Error(errGeoHeight)
		return false
	}
	if h < 0 || w < 0 {
		c.w.Error(errGeoNegBox)
		return false
	}
	shape.Width, shape.Height = w, h
	shape.Conversion = unitArg(c, args[2])
	return shape.Conversion != 0
}

// memberPosition decodes a member's position into the shape's centre.
func memberPosition(z *store.ZSet, member []byte, shape *store.GeoShape) bool {
	score, ok := z.Score(member)
	if ok {
		shape.Lon, shape.Lat = store.GeoDecode(score)
	}
	return ok
}

// GEOADD key [NX|XX] [CH] lon lat member ...: the coordinates become the
// scores of a ZADD with the same options.
func cmdGeoAdd(c *Client, args [][]byte) {
	var f zaddFlags
	i := 2
options:
	for ; i < len(args); i++ {
		switch opt := args[i]; {
		case eqFold(opt, "nx"):
			f.NX = true
		case eqFold(opt, "xx"):
			f.XX = true
		case eqFold(opt, "ch"):
			f.ch = true
		default:
			break options
		}
	}
	if (len(args)-i)%3 != 0 || f.NX && f.XX {
		c.w.Error(errSyntax)
		return
	}
	n := (len(args) - i) / 3
	members := make([]store.ScoredMember, n)
	for j := range n {
		at := i + 3*j
		lon, lat, ok := lonLatArgs(c, args[at:at+2])
		if !ok {
			return
		}
		members[j] = store.ScoredMember{Score: store.GeoEncode(lon, lat), Member: args[at+2]}
	}
	if c.srv.propagating() {
		// Logged as the ZADD it is, as Redis's geoaddCommand rewrites itself.
		logged := append([][]byte{[]byte("zadd")}, args[1:i]...)
		for _, m := range members {
			logged = append(logged, strconv.AppendInt(nil, int64(m.Score), 10), m.Member)
		}
		c.logAs(logged...)
	}
	zadd(c, args[1], f, members)
}

func cmdGeoDist(c *Client, args [][]byte) {
	toMeters := 1.0
	switch {
	case len(args) == 5:
		if toMeters = unitArg(c, args[4]); toMeters == 0 {
			return
		}
	case len(args) > 5:
		c.w.Error(errSyntax)
		return
	}
	z := valueOrReply[*store.ZSet](c, args[1], replyNull)
	if z == nil {
		return
	}
	s1, ok1 := z.Score(args[2])
	s2, ok2 := z.Score(args[3])
	if !ok1 || !ok2 {
		c.w.Null()
		return
	}
	lon1, lat1 := store.GeoDecode(s1)
	lon2, lat2 := store.GeoDecode(s2)
	c.w.BulkString(geoDistance(store.GeoDistance(lon1, lat1, lon2, lat2) / toMeters))
}

// geoDistance formats a distance with four decimals, rounding half to
// even as Redis's fixedpoint_d2string (llrint) does.
func geoDistance(d float64) string {
	if d == 0 {
		return "0.0000"
	}
	n := int64(math.RoundToEven(d * 10000))
	neg := n < 0
	if neg {
		n = -n
	}
	s := fmt.Sprintf("%05d", n)
	s = s[:len(s)-4] + "." + s[len(s)-4:]
	if neg {
		s = "-" + s
	}
	return s
}

// eachGeoMember answers an array with one entry per member argument of
// GEOHASH or GEOPOS: missing() for a member (or key) that is not there,
// found(score) for one that is.
func eachGeoMember(c *Client, args [][]byte, missing func(), found func(score float64)) {
	z, ok := valueAs[*store.ZSet](c, args[1])
	if !ok {
		return
	}
	c.w.Array(len(args) - 2)
	for _, m := range args[2:] {
		var score float64
		if z != nil {
			score, ok = z.Score(m)
		}
		if z == nil || !ok {
			missing()
			continue
		}
		found(score)
	}
}

func cmdGeoHash(c *Client, args [][]byte) {
	eachGeoMember(c, args, c.w.Null, func(score float64) { c.w.BulkString(store.GeoHashString(score)) })
}

func cmdGeoPos(c *Client, args [][]byte) {
	eachGeoMember(c, args, c.w.NullArray, func(score float64) {
		lon, lat := store.GeoDecode(score)
		c.w.Array(2)
		replyHumanDouble(c, lon)
		replyHumanDouble(c, lat)
	})
}

// humanDouble formats f as Redis's ld2string in LD_STR_HUMAN mode: "%.17Lf"
// without trailing zeros (13.36138933897018433), "-0" as "0".
func humanDouble(f float64) string {
	s := strconv.FormatFloat(f, 'f', 17, 64)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// replyHumanDouble is Redis's addReplyHumanLongDouble: a bulk string on
// RESP2, a RESP3 double with the same text on RESP3.
func replyHumanDouble(c *Client, f float64) {
	if c.w.Proto() != 3 {
		c.w.BulkString(humanDouble(f))
		return
	}
	if w, ok := c.w.(*resp.Writer); ok {
		w.DoubleText(humanDouble(f))
		return
	}
	c.w.Double(f) // a script keeps the number, which the text round-trips to
}

// geoSearchKind selects a georadiusGeneric variant.
type geoSearchKind uint8

const (
	geoFromCoords  geoSearchKind = 1 << iota // GEORADIUS: lon lat radius unit
	geoFromMember                            // GEORADIUSBYMEMBER: member radius unit
	geoNoStore                               // the _RO variants
	geoSearch                                // GEOSEARCH: FROM.../BY... options
	geoSearchStore                           // GEOSEARCHSTORE: a destination first
)

func cmdGeoRadius(c *Client, args [][]byte)   { geoRadius(c, args, 1, geoFromCoords) }
func cmdGeoRadiusRO(c *Client, args [][]byte) { geoRadius(c, args, 1, geoFromCoords|geoNoStore) }
func cmdGeoRadiusByMember(c *Client, args [][]byte) {
	geoRadius(c, args, 1, geoFromMember)
}
func cmdGeoRadiusByMemberRO(c *Client, args [][]byte) {
	geoRadius(c, args, 1, geoFromMember|geoNoStore)
}
func cmdGeoSearch(c *Client, args [][]byte) { geoRadius(c, args, 1, geoSearch) }
func cmdGeoSearchStore(c *Client, args [][]byte) {
	geoRadius(c, args, 2, geoSearch|geoSearchStore)
}

// geoPoint is one search result.
type geoPoint struct {
	member         []byte
	lon, lat, dist float64
	score          float64
}

// geoOptions are a search's options (georadiusGeneric's locals).
type geoOptions struct {
	withDist, withHash, withCoord bool
	fromMember, fromLonLat        bool
	byRadius, byBox               bool
	sort                          int // 0 none, 1 ascending, -1 descending
	any                           bool
	count                         int64
	storeKey                      []byte
	storeDist                     bool
}

// geoRadius is Redis's georadiusGeneric: every variant of the search, with
// its argument rules, the cells it scans, the order it finds members in
// (which is the reply's order without ASC or DESC) and its sorts.
func geoRadius(c *Client, args [][]byte, srcIdx int, kind geoSearchKind) {
	z, ok := valueAs[*store.ZSet](c, args[srcIdx])
	if !ok {
		return
	}
	var shape store.GeoShape
	var o geoOptions
	base := 0
	switch {
	case kind&geoFromCoords != 0:
		base = 6
		if shape.Lon, shape.Lat, ok = lonLatArgs(c, args[2:4]); !ok {
			return
		}
		if !distanceArgs(c, args[4:6], &shape) {
			return
		}
	case kind&geoFromMember != 0:
		base = 5
		if z != nil {
			// Without the key, parsing goes on to pick the reply.
			if !memberPosition(z, args[2], &shape) {
				c.w.Error(errGeoMember)
				return
			}
			if !distanceArgs(c, args[3:5], &shape) {
				return
			}
		}
	default:
		base = 2
		if kind&geoSearchStore != 0 {
			base = 3
			o.storeKey = args[1]
		}
	}
	if !parseGeoOptions(c, args, base, kind, z, &shape, &o) {
		return
	}
	if o.storeKey != nil && (o.withDist || o.withHash || o.withCoord) {
		what := "STORE option in GEORADIUS"
		if kind&geoSearchStore != 0 {
			what = "GEOSEARCHSTORE"
		}
		c.errorf(errGeoStoreWith, what)
		return
	}
	if kind&geoSearch != 0 && !o.fromMember && !o.fromLonLat {
		c.errorf(errGeoFrom, args[0])
		return
	}
	if kind&geoSearch != 0 && !o.byRadius && !o.byBox {
		c.errorf(errGeoBy, args[0])
		return
	}
	if o.any && o.count == 0 {
		c.w.Error(errGeoAnyNeedCount)
		return
	}
	if z == nil {
		if o.storeKey != nil {
			if c.db.Delete(o.storeKey) {
				c.notify(notifyGeneric, "del", o.storeKey)
			}
			c.w.Int(0)
		} else {
			c.w.Array(0)
		}
		return
	}
	// COUNT picks the nearest members unless ANY says any will do.
	if o.count != 0 && o.sort == 0 && !o.any {
		o.sort = 1
	}
	var limit int64
	if o.any {
		limit = o.count
	}
	points := geoScan(z, &shape, limit)
	if len(points) == 0 && o.storeKey == nil {
		c.w.Array(0)
		return
	}
	returned := len(points)
	if o.count != 0 && int64(returned) > o.count {
		returned = int(o.count)
	}
	if o.sort != 0 {
		less := func(a, b *geoPoint) int {
			switch {
			case a.dist > b.dist:
				return o.sort
			case a.dist < b.dist:
				return -o.sort
			}
			return 0
		}
		if returned == len(points) {
			// glibc's qsort is a merge sort: equal distances keep their order.
			sort.SliceStable(points, func(i, j int) bool { return less(&points[i], &points[j]) < 0 })
		} else {
			partialSort(points, returned-1, less)
		}
	}
	points = points[:returned]
	for i := range points {
		points[i].dist /= shape.Conversion
	}
	if o.storeKey != nil {
		geoStore(c, o.storeKey, points, o.storeDist)
		return
	}
	geoReply(c, points, &o)
}

// parseGeoOptions reads the options after base, as georadiusGeneric does:
// errors are answered in the order the arguments come.
func parseGeoOptions(c *Client, args [][]byte, base int, kind geoSearchKind, z *store.ZSet, shape *store.GeoShape, o *geoOptions) bool {
	rest := args[base:]
	search := kind&geoSearch != 0
	for i := 0; i < len(rest); i++ {
		left := len(rest) - i - 1 // arguments after this one
		switch arg := rest[i]; {
		case eqFold(arg, "withdist"):
			o.withDist = true
		case eqFold(arg, "withhash"):
			o.withHash = true
		case eqFold(arg, "withcoord"):
			o.withCoord = true
		case eqFold(arg, "any"):
			o.any = true
		case eqFold(arg, "asc"):
			o.sort = 1
		case eqFold(arg, "desc"):
			o.sort = -1
		case eqFold(arg, "count") && left >= 1:
			n, ok := intArg(c, rest[i+1])
			if !ok {
				return false
			}
			if n <= 0 {
				c.w.Error(errGeoCount)
				return false
			}
			o.count = n
			i++
		case (eqFold(arg, "store") || eqFold(arg, "storedist")) && left >= 1 && kind&(geoNoStore|geoSearch) == 0:
			o.storeKey, o.storeDist = rest[i+1], eqFold(arg, "storedist")
			i++
		case eqFold(arg, "storedist") && kind&geoSearchStore != 0:
			o.storeDist = true
		case eqFold(arg, "frommember") && left >= 1 && search && !o.fromLonLat:
			if z != nil && !memberPosition(z, rest[i+1], shape) {
				c.w.Error(errGeoMember)
				return false
			}
			o.fromMember = true
			i++
		case eqFold(arg, "fromlonlat") && left >= 2 && search && !o.fromMember:
			var ok bool
			if shape.Lon, shape.Lat, ok = lonLatArgs(c, rest[i+1:i+3]); !ok {
				return false
			}
			o.fromLonLat = true
			i += 2
		case eqFold(arg, "byradius") && left >= 2 && search && !o.byBox:
			if !distanceArgs(c, rest[i+1:i+3], shape) {
				return false
			}
			shape.Box, o.byRadius = false, true
			i += 2
		case eqFold(arg, "bybox") && left >= 3 && search && !o.byRadius:
			if !boxArgs(c, rest[i+1:i+4], shape) {
				return false
			}
			shape.Box, o.byBox = true, true
			i += 3
		default:
			c.w.Error(errSyntax)
			return false
		}
	}
	return true
}

// geoScan collects the members in the shape, cell by cell in Redis's
// order, stopping at limit results when limit > 0 (COUNT ... ANY).
func geoScan(z *store.ZSet, shape *store.GeoShape, limit int64) []geoPoint {
	var points []geoPoint
	full := func() bool { return limit > 0 && int64(len(points)) >= limit }
	for _, r := range shape.Ranges() {
		if len(points) > 0 && full() {
			break
		}
		z.Ascend(z.ScoreBound(r.Min, false), func(member []byte, score float64) bool {
			if score >= r.Max {
				return false
			}
			if lon, lat, dist, ok := shape.Contains(score); ok {
				points = append(points, geoPoint{member: member, lon: lon, lat: lat, dist: dist, score: score})
			}
			return !full()
		})
	}
	return points
}

func geoReply(c *Client, points []geoPoint, o *geoOptions) {
	extra := 0
	for _, on := range []bool{o.withDist, o.withHash, o.withCoord} {
		if on {
			extra++
		}
	}
	c.w.Array(len(points))
	for _, p := range points {
		if extra > 0 {
			c.w.Array(extra + 1)
		}
		c.w.Bulk(p.member)
		if o.withDist {
			c.w.BulkString(geoDistance(p.dist))
		}
		if o.withHash {
			c.w.Int(int64(p.score))
		}
		if o.withCoord {
			c.w.Array(2)
			replyHumanDouble(c, p.lon)
			replyHumanDouble(c, p.lat)
		}
	}
}

// geoStore writes the results as a sorted set scored by geohash or, with
// STOREDIST, by distance; no results delete the destination.
func geoStore(c *Client, key []byte, points []geoPoint, byDist bool) {
	if len(points) == 0 {
		if c.db.Delete(key) {
			c.notify(notifyGeneric, "del", key)
		}
		c.w.Int(0)
		return
	}
	z := store.NewZSet()
	for _, p := range points {
		score := p.score
		if byDist {
			score = p.dist
		}
		z.Add(p.member, score, c.db.Encodings())
	}
	setKey(c, key, z)
	event := "georadiusstore"
	if c.cmd.Name == "geosearchstore" {
		event = "geosearchstore"
	}
	c.notify(notifyZSet, event, key)
	c.w.Int(int64(len(points)))
}

// partialSort orders points so that those at positions 0..last are the
// smallest in order, as Redis's pqsort (Bentley and McIlroy's quicksort,
// skipping partitions outside the range) leaves them: members at equal
// distances come out in the order this algorithm gives them.
func partialSort(p []geoPoint, last int, cmp func(a, b *geoPoint) int) {
	var sortRange func(lo, n int)
	med3 := func(a, b, c int) int {
		if cmp(&p[a], &p[b]) < 0 {
			if cmp(&p[b], &p[c]) < 0 {
				return b
			}
			if cmp(&p[a], &p[c]) < 0 {
				return c
			}
			return a
		}
		if cmp(&p[b], &p[c]) > 0 {
			return b
		}
		if cmp(&p[a], &p[c]) < 0 {
			return a
		}
		return c
	}
	swapBlocks := func(a, b, n int) {
		for k := 0; k < n; k++ {
			p[a+k], p[b+k] = p[b+k], p[a+k]
		}
	}
	// overlaps reports whether elements [lo, lo+n) meet [0, last].
	overlaps := func(lo, n int) bool { return !(last < lo || 0 >= lo+n) }
	sortRange = func(lo, n int) {
		for {
			if n < 7 {
				for m := lo + 1; m < lo+n; m++ {
					for l := m; l > lo && cmp(&p[l-1], &p[l]) > 0; l-- {
						p[l], p[l-1] = p[l-1], p[l]
					}
				}
				return
			}
			pm := lo + n/2
			if n > 7 {
				pl, pn := lo, lo+n-1
				if n > 40 {
					d := n / 8
					pl = med3(pl, pl+d, pl+2*d)
					pm = med3(pm-d, pm, pm+d)
					pn = med3(pn-2*d, pn-d, pn)
				}
				pm = med3(pl, pm, pn)
			}
			p[lo], p[pm] = p[pm], p[lo]
			pa, pb := lo+1, lo+1
			pc, pd := lo+n-1, lo+n-1
			for {
				for pb <= pc {
					r := cmp(&p[pb], &p[lo])
					if r > 0 {
						break
					}
					if r == 0 {
						p[pa], p[pb] = p[pb], p[pa]
						pa++
					}
					pb++
				}
				for pb <= pc {
					r := cmp(&p[pc], &p[lo])
					if r < 0 {
						break
					}
					if r == 0 {
						p[pc], p[pd] = p[pd], p[pc]
						pd--
					}
					pc--
				}
				if pb > pc {
					break
				}
				p[pb], p[pc] = p[pc], p[pb]
				pb++
				pc--
			}
			pn := lo + n
			r := min(pa-lo, pb-pa)
			swapBlocks(lo, pb-r, r)
			r = min(pd-pc, pn-pd-1)
			swapBlocks(pb, pn-r, r)
			if r := pb - pa; r > 1 && overlaps(lo, r) {
				sortRange(lo, r)
			}
			r = pd - pc
			if r <= 1 {
				return
			}
			lo, n = pn-r, r
			if !overlaps(lo, n) {
				return
			}
		}
	}
	sortRange(0, len(p))
}
