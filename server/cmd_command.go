package server

import (
	"strings"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/store"
)

var commandHandlers = map[string]Handler{
	"command":                 cmdCommand,
	"command|count":           cmdCommandCount,
	"command|info":            cmdCommandInfo,
	"command|docs":            cmdCommandDocs,
	"command|list":            cmdCommandList,
	"command|getkeys":         cmdCommandGetKeys,
	"command|getkeysandflags": cmdCommandGetKeys,
	"command|help":            helpHandler(commandHelp),
}

var commandHelp = []string{
	"COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"(no subcommand)",
	"    Return details about all Redis commands.",
	"COUNT",
	"    Return the total number of commands in this Redis server.",
	"LIST",
	"    Return a list of all commands in this Redis server.",
	"INFO [<command-name> ...]",
	"    Return details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"DOCS [<command-name> ...]",
	"    Return documentation details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"GETKEYS <full-command>",
	"    Return the keys from a full Redis command.",
	"GETKEYSANDFLAGS <full-command>",
	"    Return the keys and the access flags from a full Redis command.",
	"HELP",
	"    Prints this help.",
}

func cmdCommand(c *Client, args [][]byte) {
	c.w.Array(len(commandTable.all))
	for _, cmd := range commandTable.all {
		writeCommandInfo(c.w, cmd)
	}
}

// cmdCommandCount counts top-level commands, as Redis does.
func cmdCommandCount(c *Client, args [][]byte) { c.w.Int(int64(len(commandTable.all))) }

// lookupCommandName finds "get" or "config|get", case-insensitively.
func lookupCommandName(name []byte) *Command {
	base, sub, isSub := strings.Cut(string(name), "|")
	cmd := commandTable.lookup([]byte(base))
	if cmd == nil || !isSub {
		return cmd
	}
	return cmd.subcommand([]byte(sub))
}

func cmdCommandInfo(c *Client, args [][]byte) {
	if len(args) == 2 {
		cmdCommand(c, args)
		return
	}
	c.w.Array(len(args) - 2)
	for _, name := range args[2:] {
		if cmd := lookupCommandName(name); cmd != nil {
			writeCommandInfo(c.w, cmd)
		} else {
			c.w.Null()
		}
	}
}

// writeCommandInfo writes Redis 7.0's ten-field COMMAND INFO entry: name,
// arity, flags, first key, last key, step, ACL categories, tips, key specs
// and subcommands.
func writeCommandInfo(w Writer, cmd *Command) {
	w.Array(10)
	w.BulkString(cmd.Name)
	w.Int(int64(cmd.Arity))
	// Under RESP3 Redis sends these lists as sets and key specs as maps.
	flags := cmd.Flags.Names()
	w.Set(len(flags))
	for _, f := range flags {
		w.Status(f)
	}
	w.Int(int64(cmd.FirstKey))
	w.Int(int64(cmd.LastKey))
	w.Int(int64(cmd.Step))
	w.Set(len(cmd.categories))
	for _, cat := range cmd.categories {
		w.Status("@" + cat)
	}
	w.Set(len(cmd.Tips))
	for _, tip := range cmd.Tips {
		w.BulkString(tip)
	}
	writeTableKeySpecs(w, cmd.keySpecs)
	// Redis answers no subcommands with an empty set, and subcommands
	// with an array (addReplyCommandSubCommands).
	if len(cmd.Subcommands) == 0 {
		w.Set(0)
		return
	}
	w.Array(len(cmd.Subcommands))
	for _, sub := range cmd.Subcommands {
		writeCommandInfo(w, sub)
	}
}

func cmdCommandDocs(c *Client, args [][]byte) {
	var cmds []*Command
	if len(args) == 2 {
		cmds = commandTable.all
	} else {
		for _, name := range args[2:] {
			if cmd := lookupCommandName(name); cmd != nil {
				cmds = append(cmds, cmd)
			}
		}
	}
	c.w.Map(len(cmds))
	for _, cmd := range cmds {
		c.w.BulkString(cmd.Name)
		writeCommandDocs(c.w, cmd)
	}
}

