package server

import (
	"sort"
	"strings"
	"sync"
)

// Flags describe a command to the generic checks (arity, scripts, MULTI,
// read-only scripts, COMMAND INFO). Their order is the order in which Redis
// lists them in COMMAND INFO.
type Flags uint32

// Command flags, as in Redis's command table.
const (
	FlagWrite Flags = 1 << iota
	FlagReadonly
	FlagDenyOOM
	FlagModule
	FlagAdmin
	FlagPubSub
	FlagNoScript
	FlagBlocking
	FlagLoading
	FlagStale
	FlagSkipMonitor
	FlagSkipSlowlog
	FlagAsking
	FlagFast
	FlagNoAuth
	FlagMayReplicate
	FlagNoMandatoryKeys
	FlagNoAsyncLoading
	FlagNoMulti
	FlagMovableKeys
	FlagAllowBusy
)

var flagNames = []string{
	"write", "readonly", "denyoom", "module", "admin", "pubsub", "noscript",
	"blocking", "loading", "stale", "skip_monitor", "skip_slowlog", "asking",
	"fast", "no_auth", "may_replicate", "no_mandatory_keys", "no_async_loading",
	"no_multi", "movablekeys", "allow_busy",
}

// Has reports whether all of want are set.
func (f Flags) Has(want Flags) bool { return f&want == want }

// Names returns the flags' names in COMMAND INFO order. Like Redis 7.0,
// it leaves out may_replicate, which COMMAND INFO hides on purpose.
func (f Flags) Names() []string {
	var names []string
	for i, n := range flagNames {
		if f&(1<<i) != 0 && Flags(1<<i) != FlagMayReplicate {
			names = append(names, n)
		}
	}
	return names
}

// Command is one entry of the command table. The table is data: every
// generic rule (arity, unknown command, COMMAND, scripts, MULTI) reads it,
// and handlers only do their own command's work.
type Command struct {
	Name     string // lower case; "config|get" style for subcommands
	Arity    int    // Redis convention: n exact, -n at least n (the name counts)
	Flags    Flags
	FirstKey int // key positions as COMMAND INFO reports them
	LastKey  int
	Step     int
	ACL      []string // ACL categories without '@', e.g. "string", "fast"
	Group    string   // COMMAND DOCS group: "string", "generic", "connection", ...
	Summary  string   // COMMAND DOCS summary
	Since    string   // COMMAND DOCS since
	Tips     []string // COMMAND INFO tips, e.g. "nondeterministic_output"
	Handler  func(c *Client, args [][]byte)
	// Subcommands, for container commands (CONFIG, CLIENT, COMMAND, SCRIPT,
	// OBJECT): the dispatcher picks one by args[1] and checks its arity.
	Subcommands []*Command

	id     int      // index into per-server statistics
	parent *Command // for subcommands
}

// FullName returns the name Redis uses in errors ("get", "config|get").
func (c *Command) FullName() string { return c.Name }

// families lists every command family's registration block. Families in
// files of their own may add themselves with register from an init function.
var families = [][]*Command{
	connectionCommands,
	serverCommands,
	stringCommands,
	keyCommands,
}

// register adds a command family; it must be called from an init function.
func register(cmds ...*Command) { families = append(families, cmds) }

// commandTable is the merged table. It is built once, when the first server
// is created, so that handlers may read it (COMMAND, EXEC, scripts) without
// an initialization cycle.
var (
	commandTable *table
	tableOnce    sync.Once
)

func initCommandTable() { tableOnce.Do(func() { commandTable = buildTable(families...) }) }

// table maps lower-case names to commands.
type table struct {
	byName map[string]*Command
	all    []*Command // top-level, sorted by name
	count  int        // commands and subcommands, for statistics ids
}

func buildTable(families ...[]*Command) *table {
	t := &table{byName: make(map[string]*Command)}
	for _, fam := range families {
		for _, cmd := range fam {
			if _, dup := t.byName[cmd.Name]; dup {
				panic("server: duplicate command " + cmd.Name)
			}
			cmd.id = t.count
			t.count++
			t.byName[cmd.Name] = cmd
			t.all = append(t.all, cmd)
			for _, sub := range cmd.Subcommands {
				sub.parent = cmd
				if !strings.Contains(sub.Name, "|") {
					sub.Name = cmd.Name + "|" + sub.Name
				}
				sub.id = t.count
				t.count++
			}
		}
	}
	sort.Slice(t.all, func(i, j int) bool { return t.all[i].Name < t.all[j].Name })
	return t
}

// lookup finds a top-level command by name, case-insensitively, without
// allocating for names up to 32 bytes.
func (t *table) lookup(name []byte) *Command {
	if cmd, ok := t.byName[string(name)]; ok {
		return cmd
	}
	var buf [32]byte
	if len(name) > len(buf) {
		return t.byName[strings.ToLower(string(name))]
	}
	lower := buf[:len(name)]
	for i, ch := range name {
		if 'A' <= ch && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		lower[i] = ch
	}
	return t.byName[string(lower)]
}

// subcommand finds cmd's subcommand named name, case-insensitively.
func (cmd *Command) subcommand(name []byte) *Command {
	want := cmd.Name + "|" + strings.ToLower(string(name))
	for _, sub := range cmd.Subcommands {
		if sub.Name == want {
			return sub
		}
	}
	return nil
}

// arityOK reports whether n arguments (the name included) fit the arity.
func (cmd *Command) arityOK(n int) bool {
	if cmd.Arity >= 0 {
		return n == cmd.Arity
	}
	return n >= -cmd.Arity
}

// keys returns the positions of the key arguments in args, per the table.
func (cmd *Command) keys(args [][]byte) []int {
	if cmd.FirstKey <= 0 {
		return nil
	}
	last := cmd.LastKey
	if last < 0 {
		last = len(args) + last
	}
	step := cmd.Step
	if step <= 0 {
		step = 1
	}
	var pos []int
	for i := cmd.FirstKey; i <= last && i < len(args); i += step {
		pos = append(pos, i)
	}
	return pos
}
