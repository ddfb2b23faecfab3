package server

import (
	"log/slog"
	"math"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/floodgate/floodgate/internal/number"
)

// paramKind is how Redis parses a parameter's value (config.c's
// bool, numeric, enum, string and special configs).
type paramKind uint8

const (
	kindBool paramKind = iota
	kindInt
	kindMemory // an integer with an optional unit: 1k, 1kb, 1mb, 1gb
	kindEnum
	kindString
	kindSpecial // its own syntax: save, bind, client-output-buffer-limit, dir, ...
)

type paramFlags uint8

const (
	paramImmutable paramFlags = 1 << iota // set only at start
	paramMultiArg                         // takes several words: save 3600 1, bind a b
	paramProtected                        // Redis 7.0's protected configs: set only at start (enable-protected-configs no)
	paramHidden                           // a debugging knob CONFIG GET lists only by its exact name
	// Recorded from config.c, not read by floodgate: DENY_LOADING (CONFIG
	// SET refused while loading), SENSITIVE (redacted from logs), DEBUG
	// and VOLATILE (CONFIG SET of the same value still applies it).
	paramDenyLoading
	paramSensitive
	paramDebug
	paramVolatile
)

// paramEffect is what floodgate does with a parameter's value.
type paramEffect uint8

const (
	// effectDefaultOnly: a Redis feature floodgate does not have. Only the
	// value that leaves it off (Redis's default) is accepted, so a
	// configuration that relies on the feature is refused, never ignored;
	// refused as Redis refuses a parameter it does not know (unbuilt), so
	// a client sees a text it already handles.
	effectDefaultOnly paramEffect = iota
	// effectApplied: floodgate implements the parameter.
	effectApplied
	// effectInert: the parameter cannot change anything floodgate does
	// (docs/configuration.md lists them and why); any valid value is kept
	// and reported.
	effectInert
)

// configParam is one parameter of the config file, CONFIG GET and CONFIG
// SET. redisParams (config_params.go) holds Redis's part of every row;
// floodgateParams adds how floodgate reads and applies it.
type configParam struct {
	name, alias string
	kind        paramKind
	flags       paramFlags
	def         string // the value in effect by default, as CONFIG GET prints it
	min, max    int64  // kindInt, kindMemory

	effect paramEffect
	values []string // kindEnum: the accepted values, in Redis's order
	// parse turns a kindSpecial value into its canonical form, or returns
	// Redis's reason for refusing it.
	parse func(v string) (string, string)
	// get reports the value in effect; nil: the stored setting or def.
	get func(s *Server) string
	// apply puts a canonical value into effect; nil: only stored. It
	// returns a reason when it cannot (a port that cannot be bound).
	apply func(s *Server, v string) string
	// commit, if set, runs once per CONFIG SET after every value is
	// stored, for the parameters it is shared by (config.c's apply
	// functions, such as applyTlsCfg: a certificate and its key change
	// together).
	commit *configCommit
}

// configCommit is a step shared by several parameters; a pointer, so that
// CONFIG SET runs each once.
type configCommit struct {
	run func(s *Server) string // a reason if it cannot be applied
}

// floodgateParam is floodgate's part of a configParam.
type floodgateParam struct {
	effect paramEffect
	def    string // overrides Redis's default where floodgate's differs
	values []string
	parse  func(v string) (string, string)
	get    func(s *Server) string
	apply  func(s *Server, v string) string
	commit *configCommit
}

// configTable lists every parameter, Redis's (config_params.go) in name
// order and then floodgate's own (ownParams); configByName finds one by
// name or alias, lower case.
var (
	configTable  []*configParam
	configByName map[string]*configParam
)

// init builds the config table from its explicit lists. It is the table's
// only init, and Go initializes every package variable (the lists) before
// any init runs, so no file order matters. (A variable initializer cannot
// do it: the rows' apply functions reach the listeners and the event
// loop, which Go counts as an initialization cycle.)
func init() { configTable, configByName = buildConfigTable() }

