package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"math"
	"slices"
	"strconv"
	"strings"
)

// cmdDesc is one command of Redis's src/commands/*.json schema.
type cmdDesc struct {
	Summary         string       `json:"summary"`
	Complexity      string       `json:"complexity"`
	Group           string       `json:"group"`
	Since           string       `json:"since"`
	Arity           int          `json:"arity"`
	Container       string       `json:"container"`
	Function        string       `json:"function"`
	History         [][]string   `json:"history"`
	DeprecatedSince string       `json:"deprecated_since"`
	ReplacedBy      string       `json:"replaced_by"`
	DocFlags        []string     `json:"doc_flags"`
	CommandFlags    []string     `json:"command_flags"`
	ACLCategories   []string     `json:"acl_categories"`
	CommandTips     []string     `json:"command_tips"`
	KeySpecs        []keySpecDoc `json:"key_specs"`
	Arguments       []argDesc    `json:"arguments"`

	name string // lower case; "config|get" for a subcommand
	file string
}

type keySpecDoc struct {
	Notes       string                     `json:"notes"`
	Flags       []string                   `json:"flags"`
	BeginSearch map[string]json.RawMessage `json:"begin_search"`
	FindKeys    map[string]json.RawMessage `json:"find_keys"`
}

// argDesc is one argument. Redis 7.0's COMMAND DOCS prints name, type,
// key_spec_index, token, summary, since, deprecated_since, flags and
// nested arguments; the schema's value and display_text it does not, so
// they are not read.
type argDesc struct {
	Name            string    `json:"name"`
	Type            string    `json:"type"`
	KeySpecIndex    *int      `json:"key_spec_index"`
	Token           string    `json:"token"`
	Summary         string    `json:"summary"`
	Since           string    `json:"since"`
	DeprecatedSince string    `json:"deprecated_since"`
	Optional        bool      `json:"optional"`
	Multiple        bool      `json:"multiple"`
	MultipleToken   bool      `json:"multiple_token"`
	Arguments       []argDesc `json:"arguments"`
}

// commandFlags maps the JSON's command_flags to the server's Flag
// constants. Redis hides the ignored ones from COMMAND INFO, and floodgate
// has no use for them.
var commandFlags = map[string]string{
	"WRITE": "FlagWrite", "READONLY": "FlagReadonly", "DENYOOM": "FlagDenyOOM",
	"MODULE": "FlagModule", "ADMIN": "FlagAdmin", "PUBSUB": "FlagPubSub",
	"NOSCRIPT": "FlagNoScript", "BLOCKING": "FlagBlocking", "LOADING": "FlagLoading",
	"STALE": "FlagStale", "SKIP_MONITOR": "FlagSkipMonitor", "SKIP_SLOWLOG": "FlagSkipSlowlog",
	"ASKING": "FlagAsking", "FAST": "FlagFast", "NO_AUTH": "FlagNoAuth",
	"MAY_REPLICATE": "FlagMayReplicate", "NO_MANDATORY_KEYS": "FlagNoMandatoryKeys",
	"NO_ASYNC_LOADING": "FlagNoAsyncLoading", "NO_MULTI": "FlagNoMulti", "ALLOW_BUSY": "FlagAllowBusy",
	"SENTINEL": "", "ONLY_SENTINEL": "", "PROTECTED": "", "TOUCHES_ARBITRARY_KEYS": "",
}

// flagOrder is the server's Flags bit order, for a stable expression.
var flagOrder = []string{
	"FlagWrite", "FlagReadonly", "FlagDenyOOM", "FlagModule", "FlagAdmin", "FlagPubSub",
	"FlagNoScript", "FlagBlocking", "FlagLoading", "FlagStale", "FlagSkipMonitor",
	"FlagSkipSlowlog", "FlagAsking", "FlagFast", "FlagNoAuth", "FlagMayReplicate",
	"FlagNoMandatoryKeys", "FlagNoAsyncLoading", "FlagNoMulti", "FlagMovableKeys", "FlagAllowBusy",
}

