package server

import (
	"strconv"

	"github.com/floodgate/floodgate/store"
)

// encodingParams are the thresholds of the collections' compact encodings
// (rows of floodgateParams, config.go). They live in the store
// (store.Encodings), which reads them under the execution lock as each
// command runs; apply also keeps the value as a setting, since a config
// file is read before Init creates the store.
var encodingParams = map[string]floodgateParam{
	"hash-max-listpack-entries": encodingParam("hash-max-listpack-entries", func(e *store.Encodings) *int64 { return &e.HashMaxListpackEntries }),
	"hash-max-listpack-value":   encodingParam("hash-max-listpack-value", func(e *store.Encodings) *int64 { return &e.HashMaxListpackValue }),
	"zset-max-listpack-entries": encodingParam("zset-max-listpack-entries", func(e *store.Encodings) *int64 { return &e.ZSetMaxListpackEntries }),
	"zset-max-listpack-value":   encodingParam("zset-max-listpack-value", func(e *store.Encodings) *int64 { return &e.ZSetMaxListpackValue }),
	"set-max-intset-entries":    encodingParam("set-max-intset-entries", func(e *store.Encodings) *int64 { return &e.SetMaxIntsetEntries }),
	"list-max-listpack-size":    encodingParam("list-max-listpack-size", func(e *store.Encodings) *int64 { return &e.ListMaxListpackSize }),
	"list-compress-depth":       encodingParam("list-compress-depth", func(e *store.Encodings) *int64 { return &e.ListCompressDepth }),
	"stream-node-max-bytes":     encodingParam("stream-node-max-bytes", func(e *store.Encodings) *int64 { return &e.StreamNodeMaxBytes }),
	"stream-node-max-entries":   encodingParam("stream-node-max-entries", func(e *store.Encodings) *int64 { return &e.StreamNodeMaxEntries }),
}

func encodingParam(name string, field func(*store.Encodings) *int64) floodgateParam {
	return floodgateParam{effect: effectApplied,
		get: func(s *Server) string {
			if s.store == nil {
				if v, ok := s.settings[name]; ok {
					return v
				}
				return strconv.FormatInt(*field(&store.DefaultEncodings), 10)
			}
			return strconv.FormatInt(*field(s.store.Encodings()), 10)
		},
		apply: func(s *Server, v string) string {
			s.setSetting(name, v)
			if s.store != nil {
				*field(s.store.Encodings()), _ = strconv.ParseInt(v, 10, 64)
			}
			return ""
		}}
}

// applyEncodingSettings puts the thresholds a config file gave into
// effect, once Init has created the store (and before it loads any data).
func (s *Server) applyEncodingSettings() {
	s.applySettings(encodingParams)
}
