package server

import (
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/store"
)

var configCommands = []*Command{
	{Name: "config", Arity: -2, Group: "server", Summary: "A container for server configuration commands", Since: "2.0.0", Subcommands: []*Command{
		{Name: "get", Arity: -3, Flags: configFlags, Group: "server", Summary: "Get the values of configuration parameters", Since: "2.0.0", Handler: cmdConfigGet},
		{Name: "set", Arity: -4, Flags: configFlags, Group: "server", Summary: "Set configuration parameters to the given values", Since: "2.0.0", Tips: []string{"request_policy:all_nodes", "response_policy:all_succeeded"}, Handler: cmdConfigSet},
		{Name: "resetstat", Arity: 2, Flags: configFlags, Group: "server", Summary: "Reset the stats returned by INFO", Since: "2.0.0", Tips: []string{"request_policy:all_nodes", "response_policy:all_succeeded"}, Handler: cmdConfigResetStat},
		{Name: "rewrite", Arity: 2, Flags: configFlags, Group: "server", Summary: "Rewrite the configuration file with the in memory configuration", Since: "2.8.0", Tips: []string{"request_policy:all_nodes", "response_policy:all_succeeded"}, Handler: cmdConfigRewrite},
		{Name: "help", Arity: 2, Flags: FlagLoading | FlagStale, Group: "server", Summary: "Show helpful text about the different subcommands", Since: "5.0.0", Handler: helpHandler(configHelp)},
	}},
}

func init() { register(configCommands...) }

const configFlags = FlagAdmin | FlagNoScript | FlagLoading | FlagStale

var configHelp = []string{
	"CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"GET <pattern>",
	"    Return parameters matching the glob-like <pattern> and their values.",
	"SET <directive> <value>",
	"    Set the configuration <directive> to <value>.",
	"RESETSTAT",
	"    Reset statistics reported by the INFO command.",
	"REWRITE",
	"    Rewrite the configuration file.",
	"HELP",
	"    Prints this help.",
}

// configParam is one parameter of CONFIG GET/SET. get reads it from the
// server's Config (or the settings CONFIG SET stored); set, when present,
// validates and applies a value and returns Redis's reason for refusing it.
type configParam struct {
	name string
	get  func(s *Server) string
	set  func(s *Server, v []byte) string
}

// configParams are the parameters clients and tools probe, with Redis's
// defaults for what floodgate does not have (no persistence, no eviction).
var configParams = []configParam{
	{name: "databases", get: func(s *Server) string { return strconv.Itoa(s.cfg.Databases) }},
	{name: "port", get: func(s *Server) string { _, port := s.bindAddr(); return port }},
	{name: "bind", get: func(s *Server) string { host, _ := s.bindAddr(); return host }},
	{name: "requirepass", get: func(s *Server) string { return s.cfg.Password }},
	{name: "busy-reply-threshold", get: getLuaTimeLimit, set: setLuaTimeLimit},
	{name: "lua-time-limit", get: getLuaTimeLimit, set: setLuaTimeLimit},
	{name: "proto-max-bulk-len", get: func(s *Server) string { return strconv.FormatInt(s.cfg.ProtoMaxBulkLen, 10) }},
	{name: "client-query-buffer-limit", get: func(s *Server) string { return strconv.FormatInt(s.cfg.QueryBufferLimit, 10) }},
	{name: "maxmemory", get: setting("maxmemory", "0"), set: setMemory("maxmemory")},
	{name: "maxmemory-policy", get: setting("maxmemory-policy", "noeviction"), set: setEnum("maxmemory-policy", "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction")},
	{name: "maxmemory-samples", get: constant("5")},
	{name: "hll-sparse-max-bytes", get: setting("hll-sparse-max-bytes", "3000"), set: setMemory("hll-sparse-max-bytes")},
	{name: "maxclients", get: constant("10000")},
	{name: "notify-keyspace-events", get: setting("notify-keyspace-events", ""), set: setKeyspaceEvents},
	{name: "timeout", get: setting("timeout", "0"), set: setInt("timeout", 0, 1<<31-1)},
	{name: "tcp-keepalive", get: constant("300")},
	// save, dir and dbfilename: cmd_persistence.go; the AOF's: cmd_aof.go.
	{name: "cluster-enabled", get: constant("no")},
	{name: "replica-read-only", get: constant("yes")},
	{name: "slave-read-only", get: constant("yes")},
	{name: "daemonize", get: constant("no")},
	{name: "protected-mode", get: constant("yes")},
	{name: "logfile", get: constant("")},
	{name: "loglevel", get: constant("notice")},
	{name: "hz", get: constant("10")},
	{name: "io-threads", get: constant("1")},
	{name: "tcp-backlog", get: constant("511")},
	{name: "hash-max-listpack-entries", get: constant("512")},
	{name: "hash-max-ziplist-entries", get: constant("512")},
	{name: "zset-max-listpack-entries", get: constant("128")},
	{name: "zset-max-ziplist-entries", get: constant("128")},
	{name: "set-max-intset-entries", get: constant("512")},
	{name: "lazyfree-lazy-user-flush", get: constant("no")},
}

