package conformance

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

const sicily = "GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 13.583333 37.316667 Agrigento 12.758489 38.788135 edge1 17.241510 38.788135 edge2"

// TestGeo covers the geo commands on the examples of Redis's documentation
// and their error paths.
func TestGeo(t *testing.T) {
	runCases(t, []tcase{
		{"geoadd", []string{
			"GEOADD k 13.361389 38.115556 Palermo", "GEOADD k 13.361389 38.115556 Palermo 15.087269 37.502669 Catania",
			"ZRANGE k 0 -1 WITHSCORES", "GEOADD k NX 1 1 Palermo 2 2 new", "GEOADD k XX 1 1 Palermo 3 3 new2", "GEOADD k CH 1 1 Palermo 5 5 z",
			"GEOADD k XX CH 2 2 Palermo", "GEOADD k ch xx nx 1 1 a", "GEOADD k NX XX 1 1 a", "GEOADD k 1 1", "GEOADD k 1 1 a 2",
			"GEOADD k NX 1 1", "GEOADD k CH NX 1 1 a b", "GEOADD k GT 1 1 a", "GEOADD k 200 1 a", "GEOADD k 1 86 a", "GEOADD k -180 -85.05112878 a",
			"GEOADD k 180 85.05112878 b", "GEOADD k 180.0000001 0 a", "GEOADD k 0 -85.05112879 a", "GEOADD k x 1 a", "GEOADD k 1 y a",
			"GEOADD k inf 1 a", "GEOADD k 1 -inf a", "GEOADD k nan 1 a", "GEOADD k 1e400 1 a", "GEOADD k 1e300 1 a", "GEOADD k ' 1' 1 a",
			"GEOADD k 0x10 0 hex", "GEOADD k 1 1 ok 500 1 bad", "ZCARD k", "GEOADD k", "GEOADD k 1 2", "ZRANGE k 0 -1 WITHSCORES",
			"SET s x", "GEOADD s 1 1 a", "GEOADD s 500 1 a", "GEOADD nokey XX 1 1 a", "EXISTS nokey", "GEOADD k -0 -0 zero", "ZSCORE k zero",
			"OBJECT ENCODING k",
		}},
		{"geopos geohash geodist", []string{
			sicily, "GEOPOS Sicily Palermo Catania NonExisting", "GEOPOS Sicily", "GEOPOS nokey a b", "GEOPOS nokey",
			"GEOHASH Sicily Palermo Catania Agrigento edge1 edge2 nope", "GEOHASH Sicily", "GEOHASH nokey a",
			"GEODIST Sicily Palermo Catania", "GEODIST Sicily Palermo Catania km", "GEODIST Sicily Palermo Catania MI",
			"GEODIST Sicily Palermo Catania ft", "GEODIST Sicily Palermo Catania M", "GEODIST Sicily Palermo Palermo",
			"GEODIST Sicily Palermo nope", "GEODIST nokey a b", "GEODIST Sicily Palermo Catania yards", "GEODIST Sicily Palermo Catania km x",
			"GEODIST nokey a b yards", "GEODIST Sicily a", "SET s x", "GEOPOS s a", "GEOHASH s a", "GEODIST s a b", "GEODIST s a b yards",
			"GEOADD p 180 85.05112878 ne -180 -85.05112878 sw 0 0 origin -0.0001 -0.0001 negsmall 179.9999 0 east",
			"GEOPOS p ne sw origin negsmall east", "GEOHASH p ne sw origin negsmall east", "GEODIST p ne sw", "GEODIST p origin east km",
			"ZADD p 0 zeroscore 4503599627370495 maxscore 9007199254740992 toobig -1 negative 1.5 fraction",
			"GEOPOS p zeroscore maxscore toobig negative fraction", "GEOHASH p zeroscore maxscore toobig negative fraction",
			"GEODIST p zeroscore maxscore", "GEODIST p negative fraction",
		}},
		{"georadius", []string{
			sicily,
			"GEORADIUS Sicily 15 37 200 km WITHDIST", "GEORADIUS Sicily 15 37 200 km WITHCOORD", "GEORADIUS Sicily 15 37 200 km WITHDIST WITHCOORD WITHHASH",
			"GEORADIUS Sicily 15 37 200 km", "GEORADIUS Sicily 15 37 200 km ASC", "GEORADIUS Sicily 15 37 200 km DESC",
			"GEORADIUS Sicily 15 37 200 km COUNT 1", "GEORADIUS Sicily 15 37 200 km COUNT 1 DESC", "GEORADIUS Sicily 15 37 500 km COUNT 2 ANY",
			"GEORADIUS Sicily 15 37 500 km COUNT 2 ANY DESC", "GEORADIUS Sicily 15 37 1 m", "GEORADIUS Sicily 15 37 0 km",
			"GEORADIUS Sicily 15 37 200 mi WITHDIST", "GEORADIUS Sicily 15 37 200000 ft WITHDIST", "GEORADIUS Sicily 15 37 1e9 km WITHDIST",
			"GEORADIUS Sicily 15 37 200 km STORE dst", "ZRANGE dst 0 -1 WITHSCORES", "GEORADIUS Sicily 15 37 200 km STOREDIST dst",
			"ZRANGE dst 0 -1 WITHSCORES", "GEORADIUS Sicily 15 37 200 km STORE dst STOREDIST dst2", "EXISTS dst dst2",
			"GEORADIUS Sicily 15 37 1 m STORE dst", "EXISTS dst", "GEORADIUS nokey 15 37 1 m STORE Sicily", "EXISTS Sicily",
			sicily, "GEORADIUS nokey 15 37 200 km", "GEORADIUS nokey 200 37 200 km", "GEORADIUS nokey 15 37 200 yd", "GEORADIUS nokey 15 37 200 km BAD",
			"GEORADIUS Sicily 15 37 200 km STORE dst WITHDIST", "GEORADIUS Sicily 15 37 200 km WITHHASH STOREDIST dst",
			"GEORADIUS Sicily 15 37 200 km ANY", "GEORADIUS Sicily 15 37 200 km COUNT 0", "GEORADIUS Sicily 15 37 200 km COUNT -1",
			"GEORADIUS Sicily 15 37 200 km COUNT x", "GEORADIUS Sicily 15 37 200 km COUNT", "GEORADIUS Sicily 15 37 200 km STORE",
			"GEORADIUS Sicily 15 37 x km", "GEORADIUS Sicily 15 37 -1 km", "GEORADIUS Sicily 15 37 200 yards", "GEORADIUS Sicily x 37 200 km",
			"GEORADIUS Sicily 15 91 200 km", "GEORADIUS Sicily 15 37 200 km FROMMEMBER Palermo", "GEORADIUS Sicily 15 37 200 km BYBOX 1 1 km",
			"GEORADIUS Sicily 15 37 200", "GEORADIUS Sicily 15 37 200 km count 1 any asc withdist", "GEORADIUS Sicily 15 37 inf km",
			"GEORADIUS Sicily 15 37 nan km", "SET s x", "GEORADIUS s 15 37 200 km", "GEORADIUS s 500 37 200 km", "GEORADIUS s 15 37 200 km STORE d",
			"GEORADIUS Sicily 15 37 200 km STORE s", "TYPE s",
		}},
		{"georadius_ro and bymember", []string{
			sicily, "GEOADD Sicily 13.583333 37.316667 Agrigento", "GEORADIUS_RO Sicily 15 37 200 km WITHDIST ASC",
			"GEORADIUS_RO Sicily 15 37 200 km STORE dst", "GEORADIUS_RO Sicily 15 37 200 km STOREDIST dst", "GEORADIUS_RO nokey 15 37 200 km",
			"GEORADIUSBYMEMBER Sicily Agrigento 100 km", "GEORADIUSBYMEMBER Sicily Agrigento 100 km WITHDIST WITHCOORD DESC",
			"GEORADIUSBYMEMBER Sicily Palermo 0 km WITHDIST", "GEORADIUSBYMEMBER Sicily nope 100 km", "GEORADIUSBYMEMBER Sicily nope -100 km",
			"GEORADIUSBYMEMBER Sicily Agrigento -100 km", "GEORADIUSBYMEMBER Sicily Agrigento x km", "GEORADIUSBYMEMBER Sicily Agrigento 1 yd",
			"GEORADIUSBYMEMBER nokey nope 100 km", "GEORADIUSBYMEMBER nokey nope x yd WITHDIST", "GEORADIUSBYMEMBER nokey nope 1 km STORE Sicily",
			"EXISTS Sicily", sicily, "GEORADIUSBYMEMBER nokey nope 1 km BAD", "GEORADIUSBYMEMBER nokey nope 1 km ANY", "GEORADIUSBYMEMBER nokey nope 1 km STORE d WITHDIST",
			"GEORADIUSBYMEMBER Sicily Palermo 200 km STORE dst", "ZRANGE dst 0 -1 WITHSCORES", "GEORADIUSBYMEMBER Sicily Palermo 200 km STOREDIST dst COUNT 2",
			"ZRANGE dst 0 -1 WITHSCORES", "GEORADIUSBYMEMBER_RO Sicily Palermo 200 km WITHHASH", "GEORADIUSBYMEMBER_RO Sicily Palermo 200 km STORE x",
			"GEORADIUSBYMEMBER_RO nokey Palermo 200 km", "GEORADIUSBYMEMBER_RO Sicily nope 200 km", "SET s x", "GEORADIUSBYMEMBER s a 1 km",
			"GEORADIUSBYMEMBER_RO s a 1 km", "GEORADIUSBYMEMBER Sicily Palermo 200 km STORE s", "TYPE s",
		}},
		{"geosearch", []string{
			sicily,
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km ASC", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km ASC WITHCOORD WITHDIST",
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km", "GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 200 km WITHDIST",
			"GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 1000 1000 km DESC COUNT 2 WITHHASH", "GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 1000 1000 km COUNT 3 ANY",
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 0 0 km", "GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 0 0 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 10 mi",
			"GEOSEARCH Sicily frommember Catania byradius 100 KM withdist", "GEOSEARCH Sicily BYRADIUS 200 km FROMLONLAT 15 37",
			"GEOSEARCH Sicily FROMLONLAT 15 37", "GEOSEARCH Sicily BYRADIUS 200 km", "GEOSEARCH Sicily FROMLONLAT 15 37 FROMMEMBER Palermo BYRADIUS 1 km",
			"GEOSEARCH Sicily FROMMEMBER Palermo FROMLONLAT 15 37 BYRADIUS 1 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km BYBOX 1 1 km",
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1 km BYRADIUS 1 km", "GEOSEARCH Sicily FROMMEMBER nope BYRADIUS 1 km",
			"GEOSEARCH nokey FROMMEMBER nope BYRADIUS 1 km", "GEOSEARCH nokey FROMLONLAT 500 1 BYRADIUS 1 km", "GEOSEARCH nokey FROMLONLAT 1 1 BYRADIUS 1 yd",
			"GEOSEARCH nokey FROMLONLAT 1 1 BYRADIUS 1 km", "geosearch nokey FROMLONLAT 1 1 COUNT 1", "geoSearch nokey BYRADIUS 1 km WITHDIST",
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX -1 1 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX x 1 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 y km",
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX x y km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1 yd", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1",
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1", "GEOSEARCH Sicily FROMLONLAT 15 BYRADIUS 1 km", "GEOSEARCH Sicily FROMMEMBER",
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km STORE d", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km STOREDIST",
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km ANY", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km COUNT 0",
			"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS x km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS -1 km", "SET s x",
			"GEOSEARCH s FROMLONLAT 15 37 BYRADIUS 200 km", "GEOSEARCH s FROMLONLAT 500 37 BYRADIUS 200 km",
		}},
		{"geosearchstore", []string{
			sicily,
			"GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYBOX 400 400 km ASC COUNT 3", "ZRANGE dst 0 -1 WITHSCORES",
			"GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYBOX 400 400 km ASC COUNT 3 STOREDIST", "ZRANGE dst 0 -1 WITHSCORES",
			"GEOSEARCHSTORE dst Sicily FROMMEMBER Palermo BYRADIUS 300 km storedist", "ZRANGE dst 0 -1 WITHSCORES",
			"GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 1 m", "EXISTS dst", "GEOSEARCHSTORE dst nokey FROMLONLAT 15 37 BYRADIUS 1 m",
			"SET dst x EX 100", "GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 200 km", "TTL dst", "TYPE dst",
			"GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 200 km WITHDIST", "GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 200 km WITHCOORD",
			"GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 200 km STORE x", "GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 200 km STOREDIST x",
			"GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37", "GEOSEARCHSTORE dst Sicily BYRADIUS 1 km", "geosearchstore dst Sicily BYRADIUS 1 km COUNT 1",
			"GEOSEARCHSTORE Sicily Sicily FROMLONLAT 15 37 BYRADIUS 200 km STOREDIST", "ZRANGE Sicily 0 -1 WITHSCORES",
			"SET s x", "GEOSEARCHSTORE dst s FROMLONLAT 15 37 BYRADIUS 200 km", "GEOSEARCHSTORE s Sicily FROMLONLAT 15 37 BYRADIUS 200 km", "TYPE s",
		}},
		{"ties", []string{
			// Members at one position tie on distance: the order of
			// full sorts (stable) and COUNT's partial sort must be Redis's.
			"GEOADD t 10 10 a 10 10 b 10 10 c 10 10 d 10 10 e 10 10 f 10 10 g 10 10 h 10.001 10 i 10.001 10 j 9.999 10 k 9.999 10 l",
			"GEOSEARCH t FROMLONLAT 10 10 BYRADIUS 1 km", "GEOSEARCH t FROMLONLAT 10 10 BYRADIUS 1 km ASC", "GEOSEARCH t FROMLONLAT 10 10 BYRADIUS 1 km DESC",
			"GEOSEARCH t FROMLONLAT 10 10 BYRADIUS 1 km COUNT 3", "GEOSEARCH t FROMLONLAT 10 10 BYRADIUS 1 km COUNT 7", "GEOSEARCH t FROMLONLAT 10 10 BYRADIUS 1 km COUNT 11 DESC",
			"GEOSEARCH t FROMLONLAT 10 10 BYRADIUS 1 km COUNT 5 ANY", "GEOSEARCH t FROMLONLAT 10 10 BYRADIUS 1 km COUNT 5 ANY DESC",
			"GEOSEARCH t FROMLONLAT 10.0005 10 BYRADIUS 1 km COUNT 9 WITHDIST",
		}},
		{"command getkeys", []string{
			"COMMAND GETKEYS GEORADIUS k 1 1 1 km STORE d STOREDIST e", "COMMAND GETKEYS GEORADIUS k 1 1 1 km store d store e",
			"COMMAND GETKEYS GEORADIUS k 1 1 1 km WITHDIST STORE", "COMMAND GETKEYS GEORADIUS k 1 1 1 km", "COMMAND GETKEYS GEORADIUS k store 1 1 km store x",
			"COMMAND GETKEYS GEORADIUSBYMEMBER k m 1 km STOREDIST d", "COMMAND GETKEYS GEORADIUSBYMEMBER k store 1 km", "COMMAND GETKEYS GEORADIUS_RO k 1 1 1 km STORE d",
			"COMMAND GETKEYS GEOSEARCHSTORE d s FROMMEMBER m BYRADIUS 1 km", "COMMAND GETKEYS GEOSEARCH s FROMMEMBER m BYRADIUS 1 km",
			"COMMAND GETKEYS GEOADD k 1 1 m", "COMMAND GETKEYS GEOPOS k m", "COMMAND GETKEYS BITOP AND d a b c", "COMMAND GETKEYS PFCOUNT a b c",
			"COMMAND GETKEYS PFMERGE d a b", "COMMAND GETKEYS BITFIELD k GET u8 0", "COMMAND GETKEYS PFDEBUG GETREG k", "COMMAND GETKEYS PFSELFTEST",
		}},
		manyTies(),
		{"multi and scripts", []string{
			"MULTI", sicily, "GEOPOS Sicily Palermo", "GEODIST Sicily Palermo Catania", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km WITHCOORD",
			"GEOADD Sicily 500 1 bad", "EXEC",
			"EVAL \"return redis.call('GEOPOS', KEYS[1], 'Palermo')\" 1 Sicily",
			"EVAL \"redis.setresp(3) return redis.call('GEOPOS', KEYS[1], 'Palermo')\" 1 Sicily",
			"EVAL \"return redis.call('GEOSEARCH', KEYS[1], 'FROMLONLAT', 15, 37, 'BYRADIUS', 200, 'km', 'WITHDIST', 'WITHCOORD', 'ASC')\" 1 Sicily",
			"EVAL \"return redis.pcall('GEOADD', KEYS[1], 500, 1, 'x')\" 1 Sicily",
			"EVAL \"return redis.pcall('GEOSEARCH', KEYS[1], 'BYRADIUS', 200, 'km')\" 1 Sicily",
			"EVAL_RO \"return redis.call('GEORADIUS_RO', KEYS[1], 15, 37, 200, 'km')\" 1 Sicily",
			"EVAL_RO \"return redis.call('GEORADIUS', KEYS[1], 15, 37, 200, 'km')\" 1 Sicily",
			"EVAL_RO \"return redis.call('GEOADD', KEYS[1], 1, 1, 'x')\" 1 Sicily",
			"EVAL \"return redis.call('GEODIST', KEYS[1], 'Palermo', 'Catania', 'km')\" 1 Sicily",
		}},
	})
}

