package luaengine

import "github.com/floodgate/floodgate/internal/jemalloc"

// Scripts returns how many scripts the cache holds (INFO's
// number_of_cached_scripts).
func (e *Engine) Scripts() int { return len(e.scripts) }

// ScriptsMemory is Redis 7.0's evalScriptsMemory, INFO's
// used_memory_scripts_eval: each script's SHA and body as Redis allocates
// them, and the dictionary holding them. Redis's dictionary may be half
// way through a rehash, which counts both tables' slots; here it never is.
func (e *Engine) ScriptsMemory() int64 {
	n := int64(len(e.scripts))
	if n == 0 {
		return 0
	}
	const dictEntry, luaScript = 24, 16 // three pointers; flags and body
	slots := int64(4)                   // DICT_HT_INITIAL_SIZE, doubled when full
	for slots < n {
		slots *= 2
	}
	return e.scriptsMem + n*(dictEntry+luaScript) + slots*8
}

// scriptMemory is what one script adds to Redis's lua_scripts_mem:
// sdsZmallocSize of the 40-byte SHA plus the body's string object
// (getStringObjectSdsUsedMemory): an embedded string up to 44 bytes, a
// raw sds beyond.
func scriptMemory(bodyLen int) int64 {
	const robj = 16
	sha := jemalloc.Size(3 + 40 + 1) // sdshdr8
	var body int
	switch {
	case bodyLen <= 44: // OBJ_ENCODING_EMBSTR_SIZE_LIMIT
		body = jemalloc.Size(robj+3+bodyLen+1) - robj
	case bodyLen < 1<<8:
		body = jemalloc.Size(3 + bodyLen + 1)
	case bodyLen < 1<<16:
		body = jemalloc.Size(5 + bodyLen + 1)
	default:
		body = jemalloc.Size(9 + bodyLen + 1)
	}
	return int64(sha + body)
}
