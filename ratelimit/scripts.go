package ratelimit

import (
	_ "embed"

	"github.com/redis/go-redis/v9"
)

var (
	//go:embed prelude.lua
	preludeLua string
	//go:embed gcra.lua
	gcraLua string
	//go:embed token_bucket.lua
	tokenBucketLua string
	//go:embed fixed_window.lua
	fixedWindowLua string
	//go:embed sliding_log.lua
	slidingLogLua string
	//go:embed sliding_window.lua
	slidingWindowLua string
)

// scriptSource returns the full Lua source of algorithm a: the shared
// prelude followed by the algorithm's body.
func scriptSource(a Algorithm) string {
	body := map[Algorithm]string{
		GCRA:                 gcraLua,
		TokenBucket:          tokenBucketLua,
		FixedWindow:          "local incr_first = false\n" + fixedWindowLua,
		FixedWindowIncrFirst: "local incr_first = true\n" + fixedWindowLua,
		SlidingLog:           slidingLogLua,
		SlidingWindow:        slidingWindowLua,
	}[a]
	return preludeLua + "\n" + body
}

// scripts holds one compiled script per algorithm; redis.Script.Run sends
// EVALSHA and falls back to EVAL when the store answers NOSCRIPT.
var scripts = func() map[Algorithm]*redis.Script {
	m := make(map[Algorithm]*redis.Script, len(Algorithms))
	for _, a := range Algorithms {
		m[a] = redis.NewScript(scriptSource(a))
	}
	return m
}()
