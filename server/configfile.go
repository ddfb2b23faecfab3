package server

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/floodgate/floodgate/internal/argline"
)

// ConfigError is a config file or command-line directive floodgate
// refuses; its text is Redis's FATAL CONFIG FILE ERROR block, and the
// binary exits 1 after printing it, as redis-server does.
type ConfigError struct {
	Line   int    // 1-based, in the file (or the options) being read; 0: none
	Text   string // the line, trimmed
	Reason string
	// aclStartup: the users could not be loaded once the file was read;
	// Redis logs the reason and exits.
	aclStartup bool
}

func (e *ConfigError) Error() string {
	if e.aclStartup {
		return e.Reason + "\n" // logged by Redis before it exits
	}
	if strings.HasPrefix(e.Reason, "Fatal error") {
		return e.Reason + "\n" // a log line in Redis, not the block
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n*** FATAL CONFIG FILE ERROR (Redis %s) ***\n", Version)
	if e.Line > 0 {
		fmt.Fprintf(&b, "Reading the configuration file, at line %d\n>>> '%s'\n", e.Line, e.Text)
	}
	b.WriteString(e.Reason + "\n")
	return b.String()
}

// ConfigArgs splits a redis-server command line as Redis's main does: an
// optional config file first (any argument not starting with '-'), '-' to
// read more from stdin, then "--name value ..." options, each "--name"
// starting a new directive line.
func ConfigArgs(args []string) (file string, stdin bool, options string) {
	var b strings.Builder
	j := 0
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		file, j = args[0], 1
	}
	handledLast := true
	for ; j < len(args); j++ {
		a := args[j]
		switch {
		case a == "-" && (j == 0 || j == len(args)-1):
			stdin = true
		case handledLast && strings.HasPrefix(a, "--"):
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(a[2:] + " ")
			words, _ := argline.SplitString(a)
			if len(words) != 1 {
				handledLast = true // "--port 6380" in one argument
				continue
			}
			handledLast = false
			if strings.EqualFold(a, "--save") && (j == len(args)-1 || strings.HasPrefix(args[j+1], "--")) {
				// Redis 7.0.1's special case: "--save" with no value is save "".
				b.WriteString(`""`)
				handledLast = true
			}
		default:
			b.WriteString(argline.Quote(a) + " ")
			handledLast = true
		}
	}
	return file, stdin, b.String()
}

// LoadConfig reads a config file (if any), then stdin (if asked), then
// the command-line options, in that order, as one text: a later
// directive overrides an earlier one. It must run before Start.
func (s *Server) LoadConfig(file string, stdin io.Reader, options string) error {
	var text strings.Builder
	if file != "" {
		abs, err := filepath.Abs(file)
		if err == nil {
			file = abs
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return &ConfigError{Reason: fmt.Sprintf("Fatal error, can't open config file '%s': %s", file, errnoText(err))}
		}
		text.Write(data)
		s.configFile = file
	}
	if stdin != nil {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return &ConfigError{Reason: "Reading config from stdin: " + err.Error()}
		}
		text.Write(data)
	}
	if options != "" {
		text.WriteString("\n" + options)
	}
	s.refused = map[*configParam]error{}
	if err := s.loadConfigString(text.String(), 0); err != nil {
		return err
	}
	for _, p := range configTable {
		if err := s.refused[p]; err != nil {
			return err
		}
	}
	if err := s.loadUsersAtStartup(); err != nil {
		return err
	}
	if lf := s.settings["logfile"]; lf != "" {
		f, err := os.OpenFile(lf, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return &ConfigError{Reason: "Can't open the log file: " + errnoText(err)}
		}
		f.Close()
	}
	return nil
}

// errnoText is strerror's part of a Go file error.
func errnoText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		err = pe.Err
	}
	msg := err.Error()
	if msg != "" {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	return msg
}

// deprecatedDirectives are accepted and ignored by Redis 7.0 too.
var deprecatedDirectives = map[string]bool{"list-max-ziplist-entries": true, "list-max-ziplist-value": true, "lua-replicate-commands": true}