func constant(v string) func(*Server) string { return func(*Server) string { return v } }

// setting reads a value CONFIG SET stored, or the default.
func setting(name, def string) func(*Server) string {
	return func(s *Server) string {
		if v, ok := s.settings[name]; ok {
			return v
		}
		return def
	}
}

// setSetting stores a CONFIG SET value that has no field in Config.
func (s *Server) setSetting(name, v string) {
	if s.settings == nil {
		s.settings = make(map[string]string)
	}
	s.settings[name] = v
}

// bindAddr splits the address the server listens on.
func (s *Server) bindAddr() (host, port string) {
	addr := s.cfg.Addr
	if s.ln != nil {
		addr = s.ln.Addr().String()
	}
	host, port, _ = net.SplitHostPort(addr)
	return host, port
}

func getLuaTimeLimit(s *Server) string {
	return strconv.FormatInt(int64(s.cfg.LuaTimeLimit/time.Millisecond), 10)
}

func setLuaTimeLimit(s *Server, v []byte) string {
	n, msg := parseConfigInt(v, 0, 1<<63-1)
	if msg == "" {
		s.cfg.LuaTimeLimit = time.Duration(n) * time.Millisecond
	}
	return msg
}

func parseConfigInt(v []byte, min, max int64) (int64, string) {
	n, ok := number.ParseInt(v) // string2ll: no '+', no leading zeros
	if !ok {
		return 0, "argument couldn't be parsed into an integer"
	}
	if n < min || n > max {
		return 0, "argument must be between " + strconv.FormatInt(min, 10) + " and " + strconv.FormatInt(max, 10) + " inclusive"
	}
	return n, ""
}

func setInt(name string, min, max int64) func(*Server, []byte) string {
	return func(s *Server, v []byte) string {
		n, msg := parseConfigInt(v, min, max)
		if msg == "" {
			s.setSetting(name, strconv.FormatInt(n, 10))
		}
		return msg
	}
}

func setEnum(name string, values ...string) func(*Server, []byte) string {
	return func(s *Server, v []byte) string {
		for _, val := range values {
			if eqFold(v, val) {
				s.setSetting(name, val)
				return ""
			}
		}
		return "argument(s) must be one of the following: " + strings.Join(values, ", ")
	}
}

func setBool(name string) func(*Server, []byte) string {
	return func(s *Server, v []byte) string {
		if !eqFold(v, "yes") && !eqFold(v, "no") {
			return "argument must be 'yes' or 'no'"
		}
		s.setSetting(name, strings.ToLower(string(v)))
		return ""
	}
}

// setMemory accepts Redis's memory values: bytes with an optional unit
// (k = 1000, kb = 1024, m, mb, g, gb; any case).
func setMemory(name string) func(*Server, []byte) string {
	return func(s *Server, v []byte) string {
		str := strings.ToLower(string(v))
		mul := uint64(1)
		for _, u := range []struct {
			suffix string
			mul    uint64
		}{{"kb", 1024}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1000}, {"m", 1000 * 1000}, {"g", 1000 * 1000 * 1000}, {"b", 1}} {
			if strings.HasSuffix(str, u.suffix) {
				str, mul = str[:len(str)-len(u.suffix)], u.mul
				break
			}
		}
		n, err := strconv.ParseUint(str, 10, 64)
		if err != nil || str == "" || str[0] == '+' || n > (1<<64-1)/mul {
			return "argument must be a memory value"
		}
		s.setSetting(name, strconv.FormatUint(n*mul, 10))
		return ""
	}
}