func buildConfigTable() ([]*configParam, map[string]*configParam) {
	rows := make(map[string]floodgateParam, len(floodgateParams))
	for _, group := range []map[string]floodgateParam{floodgateParams, replicationParams, evictionParams, clientEvictionParams, tlsParams, persistenceParams, aofParams, encodingParams, slowlogParams, latencyParams, loadingParams, trackingParams, aclParams, shutdownParams} {
		for name, p := range group {
			if _, dup := rows[name]; dup {
				panic("server: two rows for config parameter " + name)
			}
			rows[name] = p
		}
	}
	table := make([]*configParam, 0, len(redisParams)+len(ownParams))
	byName := make(map[string]*configParam, 2*len(redisParams))
	for i := range redisParams {
		p := &redisParams[i]
		if f, ok := rows[p.name]; ok {
			p.effect, p.parse, p.get, p.apply, p.commit = f.effect, f.parse, f.get, f.apply, f.commit
			if f.values != nil {
				p.values = f.values
			}
			if f.def != "" || p.name == "save" {
				p.def = f.def
			}
		} else if inertParams[p.name] {
			p.effect = effectInert
		}
		table = append(table, p)
		byName[p.name] = p
		if p.alias != "" {
			byName[p.alias] = p
		}
	}
	for _, p := range ownParams {
		if _, dup := byName[p.name]; dup {
			panic("server: floodgate's parameter " + p.name + " is Redis's")
		}
		table = append(table, p)
		byName[p.name] = p
	}
	return table, byName
}

// ownParams are floodgate's own parameters, which Redis does not have.
var ownParams = []*configParam{limiterPrefixDelimiter, persistScripts, metricsAddr}

// configValue is a parameter's value in effect.
func (s *Server) configValue(name string) string { return configByName[name].value(s) }

func lookupConfig(name []byte) *configParam {
	return configByName[strings.ToLower(string(name))]
}

// inertParams can change nothing floodgate does, so any valid value is
// accepted (docs/configuration.md says why for each).
var inertParams = map[string]bool{
	"supervised": true, "always-show-logo": true, "set-proc-title": true, "proc-title-template": true,
	"syslog-enabled": true, "syslog-ident": true, "syslog-facility": true,
	"crash-log-enabled": true, "crash-memcheck-enabled": true,
	"disable-thp": true, "jemalloc-bg-thread": true, "activerehashing": true,
	"lazyfree-lazy-eviction": true, "lazyfree-lazy-expire": true, "lazyfree-lazy-server-del": true,
	"lazyfree-lazy-user-del": true, "lazyfree-lazy-user-flush": true,
}