// loadConfigString applies a config text as loadServerConfigFromString.
func (s *Server) loadConfigString(text string, depth int) error {
	for i, raw := range strings.Split(text, "\n") {
		line := strings.Trim(raw, " \t\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		fail := func(reason string) error { return &ConfigError{Line: i + 1, Text: line, Reason: reason} }
		argv, err := argline.SplitString(line)
		if err != nil {
			return fail("Unbalanced quotes in configuration line")
		}
		if len(argv) == 0 {
			continue
		}
		name := strings.ToLower(argv[0])
		if p := configByName[name]; p != nil {
			if p.flags&paramMultiArg == 0 && len(argv) != 2 {
				return fail("wrong number of arguments")
			}
			v := strings.Join(argv[1:], " ")
			if p.effect == effectDefaultOnly {
				// A later line (a command-line option) may still turn the
				// feature off again: refused once everything is read.
				if _, why := p.canonical(v); why != "" {
					return fail(why)
				}
				delete(s.refused, p)
				if p.unbuilt(v) {
					s.refused[p] = fail(errBadDirective)
				}
				continue
			}
			if why := p.set(s, v, true); why != "" {
				return fail(why)
			}
			continue
		}
		switch {
		case deprecatedDirectives[name] && len(argv) == 2:
		case name == "user" && len(argv) >= 2:
			if why := s.declareUser(argv); why != "" {
				return fail(why)
			}
		case name == "include" && len(argv) == 2:
			if depth > 16 {
				return fail("include nested too deeply")
			}
			if err := s.include(argv[1], depth); err != nil {
				return err
			}
		default:
			// rename-command, loadmodule, sentinel and module
			// parameters too: floodgate has none of them, and refuses
			// them as Redis refuses what it does not know.
			return fail(errBadDirective)
		}
	}
	return nil
}

// include reads a file, or every file a glob matches (none is fine), as
// Redis's loadServerConfig does.
func (s *Server) include(pattern string, depth int) error {
	files := []string{pattern}
	if strings.ContainsAny(pattern, "*?[") {
		files, _ = filepath.Glob(pattern)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return &ConfigError{Reason: fmt.Sprintf("Fatal error, can't open config file '%s': %s", f, errnoText(err))}
		}
		if err := s.loadConfigString(string(data), depth+1); err != nil {
			return err
		}
	}
	return nil
}

// rewriteSignature marks the lines CONFIG REWRITE appended.
const rewriteSignature = "# Generated by CONFIG REWRITE"

// rewriteConfig writes the config file back as Redis's rewriteConfig:
// comments and lines it does not know stay; a parameter's first line is
// replaced with its value in effect and its other lines dropped;
// parameters the file did not name are appended under the signature only
// when they differ from their defaults.
func (s *Server) rewriteConfig() error {
	data, err := os.ReadFile(s.configFile)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	var lines []string
	if len(data) > 0 {
		lines = strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}
	written := map[*configParam]bool{}
	var out []string
	hasTail := false
	users := s.rewriteUserLines()
	for _, line := range lines {
		trimmed := strings.Trim(line, " \t\r\n")
		if trimmed == rewriteSignature {
			hasTail = true
		}
		argv, err := argline.SplitString(trimmed)
		if trimmed == "" || trimmed[0] == '#' || err != nil || len(argv) == 0 {
			out = append(out, line)
			continue
		}
		if strings.EqualFold(argv[0], "user") {
			// Each user line of the file takes the next user, in
			// order; the file's extra user lines go.
			if len(users) > 0 {
				out = append(out, users[0])
				users = users[1:]
			}
			continue
		}
		p := configByName[strings.ToLower(argv[0])]
		if p == nil {
			out = append(out, line)
			continue
		}
		if !written[p] {
			written[p] = true
			out = append(out, p.rewriteLines(s)...)
		}
	}
	for _, p := range configTable {
		if written[p] || p.value(s) == p.def && p.name != "save" {
			continue
		}
		if !hasTail {
			out = append(out, rewriteSignature)
			hasTail = true
		}
		out = append(out, p.rewriteLines(s)...)
	}
	// The users the file had no line for come last, as Redis rewrites
	// them after every parameter.
	if len(users) > 0 && !hasTail {
		out = append(out, rewriteSignature)
	}
	out = append(out, users...)
	tmp := s.configFile + ".tmp"
	if err := os.WriteFile(tmp, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, s.configFile)
}

// rewriteUserLines are the user directives CONFIG REWRITE writes, as
// Redis's rewriteConfigUserOption: every user, default included, in name
// order, as ACL LIST describes it, whether or not the file had users; none
// with an aclfile, which holds them instead (the file's user lines go).
func (s *Server) rewriteUserLines() []string {
	if s.aclFile() != "" {
		return nil
	}
	users := s.acl.users
	var lines []string
	for _, n := range users.Names() {
		lines = append(lines, "user "+n+" "+users.User(n).Describe())
	}
	return lines
}

// rewriteLines are a parameter's lines as CONFIG REWRITE writes them.
func (p *configParam) rewriteLines(s *Server) []string {
	v := p.value(s)
	switch {
	case p.name == "replicaof" && v == "":
		return nil // a master's file names no master (rewriteConfigReplicaOfOption)
	case p.name == "client-output-buffer-limit":
		f := strings.Fields(v)
		var lines []string
		for i := 0; i+3 < len(f); i += 4 {
			lines = append(lines, p.name+" "+strings.Join(f[i:i+4], " "))
		}
		return lines
	case p.flags&paramMultiArg != 0:
		if v == "" {
			return []string{p.name + ` ""`}
		}
		return []string{p.name + " " + v}
	case p.kind == kindString || p.kind == kindSpecial:
		return []string{p.name + " " + argline.Quote(v)}
	}
	return []string{p.name + " " + v}
}