// keyspaceEventClasses are notify-keyspace-events' classes in the order
// Redis prints them; 'A' stands for all of the first nine.
const keyspaceEventClasses = "g$lshzxetd"

func setKeyspaceEvents(s *Server, v []byte) string {
	set := map[byte]bool{}
	for _, ch := range v {
		switch {
		case ch == 'A':
			for i := 0; i < len(keyspaceEventClasses); i++ {
				set[keyspaceEventClasses[i]] = true
			}
		case strings.IndexByte(keyspaceEventClasses+"nKEm", ch) >= 0:
			set[ch] = true
		default:
			return "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
		}
	}
	var b strings.Builder
	all := true
	for i := 0; i < len(keyspaceEventClasses); i++ {
		all = all && set[keyspaceEventClasses[i]]
	}
	if all {
		b.WriteByte('A')
	} else {
		for _, ch := range []byte(keyspaceEventClasses + "n") {
			if set[ch] {
				b.WriteByte(ch)
			}
		}
	}
	for _, ch := range []byte("KEm") {
		if set[ch] {
			b.WriteByte(ch)
		}
	}
	s.setSetting("notify-keyspace-events", b.String())
	return ""
}

func lookupConfig(name []byte) *configParam {
	for i := range configParams {
		if eqFold(name, configParams[i].name) {
			return &configParams[i]
		}
	}
	return nil
}

// cmdConfigGet answers name/value pairs for every parameter a pattern
// matches, each parameter once. A name without glob characters is echoed
// as the client spelled it, as Redis does.
func cmdConfigGet(c *Client, args [][]byte) {
	type pair struct{ name, value string }
	var out []pair
	seen := map[string]bool{}
	for _, pat := range args[2:] {
		if !strings.ContainsAny(string(pat), "[*?") {
			if p := lookupConfig(pat); p != nil && !seen[p.name] {
				seen[p.name] = true
				out = append(out, pair{string(pat), p.get(c.srv)})
			}
			continue
		}
		for i := range configParams {
			p := &configParams[i]
			if !seen[p.name] && store.Match(pat, []byte(p.name), true) {
				seen[p.name] = true
				out = append(out, pair{p.name, p.get(c.srv)})
			}
		}
	}
	c.w.Map(len(out))
	for _, p := range out {
		c.w.BulkString(p.name)
		c.w.BulkString(p.value)
	}
}

// cmdConfigSet validates every pair before applying any, as Redis does.
// Parameters floodgate only reports are refused as immutable.
func cmdConfigSet(c *Client, args [][]byte) {
	if len(args)%2 != 0 {
		c.w.Error(errSyntax)
		return
	}
	failed := func(name []byte, why string) {
		c.errorf("ERR CONFIG SET failed (possibly related to argument '%s') - %s", sanitizeError(string(name)), why)
	}
	params := make([]*configParam, 0, len(args)/2)
	for i := 2; i < len(args); i += 2 {
		p := lookupConfig(args[i])
		if p == nil {
			c.errorf("ERR Unknown option or number of arguments for CONFIG SET - '%s'", sanitizeError(string(args[i])))
			return
		}
		if p.set == nil {
			failed(args[i], "can't set immutable config")
			return
		}
		for _, q := range params {
			if q == p {
				failed(args[i], "duplicate parameter")
				return
			}
		}
		params = append(params, p)
	}
	// Validate on a scratch server so a bad later value changes nothing.
	scratch := &Server{cfg: c.srv.cfg}
	for i, p := range params {
		if why := p.set(scratch, args[3+2*i]); why != "" {
			failed(args[2+2*i], why)
			return
		}
	}
	for i, p := range params {
		p.set(c.srv, args[3+2*i])
	}
	c.w.Status("OK")
}

func cmdConfigRewrite(c *Client, args [][]byte) {
	c.w.Error("ERR The server is running without a config file")
}

// cmdConfigResetStat clears what INFO stats and commandstats count.
func cmdConfigResetStat(c *Client, args [][]byte) {
	s := c.srv
	for i := range s.stats {
		s.stats[i] = cmdStat{}
	}
	s.processed = 0
	s.expired = 0
	s.totalConns.Store(0)
	s.limiter.reset()
	c.w.Status("OK")
}