// writeCommandDocs writes a command's COMMAND DOCS entry as Redis 7.0's
// addReplyCommandDocs does: summary, since, group, complexity, doc_flags,
// deprecated_since, replaced_by, history, arguments and subcommands, each
// left out when empty but the group.
func writeCommandDocs(w Writer, cmd *Command) {
	n := 1
	for _, present := range []bool{
		cmd.Summary != "", cmd.Since != "", cmd.Complexity != "", len(cmd.DocFlags) > 0,
		cmd.DeprecatedSince != "", cmd.ReplacedBy != "", len(cmd.History) > 0,
		len(cmd.Args) > 0, len(cmd.Subcommands) > 0,
	} {
		if present {
			n++
		}
	}
	w.Map(n)
	if cmd.Summary != "" {
		w.BulkString("summary")
		w.BulkString(cmd.Summary)
	}
	if cmd.Since != "" {
		w.BulkString("since")
		w.BulkString(cmd.Since)
	}
	w.BulkString("group")
	w.BulkString(cmd.Group)
	if cmd.Complexity != "" {
		w.BulkString("complexity")
		w.BulkString(cmd.Complexity)
	}
	if len(cmd.DocFlags) > 0 {
		w.BulkString("doc_flags")
		w.Set(len(cmd.DocFlags))
		for _, f := range cmd.DocFlags {
			w.Status(f)
		}
	}
	if cmd.DeprecatedSince != "" {
		w.BulkString("deprecated_since")
		w.BulkString(cmd.DeprecatedSince)
	}
	if cmd.ReplacedBy != "" {
		w.BulkString("replaced_by")
		w.BulkString(cmd.ReplacedBy)
	}
	if len(cmd.History) > 0 {
		w.BulkString("history")
		w.Set(len(cmd.History))
		for _, h := range cmd.History {
			w.Array(2)
			w.BulkString(h[0])
			w.BulkString(h[1])
		}
	}
	if len(cmd.Args) > 0 {
		w.BulkString("arguments")
		writeCommandArgs(w, cmd.Args)
	}
	if len(cmd.Subcommands) > 0 {
		w.BulkString("subcommands")
		w.Map(len(cmd.Subcommands))
		for _, sub := range cmd.Subcommands {
			w.BulkString(sub.Name)
			writeCommandDocs(w, sub)
		}
	}
}

// writeCommandArgs writes arguments as Redis 7.0's addReplyCommandArgList
// does: name and type, then key_spec_index, token, summary, since,
// deprecated_since, flags and nested arguments where they apply.
func writeCommandArgs(w Writer, args []Arg) {
	w.Array(len(args))
	for i := range args {
		a := &args[i]
		nested := a.Type == "oneof" || a.Type == "block"
		n := 2
		for _, present := range []bool{
			a.KeySpec > 0, a.Token != "" || a.Flags&ArgEmptyToken != 0, a.Summary != "", a.Since != "",
			a.DeprecatedSince != "", a.Flags&argListedFlags != 0, nested,
		} {
			if present {
				n++
			}
		}
		w.Map(n)
		w.BulkString("name")
		w.BulkString(a.Name)
		w.BulkString("type")
		w.BulkString(a.Type)
		if a.KeySpec > 0 {
			w.BulkString("key_spec_index")
			w.Int(int64(a.KeySpec - 1))
		}
		if a.Token != "" || a.Flags&ArgEmptyToken != 0 {
			w.BulkString("token")
			w.BulkString(a.Token)
		}
		for _, f := range [...]struct{ name, value string }{
			{"summary", a.Summary}, {"since", a.Since}, {"deprecated_since", a.DeprecatedSince},
		} {
			if f.value != "" {
				w.BulkString(f.name)
				w.BulkString(f.value)
			}
		}
		if a.Flags&argListedFlags != 0 {
			w.BulkString("flags")
			var names []string
			for bit, name := range argFlagNames {
				if a.Flags&(1<<bit) != 0 {
					names = append(names, name)
				}
			}
			w.Set(len(names))
			for _, name := range names {
				w.Status(name)
			}
		}
		if nested {
			w.BulkString("arguments")
			writeCommandArgs(w, a.Args)
		}
	}
}

// cmdCommandList lists every command and subcommand name, optionally
// FILTERBY MODULE (none here), ACLCAT or PATTERN.
func cmdCommandList(c *Client, args [][]byte) {
	match := func(*Command) bool { return true }
	switch {
	case len(args) == 2:
	case len(args) == 5 && eqFold(args[2], "filterby"):
		val := args[4]
		switch {
		case eqFold(args[3], "module"):
			match = func(*Command) bool { return false }
		case eqFold(args[3], "aclcat"):
			match = func(cmd *Command) bool {
				for _, cat := range cmd.categories {
					if eqFold(val, cat) {
						return true
					}
				}
				return false
			}
		case eqFold(args[3], "pattern"):
			match = func(cmd *Command) bool { return store.Match(val, []byte(cmd.Name), true) }
		default:
			c.w.Error(errSyntax)
			return
		}
	default:
		c.w.Error(errSyntax)
		return
	}
	var names []string
	for _, cmd := range commandTable.all {
		if match(cmd) {
			names = append(names, cmd.Name)
		}
		for _, sub := range cmd.Subcommands {
			if match(sub) {
				names = append(names, sub.Name)
			}
		}
	}
	c.w.Array(len(names))
	for _, n := range names {
		c.w.BulkString(n)
	}
}