// floodgateParams are the parameters floodgate implements.
var floodgateParams = map[string]floodgateParam{
	// RESTORE always checks a payload in depth (every listpack, ziplist,
	// zipmap and intset entry, duplicates, order), which is what yes and
	// clients ask for; with no, Redis runs only the header checks and
	// accepts some payloads floodgate refuses.
	"sanitize-dump-payload": {effect: effectApplied},
	"port": {effect: effectApplied, get: func(s *Server) string { _, port := s.bindAddr(); return port },
		apply: setPort},
	"bind": {effect: effectApplied, def: "127.0.0.1", parse: parseBind, get: getBind, apply: setBind},
	"databases": {effect: effectApplied, get: func(s *Server) string { return strconv.Itoa(s.cfg.Databases) },
		apply: func(s *Server, v string) string { n, _ := strconv.Atoi(v); s.cfg.Databases = n; return "" }},
	"requirepass": {effect: effectApplied, get: func(s *Server) string { return s.requirePass() },
		apply: func(s *Server, v string) string { s.setRequirePass(v); return "" }},
	"protected-mode": {effect: effectApplied, get: func(s *Server) string { return yesNo(s.protectedMode.Load()) },
		apply: func(s *Server, v string) string { s.protectedMode.Store(v == "yes"); return "" }},
	"busy-reply-threshold": {effect: effectApplied, get: func(s *Server) string {
		return strconv.FormatInt(int64(s.cfg.LuaTimeLimit/time.Millisecond), 10)
	}, apply: func(s *Server, v string) string {
		n, _ := strconv.ParseInt(v, 10, 64)
		s.cfg.LuaTimeLimit = time.Duration(n) * time.Millisecond
		return ""
	}},
	"proto-max-bulk-len": {effect: effectApplied, get: func(s *Server) string { return strconv.FormatInt(s.protoMaxBulkLen.Load(), 10) },
		apply: func(s *Server, v string) string {
			n, _ := strconv.ParseInt(v, 10, 64)
			s.protoMaxBulkLen.Store(n)
			return ""
		}},
	"client-query-buffer-limit": {effect: effectApplied, get: func(s *Server) string { return strconv.FormatInt(s.queryBufferLimit.Load(), 10) },
		apply: func(s *Server, v string) string {
			n, _ := strconv.ParseInt(v, 10, 64)
			s.queryBufferLimit.Store(n)
			return ""
		}},
	"loglevel": {effect: effectApplied, values: []string{"debug", "verbose", "notice", "warning"},
		apply: func(s *Server, v string) string { s.logLevel.Set(redisLogLevels[v]); return "" }},
	"logfile": {effect: effectApplied},
	"pidfile": {effect: effectApplied},
	"dir": {effect: effectApplied, parse: func(v string) (string, string) { return v, "" },
		get: func(*Server) string { dir, _ := os.Getwd(); return dir },
		apply: func(s *Server, v string) string {
			if err := os.Chdir(v); err != nil {
				return err.Error()
			}
			// The RDB file and the AOF directory are found from Config.Dir.
			if dir, err := os.Getwd(); err == nil {
				s.cfg.Dir = dir
			}
			return ""
		}},
	"hz": {effect: effectApplied, apply: func(s *Server, v string) string {
		n, _ := strconv.Atoi(v)
		s.hz.Store(int32(min(max(n, 1), maxHz))) // Redis clamps to CONFIG_MIN_HZ..CONFIG_MAX_HZ
		s.updateCronHz()
		return ""
	}, get: func(s *Server) string { return strconv.Itoa(int(s.hz.Load())) }},
	// dynamic-hz raises the clients cron's rate with the number of clients
	// (clients_cron.go's cronHz), as Redis's serverCron raises server.hz.
	"dynamic-hz": {effect: effectApplied, apply: func(s *Server, v string) string {
		s.fixedHz.Store(v == "no")
		s.updateCronHz()
		return ""
	}, get: func(s *Server) string { return yesNo(!s.fixedHz.Load()) }},
	// maxclients is applied where connections are accepted (transport_listen.go),
	// timeout by the clients cron (clients_cron.go).
	"maxclients": {effect: effectApplied, get: func(s *Server) string { return strconv.FormatInt(s.maxClients.Load(), 10) },
		apply: setMaxClients},
	"tcp-keepalive": {effect: effectApplied, get: func(s *Server) string { return strconv.FormatInt(s.tcpKeepalive.Load(), 10) },
		apply: func(s *Server, v string) string {
			n, _ := strconv.ParseInt(v, 10, 64)
			s.tcpKeepalive.Store(n)
			return ""
		}},
	"timeout": {effect: effectApplied, get: func(s *Server) string { return strconv.FormatInt(s.idleTimeout.Load(), 10) },
		apply: func(s *Server, v string) string {
			n, _ := strconv.ParseInt(v, 10, 64)
			s.idleTimeout.Store(n)
			return ""
		}},
	"client-output-buffer-limit": {effect: effectApplied, parse: parseOutputLimits, get: getOutputLimits, apply: setOutputLimits},
	"io-threads": {effect: effectApplied, apply: func(s *Server, v string) string { n, _ := strconv.Atoi(v); s.cfg.IOThreads = n; return "" },
		get: func(s *Server) string { return strconv.Itoa(max(s.cfg.IOThreads, 1)) }},
	"notify-keyspace-events": {effect: effectApplied, parse: parseKeyspaceEvents, get: getKeyspaceEvents, apply: applyKeyspaceEvents},
	"hll-sparse-max-bytes":   {effect: effectApplied},

	// daemonize is applied by the binary (cmd/floodgate), which starts
	// itself again in the background as Redis forks; see Daemonize.
	"daemonize": {effect: effectApplied},
	// A feature floodgate lacks (replication, cluster, TLS, Unix sockets,
	// ACL files, ...) is any other row: effectDefaultOnly.
	"oom-score-adj-values": {parse: parseOOMValues},
}

// LogFile is the logfile directive ("": standard output).
func (s *Server) LogFile() string { return s.settings["logfile"] }

// Daemonize reports the daemonize directive: the binary then goes to the
// background once the configuration is read, as redis-server does.
func (s *Server) Daemonize() bool { return s.settings["daemonize"] == "yes" }

// PidFile is the pidfile directive ("": none).
func (s *Server) PidFile() string { return s.settings["pidfile"] }

// LogLevel is the level CONFIG SET loglevel changes; a logger built on it
// (NewRedisLogger) follows.
func (s *Server) LogLevel() *slog.LevelVar { return s.logLevel }

// IOThreads is the io-threads directive.
func (s *Server) IOThreads() int { return max(s.cfg.IOThreads, 1) }

// SetLogger sets the logger, between Prepare and Init.
func (s *Server) SetLogger(l *slog.Logger) { s.cfg.Logger = l }

// redisLogLevels are Redis's log levels as slog levels (log.go).
var redisLogLevels = map[string]slog.Level{"debug": slog.LevelDebug - 4, "verbose": slog.LevelDebug, "notice": slog.LevelInfo, "warning": slog.LevelWarn}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// value reports a parameter's value in effect.
func (p *configParam) value(s *Server) string {
	if p.get != nil {
		return p.get(s)
	}
	if v, ok := s.settings[p.name]; ok {
		return v
	}
	if p.name == "loglevel" {
		for name, l := range redisLogLevels {
			if l == s.logLevel.Level() {
				return name
			}
		}
	}
	return p.def
}

