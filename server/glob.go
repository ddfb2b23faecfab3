package server

import "github.com/floodgate/floodgate/store"

// globMatch matches a Redis glob pattern (see store.Match).
func globMatch(pattern, s []byte, nocase bool) bool { return store.Match(pattern, s, nocase) }