// keyFlagOrder is the order COMMAND INFO lists key spec flags in
// (server.c's addReplyFlagsForKeyArgs).
var keyFlagOrder = []string{"RO", "RW", "OW", "RM", "ACCESS", "UPDATE", "INSERT", "DELETE", "NOT_KEY", "INCOMPLETE", "VARIABLE_FLAGS"}

var argTypes = []string{"string", "integer", "double", "key", "pattern", "unix-time", "pure-token", "oneof", "block"}

// parseCommands reads a set of JSON files into commands by full name.
func parseCommands(files map[string][]byte, into map[string]*cmdDesc) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, file := range names {
		var doc map[string]*cmdDesc
		if err := json.Unmarshal(files[file], &doc); err != nil {
			return fmt.Errorf("%s: %v", file, err)
		}
		for name, d := range doc {
			d.name = strings.ToLower(name)
			if d.Container != "" {
				d.name = strings.ToLower(d.Container) + "|" + d.name
			}
			d.file = file
			if prev, dup := into[d.name]; dup {
				return fmt.Errorf("%s: %s is defined by %s already", file, d.name, prev.file)
			}
			into[d.name] = d
		}
	}
	return nil
}

// generateCommands is the generator's pure function: the text of
// commands_gen.go for the given inputs.
func generateCommands(in *inputs) ([]byte, error) {
	redis := map[string]*cmdDesc{}
	if err := parseCommands(in.redisJSON, redis); err != nil {
		return nil, err
	}
	own := map[string]*cmdDesc{}
	if err := parseCommands(in.floodgateJSON, own); err != nil {
		return nil, err
	}
	all := map[string]*cmdDesc{}
	for n, d := range redis {
		all[n] = d
	}
	for n, d := range own {
		if r, ok := redis[n]; ok {
			return nil, fmt.Errorf("commands/%s: %s is Redis's (%s); floodgate's JSON is for its own commands only", d.file, n, r.file)
		}
		all[n] = d
	}

	// The claimed commands, and the containers of claimed subcommands.
	subs := map[string][]string{}
	var top []string
	for _, name := range in.claimed {
		if _, ok := all[name]; !ok {
			return nil, fmt.Errorf("a handler is registered for %q, which neither Redis's nor floodgate's JSON defines", name)
		}
		if c, _, isSub := strings.Cut(name, "|"); isSub {
			if _, ok := all[c]; !ok {
				return nil, fmt.Errorf("%q has no container %q", name, c)
			}
			if len(subs[c]) == 0 && !slices.Contains(in.claimed, c) {
				top = append(top, c)
			}
			subs[c] = append(subs[c], name)
			continue
		}
		top = append(top, name)
	}
	slices.Sort(top)

	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by internal/redismeta from Redis 7.0.15's src/commands/*.json and server/commands/*.json; DO NOT EDIT.\n")
	fmt.Fprintf(&b, "// To regenerate: REDIS_SRC=/path/to/redis-7.0.15 go generate ./server/\n")
	fmt.Fprintf(&b, "//\n// redis-sha256: %s\n// floodgate-sha256: %s\n", digest(in.redisJSON), floodgateDigest(in.floodgateJSON, in.claimed))
	header := b.Len()
	b.WriteString("\npackage server\n\n")
	b.WriteString("// generatedCommands holds the metadata of every command floodgate\n")
	b.WriteString("// implements (the keys of its handler maps), sorted by name, with the\n")
	b.WriteString("// subcommands it implements; buildTable adds the handlers.\n")
	b.WriteString("var generatedCommands = []*Command{\n")
	for _, name := range top {
		if err := writeCommand(&b, all[name], all, subs[name]); err != nil {
			return nil, err
		}
		b.WriteString(",\n")
	}
	b.WriteString("}\n")
	if err := writeACLOnly(&b, all, in.claimed); err != nil {
		return nil, err
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting the output: %v", err)
	}
	return withBodyDigest(src, header), nil
}