// TestGeoRandom scatters seeded random points (many in one small area,
// some near the poles' limits and the antimeridian, some sharing a
// position) and compares searches of every shape and option with Redis:
// the members found, their order, distances, coordinates, hashes and
// STOREDIST scores.
func TestGeoRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2026))
	coord := func() (float64, float64) {
		switch rng.IntN(6) {
		case 0: // anywhere
			return rng.Float64()*360 - 180, rng.Float64()*170.1 - 85.05
		case 1: // near the antimeridian or the latitude limits
			return 179.9 + rng.Float64()*0.1*float64(1-2*rng.IntN(2)), (84 + rng.Float64()) * float64(1-2*rng.IntN(2))
		default: // a crowded area
			return 2.3 + rng.Float64()*0.5, 48.8 + rng.Float64()*0.3
		}
	}
	f := func(x float64) string { return fmt.Sprintf("%.6f", x) }
	var setup []string
	for batch := range 4 {
		var b strings.Builder
		b.WriteString("GEOADD g")
		for i := range 150 {
			lon, lat := coord()
			fmt.Fprintf(&b, " %s %s m%d_%d", f(lon), f(lat), batch, i)
			if rng.IntN(10) == 0 { // a twin at the same place
				fmt.Fprintf(&b, " %s %s t%d_%d", f(lon), f(lat), batch, i)
			}
		}
		setup = append(setup, b.String())
	}
	lines := append([]string{}, setup...)
	// Whole-double distances match Redis's where floodgate calls the C
	// library's trigonometry (cgo); the pure-Go build rounds correctly,
	// which glibc does not always do, so there only the order is compared.
	storedScores := "ZRANGE d 0 -1 WITHSCORES"
	if !libmTrig {
		storedScores = "ZRANGE d 0 -1"
	}
	units := []string{"m", "km", "mi", "ft"}
	for range 250 {
		var from, by string
		if rng.IntN(3) == 0 {
			from = fmt.Sprintf("FROMMEMBER m%d_%d", rng.IntN(4), rng.IntN(150))
		} else {
			lon, lat := coord()
			from = "FROMLONLAT " + f(lon) + " " + f(lat)
		}
		radius := []float64{0.01, 0.5, 3, 20, 150, 3000, 15000}[rng.IntN(7)]
		unit := units[rng.IntN(len(units))]
		if rng.IntN(2) == 0 {
			by = fmt.Sprintf("BYRADIUS %g %s", radius, unit)
		} else {
			by = fmt.Sprintf("BYBOX %g %g %s", radius*2, radius*(0.5+rng.Float64()*2), unit)
		}
		opts := ""
		switch rng.IntN(5) {
		case 0:
			opts += " ASC"
		case 1:
			opts += " DESC"
		}
		switch rng.IntN(4) {
		case 0:
			opts += fmt.Sprintf(" COUNT %d", 1+rng.IntN(30))
		case 1:
			opts += fmt.Sprintf(" COUNT %d ANY", 1+rng.IntN(30))
		}
		lines = append(lines,
			"GEOSEARCH g "+from+" "+by+opts+" WITHDIST WITHCOORD WITHHASH",
			"GEOSEARCHSTORE d g "+from+" "+by+opts+" STOREDIST", storedScores)
		if rng.IntN(4) == 0 {
			lon, lat := coord()
			lines = append(lines, fmt.Sprintf("GEORADIUS g %s %s %g %s WITHDIST%s", f(lon), f(lat), radius, unit, opts))
		}
	}
	for range 100 {
		a, b := fmt.Sprintf("m%d_%d", rng.IntN(4), rng.IntN(150)), fmt.Sprintf("m%d_%d", rng.IntN(4), rng.IntN(150))
		lines = append(lines, "GEODIST g "+a+" "+b+" "+units[rng.IntN(len(units))], "GEOPOS g "+a+" "+b, "GEOHASH g "+a+" "+b)
	}
	runCases(t, []tcase{{"random", lines}})
}

// manyTies puts 70 members at one position and 30 around it, so COUNT's
// partial sort meets more than 40 equal distances (pqsort's ninther).
func manyTies() tcase {
	var b strings.Builder
	b.WriteString("GEOADD t")
	for i := range 70 {
		fmt.Fprintf(&b, " 5 5 same%02d", i)
	}
	for i := range 30 {
		fmt.Fprintf(&b, " %.4f %.4f near%02d", 5+float64(i%6-3)*0.0007, 5+float64(i/6-2)*0.0007, i)
	}
	lines := []string{b.String()}
	for _, q := range []string{"COUNT 5", "COUNT 41", "COUNT 69 DESC", "COUNT 71", "COUNT 99 DESC", "COUNT 30 ASC", "ASC", "DESC", "COUNT 10 ANY"} {
		lines = append(lines, "GEOSEARCH t FROMLONLAT 5 5 BYRADIUS 1 km "+q)
		lines = append(lines, "GEOSEARCH t FROMLONLAT 5.0003 5.0002 BYBOX 1 1 km WITHDIST "+q)
	}
	return tcase{"many ties", lines}
}
