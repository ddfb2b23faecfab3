package server

import (
	"strconv"
	"strings"
)

// The append-only file's command and configuration parameters; the
// machinery is in aof.go.

var aofCommands = []*Command{
	{Name: "bgrewriteaof", Arity: 1, Flags: FlagAdmin | FlagNoScript | FlagNoAsyncLoading, Group: "server", Summary: "Asynchronously rewrite the append-only file", Since: "1.0.0", Handler: cmdBGRewriteAOF},
}

func init() {
	register(aofCommands...)
	configParams = append(configParams, aofConfigParams...)
}

// aofConfigParams are the AOF's CONFIG GET/SET parameters. Their set
// functions validate with the shared parsers (which store into settings)
// and, on the real server (not CONFIG SET's scratch copy, which has no
// keyspace), apply the value.
var aofConfigParams = []configParam{
	{name: "appendonly", get: func(s *Server) string { return yesNo(s.aof.cfg.Enabled) }, set: setAppendOnlyParam},
	{name: "appendfsync", get: func(s *Server) string { return s.aof.cfg.Fsync }, set: aofParam("appendfsync", setEnum("appendfsync", "always", "everysec", "no"), func(s *Server, v string) {
		s.aof.cfg.Fsync = v
		s.aof.policy.Store(fsyncPolicies[v])
	})},
	{name: "appendfilename", get: func(s *Server) string { return s.aof.cfg.Filename }},
	{name: "appenddirname", get: func(s *Server) string { return s.aof.cfg.Dirname }},
	{name: "auto-aof-rewrite-percentage", get: func(s *Server) string { return strconv.Itoa(s.aof.cfg.RewritePercentage) }, set: aofParam("auto-aof-rewrite-percentage", setInt("auto-aof-rewrite-percentage", 0, 1<<31-1), func(s *Server, v string) {
		s.aof.cfg.RewritePercentage, _ = strconv.Atoi(v)
	})},
	{name: "auto-aof-rewrite-min-size", get: func(s *Server) string { return strconv.FormatInt(s.aof.cfg.RewriteMinSize, 10) }, set: aofParam("auto-aof-rewrite-min-size", setMemory("auto-aof-rewrite-min-size"), func(s *Server, v string) {
		s.aof.cfg.RewriteMinSize, _ = strconv.ParseInt(v, 10, 64)
	})},
	{name: "aof-load-truncated", get: func(s *Server) string { return yesNo(!s.aof.cfg.RefuseTruncated) }, set: aofParam("aof-load-truncated", setBool("aof-load-truncated"), func(s *Server, v string) {
		s.aof.cfg.RefuseTruncated = v == "no"
	})},
	{name: "aof-use-rdb-preamble", get: func(s *Server) string { return yesNo(!s.aof.cfg.NoRDBPreamble) }, set: aofParam("aof-use-rdb-preamble", setBool("aof-use-rdb-preamble"), func(s *Server, v string) {
		s.aof.cfg.NoRDBPreamble = v == "no"
	})},
	{name: "aof-timestamp-enabled", get: constant("no")},
	{name: "aof-rewrite-incremental-fsync", get: setting("aof-rewrite-incremental-fsync", "yes"), set: setBool("aof-rewrite-incremental-fsync")},
	{name: "aof-disable-auto-gc", get: constant("no")},
}

// aofParam validates with check, then applies the value check stored.
func aofParam(name string, check func(*Server, []byte) string, apply func(s *Server, v string)) func(*Server, []byte) string {
	return func(s *Server, v []byte) string {
		if why := check(s, v); why != "" {
			return why
		}
		if s.store != nil {
			apply(s, s.settings[name])
		}
		return ""
	}
}

// setAppendOnlyParam turns the AOF on (a rewrite writes the base) or off.
func setAppendOnlyParam(s *Server, v []byte) string {
	if why := setBool("appendonly")(s, v); why != "" {
		return why
	}
	if s.store != nil {
		if err := s.setAppendOnly(strings.EqualFold(string(v), "yes")); err != nil {
			s.log.Warn("Redis needs to enable the AOF but can't trigger a background AOF rewrite operation. Check the above logs for more info about the error.", "err", err)
		}
	}
	return ""
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