// canonical validates a value as Redis's config.c does and returns it as
// CONFIG GET prints it, or Redis's reason for refusing it.
func (p *configParam) canonical(v string) (string, string) {
	if p.parse != nil {
		return p.parse(v)
	}
	switch p.kind {
	case kindBool:
		switch strings.ToLower(v) {
		case "yes", "no":
			return strings.ToLower(v), ""
		}
		return "", "argument must be 'yes' or 'no'"
	case kindInt, kindMemory:
		var n int64
		if p.kind == kindMemory {
			u, ok := memToBytes(v)
			if !ok {
				return "", "argument must be a memory value"
			}
			// config.c keeps it in a long long: past 2^63-1 it wraps
			// negative and fails the bounds check.
			n = int64(u)
		} else {
			var ok bool
			if n, ok = number.ParseInt([]byte(v)); !ok {
				return "", "argument couldn't be parsed into an integer"
			}
		}
		if n < p.min || n > p.max {
			return "", "argument must be between " + strconv.FormatInt(p.min, 10) + " and " + strconv.FormatInt(p.max, 10) + " inclusive"
		}
		return strconv.FormatInt(n, 10), ""
	case kindEnum:
		values := p.values
		if values == nil { // shutdown-on-sig*: flags; set refuses all but def
			return strings.ToLower(v), ""
		}
		for _, val := range values {
			if strings.EqualFold(v, val) {
				return val, ""
			}
		}
		return "", "argument(s) must be one of the following: " + strings.Join(values, ", ")
	}
	return v, ""
}

// memToBytes reads Redis's memory values (memtoull): digits with an
// optional unit, k = 1000, kb = 1024, m, mb, g, gb, any case.
func memToBytes(v string) (uint64, bool) {
	str := strings.ToLower(v)
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
	if len(str) >= 128 { // Redis copies the digits into a 128-byte buffer
		return 0, false
	}
	// strtoull: no digits is 0, past 2^64-1 saturates; the unit's
	// multiplication then wraps, as in C.
	var n uint64
	for i := 0; i < len(str); i++ {
		if str[i] < '0' || str[i] > '9' {
			return 0, false
		}
		hi, lo := bits.Mul64(n, 10)
		lo, carry := bits.Add64(lo, uint64(str[i]-'0'), 0)
		if n = lo; hi != 0 || carry != 0 {
			n = math.MaxUint64
		}
	}
	return n * mul, true
}

// unbuilt reports whether v asks for a feature floodgate lacks: a valid
// value of an effectDefaultOnly parameter other than its default. It is
// refused as Redis refuses a parameter it does not know: CONFIG SET's
// "Unknown option", the config file's "Bad directive". (A value Redis's
// syntax refuses gets Redis's reason, as for any parameter.)
func (p *configParam) unbuilt(v string) bool {
	if p.effect != effectDefaultOnly {
		return false
	}
	canon, why := p.canonical(v)
	return why == "" && canon != p.def
}

// errBadDirective is Redis's config-file reason for a directive it does
// not know (loadServerConfigFromString).
const errBadDirective = "Bad directive or wrong number of arguments"

// set validates and applies one parameter's value (words joined by
// spaces for multi-argument parameters). starting is true while the
// config file is read: immutable parameters may be set then.
func (p *configParam) set(s *Server, v string, starting bool) string {
	if !starting && p.flags&paramImmutable != 0 {
		return "can't set immutable config"
	}
	canon, why := p.canonical(v)
	if why != "" {
		return why
	}
	if p.effect == effectDefaultOnly {
		if canon != p.def {
			return errBadDirective
		}
		return ""
	}
	if p.apply != nil {
		if why := p.apply(s, canon); why != "" {
			return why
		}
	}
	if p.get == nil {
		s.setSetting(p.name, canon)
	}
	return ""
}

// isSet reports whether a parameter has a value of its own (a config
// file's, CONFIG SET's or one an apply stored).
func (s *Server) isSet(name string) bool {
	_, ok := s.settings[name]
	return ok
}

// applySettings applies the values settings holds for params, one
// family's parameters, as Init does once LoadConfig stored them. A
// server given no directive (a test double) has none: walking the
// families' tables was a tenth of its start.
func (s *Server) applySettings(params map[string]floodgateParam) {
	if len(s.settings) == 0 {
		return
	}
	for name, p := range params {
		if v, ok := s.settings[name]; ok {
			p.apply(s, v)
		}
	}
}