// cmdCommandGetKeys serves GETKEYS and GETKEYSANDFLAGS.
func cmdCommandGetKeys(c *Client, args [][]byte) {
	target := args[2:]
	cmd := commandTable.lookup(target[0])
	if cmd != nil && len(cmd.Subcommands) > 0 && len(target) > 1 {
		cmd = cmd.subcommand(target[1])
	}
	var nk numKeys
	movable := false
	if cmd != nil {
		nk, movable = numKeysCommands[cmd.Name]
	}
	switch {
	case cmd == nil:
		c.w.Error("ERR Invalid command specified")
		return
	case !hasKeys(cmd):
		c.w.Error("ERR The command has no key arguments")
		return
	case !cmd.arityOK(len(target)):
		c.w.Error("ERR Invalid number of arguments specified for command")
		return
	}
	pos := cmd.keys(target)
	if cmd.Name == "sort" {
		pos = sortKeys(target)
	} else if cmd.Name == "migrate" {
		if pos = migrateKeys(target); len(pos) == 0 {
			c.w.Error("ERR Invalid arguments specified for command")
			return
		}
	} else if spec, ok := keywordKeyCommands[cmd.Name]; ok {
		pos = append(pos, spec.keys(target)...)
	} else if cmd.Name == "xread" || cmd.Name == "xreadgroup" {
		// A keyword spec the table's first/last/step cannot hold: the
		// keys are the first half of what follows STREAMS.
		if pos, _ = cmd.keySpecs[0].positions(target); len(pos) == 0 {
			c.w.Error("ERR Invalid arguments specified for command")
			return
		}
	} else if _, proc := keyProcCommands[cmd.Name]; !proc && !specKeys(cmd, target, func(int, *keySpec) {}) {
		// A spec invalid for these arguments (PFMERGE dest: no source
		// from index 2): getKeysUsingKeySpecs returns no key at all.
		c.w.Error("ERR Invalid arguments specified for command")
		return
	}
	if movable {
		var ok bool
		if pos, ok = nk.keys(target); !ok {
			if cmd.Flags.Has(FlagNoMandatoryKeys) {
				c.w.Array(0)
			} else {
				c.w.Error("ERR Invalid arguments specified for command")
			}
			return
		}
	}
	withFlags := c.cmd.Name == "command|getkeysandflags"
	c.w.Array(len(pos))
	for _, p := range pos {
		if withFlags {
			c.w.Array(2)
		}
		c.w.Bulk(target[p])
		if withFlags {
			flags := keyFlags(cmd, target, p)
			c.w.Set(len(flags))
			for _, f := range flags {
				c.w.Status(f)
			}
		}
	}
}

// numKeys locates the keys of a command whose keys follow a numkeys
// argument (EVAL, ZUNIONSTORE, ...), for COMMAND GETKEYS: the table's
// first/last/step cannot describe them.
type numKeys struct {
	dest    int // position of a destination key before numkeys, or 0
	numkeys int // position of the numkeys argument
}

var numKeysCommands = map[string]numKeys{
	"eval": {0, 2}, "evalsha": {0, 2}, "eval_ro": {0, 2}, "evalsha_ro": {0, 2}, "fcall": {0, 2}, "fcall_ro": {0, 2},
	"zunionstore": {1, 2}, "zinterstore": {1, 2}, "zdiffstore": {1, 2},
	"zunion": {0, 1}, "zinter": {0, 1}, "zdiff": {0, 1}, "zintercard": {0, 1}, "sintercard": {0, 1},
	"zmpop": {0, 1}, "bzmpop": {0, 2}, "lmpop": {0, 1}, "blmpop": {0, 2},
}

// keys returns the key positions in args, or false when numkeys is not a
// number or announces more keys than there are arguments.
func (nk numKeys) keys(args [][]byte) ([]int, bool) {
	if nk.numkeys >= len(args) {
		return nil, false
	}
	n, ok := number.ParseInt(args[nk.numkeys])
	if !ok || n < 1 || n > int64(len(args)-nk.numkeys-1) {
		return nil, false
	}
	var pos []int
	if nk.dest > 0 {
		pos = append(pos, nk.dest)
	}
	for i := 0; i < int(n); i++ {
		pos = append(pos, nk.numkeys+1+i)
	}
	return pos, true
}

// keywordKeys locates keys that follow a keyword (GEORADIUS's STORE and
// STOREDIST) as Redis 7.0's keyword key specs do: each keyword is looked
// for from position from up to the next-to-last argument, and only its
// first occurrence counts.
type keywordKeys struct {
	from     int
	keywords []string
}

var keywordKeyCommands = map[string]keywordKeys{
	"georadius":         {6, []string{"store", "storedist"}},
	"georadiusbymember": {5, []string{"store", "storedist"}},
}

func (kk keywordKeys) keys(args [][]byte) []int {
	var pos []int
	for _, kw := range kk.keywords {
		for i := kk.from; i < len(args)-1; i++ {
			if eqFold(args[i], kw) {
				pos = append(pos, i+1)
				break
			}
		}
	}
	return pos
}
