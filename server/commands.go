package server

import (
	"fmt"

	"github.com/floodgate/floodgate/internal/acl"
	"github.com/floodgate/floodgate/internal/resp"
	"slices"
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

// Handler runs one command. The checks the table describes (arity,
// subcommand, NOAUTH, MULTI, BUSY) have passed when it is called.
type Handler func(c *Client, args [][]byte)

// LongHandler runs a command from a long request's arguments as the
// parser holds them (resp.LongArgs), when nothing else needs them as
// slices (Server.runsLong): for the variadic commands whose requests run
// to a million arguments, whose slices would take 24 bytes each.
type LongHandler func(c *Client, args *resp.LongArgs)

// Command is one entry of the command table. The table is data: every
// generic rule (arity, unknown command, COMMAND, scripts, MULTI) reads it,
// and handlers only do their own command's work. Everything but the
// handler is generated (commands_gen.go) from Redis's command JSON and
// floodgate's own (server/commands/*.json); the family files say only
// which handler runs which command.
type Command struct {
	Name     string // lower case; "config|get" style for subcommands
	Arity    int    // Redis convention: n exact, -n at least n (the name counts)
	Flags    Flags
	FirstKey int // key positions as COMMAND INFO reports them
	LastKey  int
	Step     int
	// ACL lists the command's own ACL categories without '@' (e.g.
	// "string", "keyspace"); those its flags imply are added when the
	// table is built (setACLCategories), and listing them too is harmless.
	ACL     []string
	Group   string   // COMMAND DOCS group: "string", "generic", "connection", ...
	Summary string   // COMMAND DOCS summary
	Since   string   // COMMAND DOCS since
	Tips    []string // COMMAND INFO tips, e.g. "nondeterministic_output"
	// The rest of COMMAND DOCS; empty fields are left out of its reply.
	Complexity      string
	DocFlags        []string // "deprecated", "syscmd"
	DeprecatedSince string
	ReplacedBy      string
	History         [][2]string // since, changes
	Args            []Arg
	Handler         Handler
	LongHandler     LongHandler // nil: the command always gets slices
	// Subcommands, for container commands (CONFIG, CLIENT, COMMAND, SCRIPT,
	// OBJECT): the dispatcher picks one by args[1] and checks its arity.
	Subcommands []*Command

	// keySpecs are the key specifications COMMAND INFO reports and
	// COMMAND GETKEYSANDFLAGS applies.
	keySpecs []keySpec

	id int // index into per-server statistics
	// readsKeys: its lookups count as keyspace hits and misses (read-only
	// commands, and the writes Redis looks their sources up for reading).
	readsKeys bool
	parent    *Command     // for subcommands
	acl       *acl.Command // the command in the ACL catalog (buildACLCatalog)
	// categories are the ACL categories COMMAND INFO reports: ACL and
	// those the flags imply, in Redis's order.
	categories []string
}

// Arg is one argument of a command as COMMAND DOCS describes it.
type Arg struct {
	Name string
	Type string // string, integer, double, key, pattern, unix-time, pure-token, oneof, block
	// KeySpec is the argument's key_spec_index plus one; 0 for an argument
	// that names no key spec.
	KeySpec         int
	Token           string
	Summary         string
	Since           string
	DeprecatedSince string
	Flags           ArgFlags
	Args            []Arg // for oneof and block
}

// ArgFlags are an argument's COMMAND DOCS flags, in the order it lists them.
type ArgFlags uint8

// Argument flags.
const (
	ArgOptional ArgFlags = 1 << iota
	ArgMultiple
	ArgMultipleToken
	// ArgEmptyToken: the token is "" (MIGRATE's empty_string), which COMMAND
	// DOCS prints, where an empty Token otherwise means none. Not listed
	// among the flags.
	ArgEmptyToken

	argListedFlags = ArgOptional | ArgMultiple | ArgMultipleToken
)

var argFlagNames = []string{"optional", "multiple", "multiple_token"}

// FullName returns the name Redis uses in errors ("get", "config|get").
func (c *Command) FullName() string { return c.Name }

//go:generate go run ../internal/redismeta -redis=$REDIS_SRC

// families lists every command family's handlers, one map per family
// file (cmd_<family>.go): the keys are the commands floodgate implements,
// and the generator writes metadata for exactly those.
var families = []map[string]Handler{
	aclHandlers, aofHandlers, bitmapHandlers, clusterHandlers, commandHandlers, configHandlers,
	connectionHandlers, debugHandlers, geoHandlers, hashHandlers, hllHandlers, increxHandlers, infoHandlers,
	keyHandlers, latencyHandlers, listHandlers, lolwutHandlers, memoryHandlers,
	migrateHandlers, monitorHandlers, objectHandlers, persistenceHandlers, pubsubHandlers, replicationHandlers,
	scriptingHandlers, serverHandlers, setHandlers, slowlogHandlers, sortHandlers,
	stringHandlers, throttleHandlers, transactionHandlers, zsetHandlers,
	zsetOpHandlers, zsetBlockingHandlers, trackingHandlers, streamHandlers, streamGroupHandlers, functionHandlers,
}

// longHandlers are the commands that run a long request from its
// resp.LongArgs (see LongHandler).
var longHandlers = map[string]LongHandler{
	"mset":   cmdMSetLong,
	"msetnx": cmdMSetNXLong,
	"mget":   cmdMGetLong,
	"del":    cmdDelLong,
	"unlink": cmdDelLong,
	"exists": cmdExistsLong,
	"touch":  cmdTouchLong,
}

// takesLongArgs reports whether the command named name has a LongHandler:
// the parser's Long, on the connections' goroutines (the table does not
// change once built).
func takesLongArgs(name []byte) bool {
	cmd := commandTable.lookup(name)
	return cmd != nil && cmd.LongHandler != nil
}

// testCommands are commands outside the generated table, with their own
// metadata: tests add theirs with register from an init function.
var testCommands []*Command

// register adds commands outside the generated table (tests' own); it must
// be called before the first server is created.
func register(cmds ...*Command) { testCommands = append(testCommands, cmds...) }

// commandTable is the merged table. It is built once, when the first server
// is created, so that handlers may read it (COMMAND, EXEC, scripts) without
// an initialization cycle.
var (
	commandTable *table
	tableOnce    sync.Once
)

func initCommandTable() {
	tableOnce.Do(func() {
		if err := attachHandlers(generatedCommands, families); err != nil {
			panic("server: " + err.Error())
		}
		commandTable = buildTable(generatedCommands, testCommands)
		for name, h := range longHandlers {
			commandTable.lookup([]byte(name)).LongHandler = h
		}
		aclCatalog = buildACLCatalog(commandTable, aclOnlyCommands)
	})
}

// attachHandlers sets every command's handler from the family maps. It
// fails when a handler has no generated metadata (run go generate) or a
// generated command none: every command and subcommand needs one, but a
// container only when it can be called alone (arity -1, as COMMAND).
func attachHandlers(meta []*Command, families []map[string]Handler) error {
	handlers := map[string]Handler{}
	for _, fam := range families {
		for name, h := range fam {
			if _, dup := handlers[name]; dup {
				return fmt.Errorf("two handlers for %s", name)
			}
			handlers[name] = h
		}
	}
	used := map[string]bool{}
	var attach func(cmds []*Command) error
	attach = func(cmds []*Command) error {
		for _, cmd := range cmds {
			h, ok := handlers[cmd.Name]
			switch {
			case ok:
				cmd.Handler = h
				used[cmd.Name] = true
			case len(cmd.Subcommands) == 0 || cmd.arityOK(1):
				return fmt.Errorf("%s has metadata but no handler", cmd.Name)
			}
			if err := attach(cmd.Subcommands); err != nil {
				return err
			}
		}
		return nil
	}
	if err := attach(meta); err != nil {
		return err
	}
	var missing []string
	for name := range handlers {
		if !used[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("no generated metadata for %s (run go generate ./server/)", strings.Join(missing, ", "))
	}
	return nil
}

// table maps names to commands: each by its lower-case name, and by its
// upper-case one too, which is how most clients send it (lookup then finds
// it with one map probe instead of two).
type table struct {
	byName map[string]*Command
	all    []*Command // top-level, sorted by name
	count  int        // commands and subcommands, for statistics ids
}

func buildTable(groups ...[]*Command) *table {
	t := &table{byName: make(map[string]*Command)}
	for _, fam := range groups {
		for _, cmd := range fam {
			if _, dup := t.byName[cmd.Name]; dup {
				panic("server: duplicate command " + cmd.Name)
			}
			cmd.id = t.count
			t.count++
			cmd.setACLCategories()
			cmd.readsKeys = cmd.Flags.Has(FlagReadonly) || readingWrites[cmd.Name]
			t.byName[cmd.Name] = cmd
			t.byName[strings.ToUpper(cmd.Name)] = cmd
			t.all = append(t.all, cmd)
			for _, sub := range cmd.Subcommands {
				sub.parent = cmd
				if !strings.Contains(sub.Name, "|") {
					sub.Name = cmd.Name + "|" + sub.Name
				}
				sub.id = t.count
				t.count++
				sub.setACLCategories()
				sub.readsKeys = sub.Flags.Has(FlagReadonly)
			}
		}
	}
	sort.Slice(t.all, func(i, j int) bool { return t.all[i].Name < t.all[j].Name })
	return t
}

// readingWrites are the write commands whose source keys Redis looks up
// for reading (lookupKeyRead), so that they count as keyspace hits and
// misses.
var readingWrites = map[string]bool{
	"getdel": true, "getex": true, "sort": true, "copy": true, "bitop": true,
	"sunionstore": true, "sinterstore": true, "sdiffstore": true,
	"zunionstore": true, "zinterstore": true, "zdiffstore": true, "zrangestore": true,
	"georadius": true, "georadiusbymember": true, "geosearchstore": true,
	"migrate": true, "getset": true, "xack": true, "xclaim": true, "xautoclaim": true, "xreadgroup": true,
}

// aclCategories are Redis 7.0's ACL categories, in the order COMMAND INFO
// lists a command's (acl.c's ACLCommandCategories).
var aclCategories = []string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
	"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
	"blocking", "dangerous", "connection", "transaction", "scripting",
}

// setACLCategories adds the categories the flags imply to the row's own, as
// Redis's setImplicitACLCategories does: write is @write, readonly @read
// (but not for scripting commands), admin @admin and @dangerous, pubsub
// @pubsub, fast @fast, blocking @blocking, and whatever is not @fast is
// @slow.
func (cmd *Command) setACLCategories() {
	has := make(map[string]bool, len(cmd.ACL)+3)
	for _, c := range cmd.ACL {
		if !slices.Contains(aclCategories, c) {
			panic("server: unknown ACL category " + c + " for " + cmd.Name)
		}
		has[c] = true
	}
	f := cmd.Flags
	has["write"] = has["write"] || f.Has(FlagWrite)
	has["read"] = has["read"] || f.Has(FlagReadonly) && !has["scripting"]
	has["admin"] = has["admin"] || f.Has(FlagAdmin)
	has["dangerous"] = has["dangerous"] || f.Has(FlagAdmin)
	has["pubsub"] = has["pubsub"] || f.Has(FlagPubSub)
	has["fast"] = has["fast"] || f.Has(FlagFast)
	has["blocking"] = has["blocking"] || f.Has(FlagBlocking)
	has["slow"] = has["slow"] || !has["fast"]
	cmd.categories = cmd.categories[:0]
	for _, c := range aclCategories {
		if has[c] {
			cmd.categories = append(cmd.categories, c)
		}
	}
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
