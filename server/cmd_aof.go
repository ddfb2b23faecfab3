package server

import (
	"strconv"
)

// The append-only file's command and configuration parameters; the
// machinery is in aof*.go.

var aofHandlers = map[string]Handler{
	"bgrewriteaof": cmdBGRewriteAOF,
}

// aofParams are the AOF's config parameters (rows of floodgateParams,
// config.go). apply writes s.cfg.AOF, which a config file sets before Init
// copies it into s.aof; on a running server (which has its store) it also
// puts the value into effect.
var aofParams = map[string]floodgateParam{
	"appendonly": {effect: effectApplied, get: func(s *Server) string { return yesNo(s.aof.cfg.Enabled) },
		apply: func(s *Server, v string) string {
			if s.store == nil {
				s.cfg.AOF.Enabled = v == "yes"
				return ""
			}
			if err := s.setAppendOnly(v == "yes"); err != nil {
				s.log.Warn("Redis needs to enable the AOF but can't trigger a background AOF rewrite operation. Check the above logs for more info about the error.", "err", err)
			}
			return ""
		}},
	"appendfsync":    aofParam(func(s *Server) string { return s.aof.cfg.Fsync }, func(c *AOFConfig, v string) { c.Fsync = v }),
	"appendfilename": aofParam(func(s *Server) string { return s.aof.cfg.Filename }, func(c *AOFConfig, v string) { c.Filename = v }),
	"appenddirname":  aofParam(func(s *Server) string { return s.aof.cfg.Dirname }, func(c *AOFConfig, v string) { c.Dirname = v }),
	"auto-aof-rewrite-percentage": aofParam(func(s *Server) string { return strconv.Itoa(max(s.aof.cfg.RewritePercentage, 0)) }, func(c *AOFConfig, v string) {
		c.RewritePercentage, _ = strconv.Atoi(v)
		if c.RewritePercentage == 0 {
			c.RewritePercentage = -1 // Config's zero value means the default
		}
	}),
	"auto-aof-rewrite-min-size": aofParam(func(s *Server) string { return strconv.FormatInt(s.aof.cfg.RewriteMinSize, 10) }, func(c *AOFConfig, v string) {
		c.RewriteMinSize, _ = strconv.ParseInt(v, 10, 64)
	}),
	"aof-load-truncated":    aofParam(func(s *Server) string { return yesNo(!s.aof.cfg.RefuseTruncated) }, func(c *AOFConfig, v string) { c.RefuseTruncated = v == "no" }),
	"aof-timestamp-enabled": aofParam(func(s *Server) string { return yesNo(s.aof.cfg.Timestamps) }, func(c *AOFConfig, v string) { c.Timestamps = v == "yes" }),
	"aof-use-rdb-preamble":  aofParam(func(s *Server) string { return yesNo(!s.aof.cfg.NoRDBPreamble) }, func(c *AOFConfig, v string) { c.NoRDBPreamble = v == "no" }),
}

// aofParam is an applied AOF parameter: put sets its field of an AOFConfig,
// the configured one and, on a running server, the one in effect.
func aofParam(get func(*Server) string, put func(c *AOFConfig, v string)) floodgateParam {
	return floodgateParam{effect: effectApplied, get: get, apply: func(s *Server, v string) string {
		put(&s.cfg.AOF, v)
		if s.store != nil {
			put(&s.aof.cfg, v)
			s.aof.policy.Store(fsyncPolicies[s.aof.cfg.Fsync])
		}
		return ""
	}}
}

// AppendOnly reports whether the AOF is on: the binary then loads it at
// start instead of the RDB file, as Redis's loadDataFromDisk prefers it.
func (s *Server) AppendOnly() bool { return s.aof.cfg.Enabled }
