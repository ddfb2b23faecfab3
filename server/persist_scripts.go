package server

import (
	"strings"

	"github.com/floodgate/floodgate/aof"
	"github.com/floodgate/floodgate/rdb"
)

// persist-scripts: the script cache saved with the dataset, so that
// EVALSHA still finds a script after a restart (the NOSCRIPT that every
// Redis limiter library has to catch and answer by loading the script
// again). Off by default: Redis forgets its scripts at restart.
//
// An RDB holds each script as an aux field "lua" with the body, the field
// Redis 6 wrote for its replicas and Redis 7.0's loader skips by name, so
// redis-server 7.0 loads the file as if the scripts were not there. An AOF
// holds SCRIPT LOAD <body> for each script cached while it is on (and
// SCRIPT FLUSH), and a base of commands starts with one per cached script;
// redis-server 7.0 replays those too, as any command. A file written with
// the setting on and loaded with it off: the RDB's scripts are skipped, as
// Redis skips them; the AOF's SCRIPT LOADs run, as they would on Redis.

var (
	cmdSCRIPT = []byte("SCRIPT")
	argLOAD   = []byte("LOAD")
	argFLUSH  = []byte("FLUSH")
)

// persistScripts is the persist-scripts parameter (one of ownParams).
var persistScripts = &configParam{
	name: "persist-scripts", kind: kindBool, def: "no", effect: effectApplied,
	get: func(s *Server) string { return yesNo(s.scripting.persist) },
	apply: func(s *Server, v string) string {
		was := s.scripting.persist
		s.scripting.persist = v == "yes"
		if s.scripting.persist && !was && s.aof.on.Load() {
			// The scripts cached so far go to the AOF now, not at the
			// next rewrite.
			for _, b := range s.scriptBodies() {
				s.propagate(0, cmdSCRIPT, argLOAD, []byte(b))
			}
		}
		return ""
	},
}

// scriptBodies returns what persist-scripts saves: every cached script, or
// nothing with the setting off. The caller holds the execution lock.
func (s *Server) scriptBodies() []string {
	if !s.scripting.persist {
		return nil
	}
	return s.cachedScripts()
}

// cachedScripts is the body of every cached script.
func (s *Server) cachedScripts() []string {
	e := s.scripting.current()
	if e == nil {
		return nil
	}
	return e.Bodies()
}

// scriptAux is the RDB aux fields of the saved scripts.
func (s *Server) scriptAux() []rdb.Aux { return luaAux(s.scriptBodies()) }

// luaAux is an RDB's "lua" aux field for each script body.
func luaAux(bodies []string) []rdb.Aux {
	aux := make([]rdb.Aux, len(bodies))
	for i, b := range bodies {
		aux[i] = rdb.Aux{Key: "lua", Value: b}
	}
	return aux
}

// loadScriptAux takes a "lua" aux field back into the cache, with the
// setting on; a script that no longer compiles is skipped, as Redis 6
// would have refused it.
func (s *Server) loadScriptAux(key, body string) {
	if !strings.EqualFold(key, "lua") || !s.scripting.persist {
		return
	}
	s.scripting.engine().Load([]byte(body))
}

// logScriptLoad queues SCRIPT LOAD body for the AOF when a script enters
// the cache with persist-scripts on.
func (c *Client) logScriptLoad(body []byte) {
	if c.srv.scripting.persist && c.srv.aof.on.Load() {
		c.srv.propagate(c.db.Index(), cmdSCRIPT, argLOAD, body)
	}
}

// logScriptFlush queues SCRIPT FLUSH for the AOF, likewise.
func (c *Client) logScriptFlush() {
	if c.srv.scripting.persist && c.srv.aof.on.Load() {
		c.srv.propagate(c.db.Index(), cmdSCRIPT, argFLUSH)
	}
}

// appendScriptLoads appends SCRIPT LOAD commands for bodies to a base of
// commands.
func appendScriptLoads(buf []byte, bodies []string) []byte {
	for _, b := range bodies {
		buf = aof.AppendCommand(buf, cmdSCRIPT, argLOAD, []byte(b))
	}
	return buf
}