// setSetting stores a value that has no field of its own.
func (s *Server) setSetting(name, v string) {
	if s.settings == nil {
		s.settings = make(map[string]string)
	}
	s.settings[name] = v
}

// parseSave validates "<seconds> <changes> ..." as Redis does.
func parseSave(v string) (string, string) {
	fields := strings.Fields(v)
	if len(fields)%2 != 0 {
		return "", "Invalid save parameters"
	}
	for i, f := range fields {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n < int64(1-i%2) {
			return "", "Invalid save parameters"
		}
		fields[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(fields, " "), ""
}

// parseOOMValues validates oom-score-adj-values's three scores.
func parseOOMValues(v string) (string, string) {
	f := strings.Fields(v)
	if len(f) != 3 {
		return "", "wrong number of arguments"
	}
	for i, w := range f {
		n, err := strconv.ParseInt(w, 10, 64)
		if err != nil || n < -2000 || n > 2000 {
			return "", "Invalid oom-score-adj-values, elements must be between -2000 and 2000."
		}
		f[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(f, " "), ""
}

// OutputLimit is one class of client-output-buffer-limit: a client is
// closed when its pending replies pass Hard bytes, or stay over Soft bytes
// for SoftSeconds. Zero means no limit.
type OutputLimit struct {
	Hard, Soft  uint64
	SoftSeconds int64
}

// outputLimitClasses are client-output-buffer-limit's classes in Redis's
// order (slave is replica's old name, and how CONFIG GET prints it).
var outputLimitClasses = []string{"normal", "slave", "pubsub"}

var defaultOutputLimits = [3]OutputLimit{{}, {256 << 20, 64 << 20, 60}, {32 << 20, 8 << 20, 60}}

// OutputLimits returns client-output-buffer-limit for normal, replica and
// pubsub clients, for the transport to enforce.
func (s *Server) OutputLimits() [3]OutputLimit {
	if p := s.outputLimits.Load(); p != nil {
		return *p
	}
	return defaultOutputLimits
}

// parseOutputLimits validates and normalizes the classes named; applying
// them changes only those classes.
func parseOutputLimits(v string) (string, string) {
	if _, why := readOutputLimits(v, defaultOutputLimits); why != "" {
		return "", why
	}
	f := strings.Fields(v)
	for i := 0; i < len(f); i += 4 {
		hard, _ := memToBytes(f[i+1])
		soft, _ := memToBytes(f[i+2])
		secs, _ := strconv.ParseInt(f[i+3], 10, 64)
		f[i] = strings.ToLower(f[i])
		f[i+1], f[i+2], f[i+3] = strconv.FormatUint(hard, 10), strconv.FormatUint(soft, 10), strconv.FormatInt(secs, 10)
	}
	return strings.Join(f, " "), ""
}

func readOutputLimits(v string, limits [3]OutputLimit) ([3]OutputLimit, string) {
	const bad = "Wrong number of arguments in buffer limit configuration."
	f := strings.Fields(v)
	if len(f) == 0 || len(f)%4 != 0 {
		return limits, bad
	}
	for i := 0; i < len(f); i += 4 {
		class := -1
		switch strings.ToLower(f[i]) {
		case "normal":
			class = 0
		case "slave", "replica":
			class = 1
		case "pubsub":
			class = 2
		}
		if class < 0 {
			return limits, "Invalid client class specified in buffer limit configuration."
		}
		hard, ok1 := memToBytes(f[i+1])
		soft, ok2 := memToBytes(f[i+2])
		secs, err := strconv.ParseInt(f[i+3], 10, 64)
		if !ok1 || !ok2 || err != nil || secs < 0 {
			return limits, "Error in hard, soft or soft_seconds setting in buffer limit configuration."
		}
		limits[class] = OutputLimit{Hard: hard, Soft: soft, SoftSeconds: secs}
	}
	return limits, ""
}

func formatOutputLimits(l [3]OutputLimit) string {
	parts := make([]string, 0, 3)
	for i, class := range outputLimitClasses {
		parts = append(parts, class+" "+strconv.FormatUint(l[i].Hard, 10)+" "+strconv.FormatUint(l[i].Soft, 10)+" "+strconv.FormatInt(l[i].SoftSeconds, 10))
	}
	return strings.Join(parts, " ")
}

func getOutputLimits(s *Server) string { return formatOutputLimits(s.OutputLimits()) }

// setOutputLimits changes only the classes named, as Redis does.
func setOutputLimits(s *Server, v string) string {
	limits, why := readOutputLimits(v, s.OutputLimits())
	if why == "" {
		s.outputLimits.Store(&limits)
	}
	return why
}
