package server

import (
	"bytes"
	"strings"
	"time"

	"github.com/floodgate/floodgate/store"
)

var configHandlers = map[string]Handler{
	"config|get":       cmdConfigGet,
	"config|set":       cmdConfigSet,
	"config|resetstat": cmdConfigResetStat,
	"config|rewrite":   cmdConfigRewrite,
	"config|help":      helpHandler(configHelp),
}

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

// cmdConfigGet answers name/value pairs for every parameter a pattern
// matches, each parameter once. A name without glob characters is echoed
// as the client spelled it, as Redis does.
func cmdConfigGet(c *Client, args [][]byte) {
	type pair struct{ name, value string }
	var out []pair
	seen := map[string]bool{}
	for _, arg := range args[2:] {
		// Redis looks for a glob and matches with C string functions, which
		// stop at a NUL; the exact lookup compares all the bytes.
		pat := truncate(arg, len(arg))
		if !strings.ContainsAny(pat, "[*?") {
			// Asked twice in two spellings, a parameter is listed once.
			if p := lookupConfig(arg); p != nil && !seen[strings.ToLower(string(arg))] {
				seen[strings.ToLower(string(arg))] = true
				out = append(out, pair{string(arg), p.value(c.srv)})
			}
			continue
		}
		// Redis 7.0 matches aliases too and lists each under that name.
		for _, p := range configTable {
			if p.flags&paramHidden != 0 {
				continue
			}
			for _, name := range []string{p.name, p.alias} {
				if name != "" && !seen[name] && store.Match([]byte(pat), []byte(name), true) {
					seen[name] = true
					out = append(out, pair{name, p.value(c.srv)})
				}
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
		if p != nil && p.flags&paramImmutable != 0 {
			failed(args[i], "can't set immutable config")
			return
		}
		if p != nil && p.flags&paramProtected != 0 && !c.allowedProtected("enable-protected-configs") {
			failed(args[i], "can't set protected config")
			return
		}
		if p == nil || p.unbuilt(p.setValue(args[i+1])) {
			c.errorf("ERR Unknown option or number of arguments for CONFIG SET - '%s'", sanitizeError(string(args[i])))
			return
		}
		if denyLoadingParams[p.name] && c.srv.loading.active.Load() {
			c.w.Error(errLoading)
			return
		}
		// A name and its alias are two parameters to Redis 7.0's check.
		for j := 2; j < i; j += 2 {
			if strings.EqualFold(string(args[j]), string(args[i])) {
				failed(args[i], "duplicate parameter")
				return
			}
		}
		params = append(params, p)
	}
	// Every value is validated before any is applied; if one cannot be
	// applied (a port that cannot be bound), the ones applied before it
	// are restored, as Redis 7.0's CONFIG SET is atomic.
	canon := make([]string, len(params))
	for i, p := range params {
		var why string
		if canon[i], why = p.canonical(p.setValue(args[3+2*i])); why != "" {
			failed(args[2+2*i], why)
			return
		}
	}
	old := make([]string, len(params))
	for i, p := range params {
		old[i] = p.value(c.srv)
		if why := p.set(c.srv, canon[i], false); why != "" {
			for j := i - 1; j >= 0; j-- {
				params[j].set(c.srv, old[j], false)
			}
			failed(args[2+2*i], why)
			return
		}
	}
	ran := map[*configCommit]bool{}
	for i, p := range params {
		// A value set to itself changes nothing and is not applied
		// again, unless the parameter is volatile (a file's name: its
		// contents may have changed), as config.c's setters answer.
		if p.commit == nil || ran[p.commit] || (old[i] == canon[i] && p.flags&paramVolatile == 0) {
			continue
		}
		ran[p.commit] = true
		if why := p.commit.run(c.srv); why != "" {
			// A commit changes nothing when it fails: restoring the
			// values is enough (Redis's restoreBackupConfig).
			for j := len(params) - 1; j >= 0; j-- {
				params[j].set(c.srv, old[j], false)
			}
			failed(args[2+2*i], why)
			return
		}
	}
	c.w.Status("OK")
}

func cmdConfigRewrite(c *Client, args [][]byte) {
	if c.srv.configFile == "" {
		c.w.Error("ERR The server is running without a config file")
		return
	}
	if err := c.srv.rewriteConfig(); err != nil {
		c.srv.log.Warn("CONFIG REWRITE failed: " + errnoText(err))
		c.errorf("ERR Rewriting config file: %s", errnoText(err))
		return
	}
	c.srv.log.Warn("CONFIG REWRITE executed with success.") // at warning, as Redis logs it
	c.w.Status("OK")
}

// cmdConfigResetStat is Redis's configResetStatCommand: resetServerStats,
// resetCommandTableStats and resetErrorTableStats (stats.go's resetStats).
func cmdConfigResetStat(c *Client, args [][]byte) {
	c.srv.resetStats(time.Now())
	c.w.Status("OK")
}

// setValue is a CONFIG SET value as Redis's parser for the parameter sees
// it: all the bytes for a string (an sds) or an integer (string2ll with
// the length); else a C string, which ends at a NUL (strcasecmp, memtoull,
// strtoll); a multi-argument value is split at spaces first, so each word
// ends at its own NUL.
func (p *configParam) setValue(v []byte) string {
	if p.kind == kindString || p.kind == kindInt {
		return string(v)
	}
	if p.flags&paramMultiArg == 0 {
		return truncate(v, len(v))
	}
	words := bytes.Split(v, []byte(" "))
	for i, w := range words {
		words[i] = []byte(truncate(w, len(w)))
	}
	return string(bytes.Join(words, []byte(" ")))
}
