package server

import (
	"crypto/sha1"
	"encoding/binary"
	"math"
	"strconv"

	"github.com/floodgate/floodgate/store"
)

// DEBUG DIGEST and DIGEST-VALUE, as Redis 7.0's debug.c computes them, so
// that a dataset's digest is the same on floodgate and on Redis: the
// tests that compare a server with its replica or with itself after a
// reload read it. Unordered things (keys, set members, hash fields, sorted
// set members) are xored together; ordered ones (list elements, stream
// entries) are mixed in with feedback.

// xorDigest is Redis's xorDigest: digest ^= SHA1(data).
func xorDigest(digest *[20]byte, data []byte) {
	h := sha1.Sum(data)
	for i := range digest {
		digest[i] ^= h[i]
	}
}

// mixDigest is Redis's mixDigest: digest = SHA1(digest ^ SHA1(data)).
func mixDigest(digest *[20]byte, data []byte) {
	xorDigest(digest, data)
	*digest = sha1.Sum(digest[:])
}

// Redis's object type numbers (OBJ_STRING...), which the digest mixes in.
const (
	objString = 0
	objList   = 1
	objSet    = 2
	objZSet   = 3
	objHash   = 4
	objStream = 6
)

// digestScore is a sorted set score as the digest prints it: "%.17g".
func digestScore(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	}
	return strconv.AppendFloat(b, f, 'g', 17, 64)
}

// objectDigest is xorObjectDigest: e's type, its value, and whether it
// has an expiry, mixed into digest in that order.
func objectDigest(digest *[20]byte, db *store.DB, e *store.Entry) {
	v := e.Value()
	var aux [4]byte
	binary.BigEndian.PutUint32(aux[:], objectTypeNumber(v)) // htonl
	mixDigest(digest, aux[:])
	var buf []byte
	switch v := v.(type) {
	case *store.String:
		mixDigest(digest, v.Bytes())
	case *store.List:
		v.Range(0, v.Len()-1, func(el []byte) bool { mixDigest(digest, el); return true })
	case *store.Set:
		for _, m := range v.Members() {
			xorDigest(digest, []byte(m))
		}
	case *store.ZSet:
		v.Ascend(0, func(m []byte, score float64) bool {
			var ele [20]byte
			mixDigest(&ele, m)
			buf = digestScore(buf[:0], score)
			mixDigest(&ele, buf)
			xorDigest(digest, ele[:])
			return true
		})
	case *store.Hash:
		for name, value := range v.All() {
			var ele [20]byte
			mixDigest(&ele, []byte(name))
			mixDigest(&ele, []byte(value))
			xorDigest(digest, ele[:])
		}
	case *store.Stream:
		it := v.Iter(store.StreamID{}, store.MaxStreamID, false)
		for id, ok := it.Next(); ok; id, ok = it.Next() {
			// sdscatfmt's "%U.%U": the ID with a dot.
			buf = strconv.AppendUint(append(strconv.AppendUint(buf[:0], id.Ms, 10), '.'), id.Seq, 10)
			mixDigest(digest, buf)
			it.EachField(func(field, value []byte) {
				mixDigest(digest, field)
				mixDigest(digest, value)
			})
		}
	}
	if db.ExpireAt(e) != 0 {
		xorDigest(digest, []byte("!!expire!!"))
	}
}

// objectTypeNumber is v's OBJ_* type number.
func objectTypeNumber(v store.Value) uint32 {
	switch v.(type) {
	case *store.List:
		return objList
	case *store.Set:
		return objSet
	case *store.ZSet:
		return objZSet
	case *store.Hash:
		return objHash
	case *store.Stream:
		return objStream
	}
	return objString
}

// datasetDigest is computeDatasetDigest: for each database that has keys
// its index mixed in, then the xor of every key's digest (the key mixed
// with its value's digest).
func datasetDigest(s *store.Store) [20]byte {
	var final [20]byte
	for i := range s.Databases() {
		db := s.DB(i)
		if db.Len() == 0 {
			continue
		}
		var aux [4]byte
		binary.BigEndian.PutUint32(aux[:], uint32(i))
		mixDigest(&final, aux[:])
		db.Each(func(e *store.Entry) {
			var d [20]byte
			mixDigest(&d, []byte(e.Key()))
			objectDigest(&d, db, e)
			xorDigest(&final, d[:])
		})
	}
	return final
}