// withBodyDigest inserts the sha256 of the text after the header as the
// header's last line, so that a hand edit is detectable.
func withBodyDigest(src []byte, header int) []byte {
	var out bytes.Buffer
	out.Write(src[:header])
	fmt.Fprintf(&out, "// body-sha256: %s\n", bodyDigest(src))
	out.Write(src[header:])
	return out.Bytes()
}

func writeCommand(b *bytes.Buffer, d *cmdDesc, all map[string]*cmdDesc, subs []string) error {
	flags, first, last, step, err := commandFlagsAndRange(d)
	if err != nil {
		return err
	}
	group := strings.ReplaceAll(d.Group, "_", "-")
	if d.Container != "" {
		group = strings.ReplaceAll(all[strings.ToLower(d.Container)].Group, "_", "-")
	}
	fmt.Fprintf(b, "{Name: %q, Arity: %d", d.name, d.Arity)
	if flags != "" {
		fmt.Fprintf(b, ", Flags: %s", flags)
	}
	if first != 0 {
		fmt.Fprintf(b, ", FirstKey: %d, LastKey: %d, Step: %d", first, last, step)
	}
	if len(d.ACLCategories) > 0 {
		var cats []string
		for _, c := range d.ACLCategories {
			cats = append(cats, strconv.Quote(strings.ToLower(c)))
		}
		fmt.Fprintf(b, ", ACL: []string{%s}", strings.Join(cats, ", "))
	}
	fmt.Fprintf(b, ",\n\tGroup: %q, Since: %q", group, d.Since)
	fmt.Fprintf(b, ",\n\tSummary: %q", d.Summary)
	if d.Complexity != "" {
		fmt.Fprintf(b, ",\n\tComplexity: %q", d.Complexity)
	}
	if len(d.DocFlags) > 0 {
		var fl []string
		for _, f := range d.DocFlags {
			if f != "DEPRECATED" && f != "SYSCMD" {
				return fmt.Errorf("%s: unknown doc flag %s", d.file, f)
			}
			fl = append(fl, strconv.Quote(strings.ToLower(f)))
		}
		fmt.Fprintf(b, ",\n\tDocFlags: []string{%s}", strings.Join(fl, ", "))
	}
	if d.DeprecatedSince != "" {
		fmt.Fprintf(b, ", DeprecatedSince: %q", d.DeprecatedSince)
	}
	if d.ReplacedBy != "" {
		fmt.Fprintf(b, ", ReplacedBy: %q", d.ReplacedBy)
	}
	if len(d.History) > 0 {
		b.WriteString(",\n\tHistory: [][2]string{")
		for _, h := range d.History {
			if len(h) != 2 {
				return fmt.Errorf("%s: a history entry is not [since, changes]", d.file)
			}
			fmt.Fprintf(b, "\n\t\t{%q, %q},", h[0], h[1])
		}
		b.WriteString("\n\t}")
	}
	if len(d.CommandTips) > 0 {
		var tips []string
		for _, t := range d.CommandTips {
			tips = append(tips, strconv.Quote(strings.ToLower(t)))
		}
		fmt.Fprintf(b, ",\n\tTips: []string{%s}", strings.Join(tips, ", "))
	}
	if len(d.KeySpecs) > 0 {
		b.WriteString(",\n\tkeySpecs: []keySpec{")
		for i := range d.KeySpecs {
			s, err := keySpecLiteral(&d.KeySpecs[i])
			if err != nil {
				return fmt.Errorf("%s: key spec %d: %v", d.file, i, err)
			}
			b.WriteString("\n\t\t" + s + ",")
		}
		b.WriteString("\n\t}")
	}
	if len(d.Arguments) > 0 {
		b.WriteString(",\n\tArgs: []Arg{\n")
		if err := writeArgs(b, d, d.Arguments, 2); err != nil {
			return err
		}
		b.WriteString("\t}")
	}
	if len(subs) > 0 {
		b.WriteString(",\n\tSubcommands: []*Command{\n")
		for _, s := range subs {
			if err := writeCommand(b, all[s], all, nil); err != nil {
				return err
			}
			b.WriteString(",\n")
		}
		b.WriteString("}")
	}
	b.WriteString("}")
	return nil
}

