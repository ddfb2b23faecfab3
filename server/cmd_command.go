package server

import (
	"strings"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/store"
)

var commandCommands = []*Command{
	{Name: "command", Arity: -1, Flags: FlagLoading | FlagStale, ACL: []string{"connection"}, Group: "server", Summary: "Get array of Redis command details", Since: "2.8.13", Tips: []string{"nondeterministic_output_order"}, Handler: cmdCommand, Subcommands: []*Command{
		{Name: "count", Arity: 2, Flags: FlagLoading | FlagStale, ACL: clientACL, Group: "server", Summary: "Get total number of Redis commands", Since: "2.8.13", Handler: cmdCommandCount},
		{Name: "info", Arity: -2, Flags: FlagLoading | FlagStale, ACL: clientACL, Group: "server", Summary: "Get array of specific Redis command details, or all when no argument is given.", Since: "2.8.13", Tips: []string{"nondeterministic_output_order"}, Handler: cmdCommandInfo},
		{Name: "docs", Arity: -2, Flags: FlagLoading | FlagStale, ACL: clientACL, Group: "server", Summary: "Get array of specific Redis command documentation", Since: "7.0.0", Tips: []string{"nondeterministic_output_order"}, Handler: cmdCommandDocs},
		{Name: "list", Arity: -2, Flags: FlagLoading | FlagStale, ACL: clientACL, Group: "server", Summary: "Get an array of Redis command names", Since: "7.0.0", Tips: []string{"nondeterministic_output_order"}, Handler: cmdCommandList},
		{Name: "getkeys", Arity: -4, Flags: FlagLoading | FlagStale, ACL: clientACL, Group: "server", Summary: "Extract keys given a full Redis command", Since: "2.8.13", Handler: cmdCommandGetKeys},
		{Name: "getkeysandflags", Arity: -4, Flags: FlagLoading | FlagStale, ACL: clientACL, Group: "server", Summary: "Extract keys and access flags given a full Redis command", Since: "7.0.0", Handler: cmdCommandGetKeys},
		{Name: "help", Arity: 2, Flags: FlagLoading | FlagStale, ACL: clientACL, Group: "server", Summary: "Show helpful text about the different subcommands", Since: "5.0.0", Handler: helpHandler(commandHelp)},
	}},
}

func init() { register(commandCommands...) }

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
	writeKeySpecs(w, cmd)
	w.Set(len(cmd.Subcommands))
	for _, sub := range cmd.Subcommands {
		writeCommandInfo(w, sub)
	}
}

// keySpecFlags approximates the key access flags of a command that has no
// entry in commandKeySpecs (CL.THROTTLE).
func keySpecFlags(cmd *Command) []string {
	if cmd.Flags.Has(FlagWrite) {
		return []string{"RW", "access", "update"}
	}
	return []string{"RO", "access"}
}

// writeKeySpecs writes a command's key specs: Redis's, from
// commandKeySpecs, or for a command Redis lacks one derived from the
// table's first/last/step key positions, an index search and a range.
func writeKeySpecs(w Writer, cmd *Command) {
	if specs, ok := commandKeySpecs[cmd.Name]; ok {
		writeTableKeySpecs(w, specs)
		return
	}
	if cmd.FirstKey <= 0 {
		w.Set(0)
		return
	}
	last := cmd.LastKey
	if last >= 0 {
		last -= cmd.FirstKey
	}
	writeTableKeySpecs(w, []keySpec{{
		flags: strings.Join(keySpecFlags(cmd), " "),
		begin: beginIndex(cmd.FirstKey),
		find:  findRange(last, cmd.Step, 0),
	}})
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

// writeCommandDocs writes the part of COMMAND DOCS that redis-cli's hints
// and help use: summary, since, group and subcommands (no arguments).
func writeCommandDocs(w Writer, cmd *Command) {
	n := 3
	if len(cmd.Subcommands) > 0 {
		n++
	}
	w.Map(n)
	w.BulkString("summary")
	w.BulkString(cmd.Summary)
	w.BulkString("since")
	w.BulkString(cmd.Since)
	w.BulkString("group")
	w.BulkString(cmd.Group)
	if len(cmd.Subcommands) > 0 {
		w.BulkString("subcommands")
		w.Map(len(cmd.Subcommands))
		for _, sub := range cmd.Subcommands {
			w.BulkString(sub.Name)
			writeCommandDocs(w, sub)
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
	case cmd.FirstKey <= 0 && !movable:
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