func writeArgs(b *bytes.Buffer, d *cmdDesc, args []argDesc, depth int) error {
	indent := strings.Repeat("\t", depth)
	for _, a := range args {
		if !slices.Contains(argTypes, a.Type) {
			return fmt.Errorf("%s: argument %s has unknown type %q", d.file, a.Name, a.Type)
		}
		if a.Type == "key" && a.KeySpecIndex == nil {
			return fmt.Errorf("%s: key argument %s has no key_spec_index", d.file, a.Name)
		}
		if a.KeySpecIndex != nil && (*a.KeySpecIndex < 0 || *a.KeySpecIndex >= len(d.KeySpecs)) {
			return fmt.Errorf("%s: argument %s: no key spec %d", d.file, a.Name, *a.KeySpecIndex)
		}
		if a.MultipleToken && !a.Multiple {
			return fmt.Errorf("%s: argument %s: multiple_token without multiple", d.file, a.Name)
		}
		fmt.Fprintf(b, "%s{Name: %q, Type: %q", indent, strings.ToLower(a.Name), a.Type)
		emptyToken := false
		if a.KeySpecIndex != nil {
			fmt.Fprintf(b, ", KeySpec: %d", *a.KeySpecIndex+1)
		}
		if a.Token != "" {
			tok, err := cLiteral(strings.ToUpper(a.Token))
			if err != nil {
				return fmt.Errorf("%s: argument %s: token: %v", d.file, a.Name, err)
			}
			if tok == "" {
				emptyToken = true
			} else {
				fmt.Fprintf(b, ", Token: %q", tok)
			}
		}
		if a.Summary != "" {
			fmt.Fprintf(b, ", Summary: %q", a.Summary)
		}
		if a.Since != "" {
			fmt.Fprintf(b, ", Since: %q", a.Since)
		}
		if a.DeprecatedSince != "" {
			fmt.Fprintf(b, ", DeprecatedSince: %q", a.DeprecatedSince)
		}
		var fl []string
		if a.Optional {
			fl = append(fl, "ArgOptional")
		}
		if a.Multiple {
			fl = append(fl, "ArgMultiple")
		}
		if a.MultipleToken {
			fl = append(fl, "ArgMultipleToken")
		}
		if emptyToken {
			fl = append(fl, "ArgEmptyToken")
		}
		if len(fl) > 0 {
			fmt.Fprintf(b, ", Flags: %s", strings.Join(fl, " | "))
		}
		nested := a.Type == "oneof" || a.Type == "block"
		if nested != (len(a.Arguments) > 0) {
			return fmt.Errorf("%s: argument %s: only oneof and block arguments (and all of them) have arguments", d.file, a.Name)
		}
		if nested {
			b.WriteString(", Args: []Arg{\n")
			if err := writeArgs(b, d, a.Arguments, depth+1); err != nil {
				return err
			}
			b.WriteString(indent + "}")
		}
		b.WriteString("},\n")
	}
	return nil
}

// keySpecLiteral writes a key spec as the server's keySpec literal.
func keySpecLiteral(s *keySpecDoc) (string, error) {
	var flags []string
	for _, f := range keyFlagOrder {
		if slices.Contains(s.Flags, f) {
			if len(f) == 2 {
				flags = append(flags, f) // RO, RW, OW, RM stay upper case
			} else {
				flags = append(flags, strings.ToLower(f))
			}
		}
	}
	for _, f := range s.Flags {
		if !slices.Contains(keyFlagOrder, f) {
			return "", fmt.Errorf("unknown key spec flag %s", f)
		}
	}
	var begin, find string
	switch {
	case s.BeginSearch["index"] != nil:
		var v struct{ Pos int }
		if err := json.Unmarshal(s.BeginSearch["index"], &v); err != nil {
			return "", err
		}
		begin = fmt.Sprintf("beginIndex(%d)", v.Pos)
	case s.BeginSearch["keyword"] != nil:
		var v struct {
			Keyword   string
			Startfrom int
		}
		if err := json.Unmarshal(s.BeginSearch["keyword"], &v); err != nil {
			return "", err
		}
		begin = fmt.Sprintf("beginKeyword(%q, %d)", v.Keyword, v.Startfrom)
	case hasKey(s.BeginSearch, "unknown"):
		begin = "unknownBegin"
	default:
		return "", fmt.Errorf("invalid begin_search")
	}
	switch {
	case s.FindKeys["range"] != nil:
		var v struct{ Lastkey, Step, Limit int }
		if err := json.Unmarshal(s.FindKeys["range"], &v); err != nil {
			return "", err
		}
		find = fmt.Sprintf("findRange(%d, %d, %d)", v.Lastkey, v.Step, v.Limit)
	case s.FindKeys["keynum"] != nil:
		var v struct{ Keynumidx, Firstkey, Step int }
		if err := json.Unmarshal(s.FindKeys["keynum"], &v); err != nil {
			return "", err
		}
		find = fmt.Sprintf("findKeyNum(%d, %d, %d)", v.Keynumidx, v.Firstkey, v.Step)
	case hasKey(s.FindKeys, "unknown"):
		find = "unknownFind"
	default:
		return "", fmt.Errorf("invalid find_keys")
	}
	lit := "{"
	if s.Notes != "" {
		lit += fmt.Sprintf("notes: %q, ", s.Notes)
	}
	return lit + fmt.Sprintf("flags: %q, begin: %s, find: %s}", strings.Join(flags, " "), begin, find), nil
}

func hasKey(m map[string]json.RawMessage, k string) bool { _, ok := m[k]; return ok }

// commandFlagsAndRange returns the command's Flags expression and the
// legacy first/last/step key range COMMAND INFO reports, derived from the
// key specs as Redis's populateCommandLegacyRangeSpec derives them, which
// also decides the movablekeys flag.
func commandFlagsAndRange(d *cmdDesc) (flags string, first, last, step int, err error) {
	set := map[string]bool{}
	for _, f := range d.CommandFlags {
		c, ok := commandFlags[f]
		if !ok {
			return "", 0, 0, 0, fmt.Errorf("%s: unknown command flag %s", d.file, f)
		}
		if c != "" {
			set[c] = true
		}
	}
	first, last, step, movable, err := legacyRange(d.KeySpecs)
	if err != nil {
		return "", 0, 0, 0, fmt.Errorf("%s: %v", d.file, err)
	}
	set["FlagMovableKeys"] = movable
	var parts []string
	for _, f := range flagOrder {
		if set[f] {
			parts = append(parts, f)
		}
	}
	return strings.Join(parts, " | "), first, last, step, nil
}

func legacyRange(specs []keySpecDoc) (first, last, step int, movable bool, err error) {
	type rng struct {
		pos, lastKey, keyStep int
		incomplete            bool
	}
	var ranges []*rng // nil for a spec that is not index+range
	for i := range specs {
		s := &specs[i]
		if s.BeginSearch["index"] == nil || s.FindKeys["range"] == nil {
			ranges = append(ranges, nil)
			continue
		}
		var bi struct{ Pos int }
		var fr struct{ Lastkey, Step int }
		if err := json.Unmarshal(s.BeginSearch["index"], &bi); err != nil {
			return 0, 0, 0, false, err
		}
		if err := json.Unmarshal(s.FindKeys["range"], &fr); err != nil {
			return 0, 0, 0, false, err
		}
		ranges = append(ranges, &rng{bi.Pos, fr.Lastkey, fr.Step, slices.Contains(s.Flags, "INCOMPLETE")})
	}
	if len(ranges) == 0 {
		return 0, 0, 0, false, nil
	}
	report := func(pos, lastKey, keyStep int) (int, int, int) {
		if lastKey >= 0 {
			lastKey += pos
		}
		return pos, lastKey, keyStep
	}
	if len(ranges) == 1 && ranges[0] != nil {
		r := ranges[0]
		f, l, s := report(r.pos, r.lastKey, r.keyStep)
		return f, l, s, r.incomplete, nil
	}
	firstKey, lastKey, prevLast := math.MaxInt32, 0, 0
	for _, r := range ranges {
		if r == nil || r.keyStep != 1 || (prevLast != 0 && prevLast != r.pos-1) {
			movable = true
			continue
		}
		if r.incomplete {
			movable = true
		}
		firstKey = min(firstKey, r.pos)
		abs := r.lastKey
		if abs >= 0 {
			abs += r.pos
		}
		// Redis compares as unsigned, so a negative (counted from the
		// end) last key wins over any positive one.
		if uint32(int32(abs)) > uint32(int32(lastKey)) {
			lastKey = abs
		}
		prevLast = lastKey
	}
	if firstKey == math.MaxInt32 {
		return 0, 0, 0, true, nil
	}
	rel := lastKey
	if lastKey >= 0 {
		rel = lastKey - firstKey
	}
	f, l, s := report(firstKey, rel, 1)
	return f, l, s, movable, nil
}

// cLiteral is the string Redis's generator makes of s: it writes s
// between double quotes into commands.c, so the C compiler reads it as
// one or more adjacent literals (MIGRATE's token "\"\"" becomes "", the
// concatenation of two empty literals, and COMMAND DOCS prints it so).
func cLiteral(s string) (string, error) {
	src := `"` + s + `"`
	var out strings.Builder
	for len(src) > 0 {
		end := 1
		for end < len(src) && src[end] != '"' {
			if src[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(src) {
			return "", fmt.Errorf("unterminated C literal %s", src)
		}
		part, err := strconv.Unquote(src[:end+1])
		if err != nil {
			return "", err
		}
		out.WriteString(part)
		src = strings.TrimLeft(src[end+1:], " \t")
	}
	return out.String(), nil
}

// writeACLOnly writes aclOnlyCommands: every command and subcommand of
// Redis (and floodgate's JSON) that floodgate does not implement, with the
// flags and categories ACL rules read, and the arity and key specs ACL
// DRYRUN checks. Redis's ACL works on its whole
// command table: +xadd is a valid rule, @write counts XADD, and ACL LIST
// describes a user by how many commands of each category it may run, so
// the ACL model needs the commands floodgate leaves out as well.
func writeACLOnly(b *bytes.Buffer, all map[string]*cmdDesc, claimed []string) error {
	names := make([]string, 0, len(all))
	onlySentinel := func(d *cmdDesc) bool { return d != nil && slices.Contains(d.CommandFlags, "ONLY_SENTINEL") }
	for n, d := range all {
		// Sentinel's own commands are not in a Redis server's table.
		container, _, _ := strings.Cut(n, "|")
		if !slices.Contains(claimed, n) && !onlySentinel(d) && !onlySentinel(all[container]) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	b.WriteString("\n// aclOnlyCommands are the commands and subcommands (\"client|tracking\")\n")
	b.WriteString("// floodgate does not implement, for ACL rules and categories only.\n")
	b.WriteString("var aclOnlyCommands = []*Command{\n")
	for _, n := range names {
		d := all[n]
		flags, _, _, _, err := commandFlagsAndRange(d)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "{Name: %q", n)
		if d.Arity != 0 {
			// ACL DRYRUN checks a command's arity before its permissions.
			fmt.Fprintf(b, ", Arity: %d", d.Arity)
		}
		if flags != "" {
			fmt.Fprintf(b, ", Flags: %s", flags)
		}
		if len(d.ACLCategories) > 0 {
			var cats []string
			for _, c := range d.ACLCategories {
				cats = append(cats, strconv.Quote(strings.ToLower(c)))
			}
			fmt.Fprintf(b, ", ACL: []string{%s}", strings.Join(cats, ", "))
		}
		if len(d.KeySpecs) > 0 {
			// ACL DRYRUN checks a user's key patterns against them.
			b.WriteString(", keySpecs: []keySpec{")
			for i := range d.KeySpecs {
				s, err := keySpecLiteral(&d.KeySpecs[i])
				if err != nil {
					return fmt.Errorf("%s: %w", d.file, err)
				}
				b.WriteString(s + ", ")
			}
			b.WriteString("}")
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	return nil
}
