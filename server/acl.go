package server

import (
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/floodgate/floodgate/internal/acl"
)

// The ACL glue: the server's users (internal/acl's Registry), the checks
// dispatch, scripts and EXEC run, and the ACL LOG. The model itself knows
// nothing of connections; here a command's keys and channels are found
// from the command table for it.

// aclCatalog is the catalog of every command Redis has (and floodgate's
// own), built with the command table: ACL rules may name a command
// floodgate does not implement, and the description of a user counts
// them all.
var aclCatalog *acl.Catalog

// buildACLCatalog numbers the table's commands and aclOnlyCommands for
// the ACL model, and links each table command to its entry.
func buildACLCatalog(t *table, only []*Command) *acl.Catalog {
	entry := func(cmd *Command) *acl.Command {
		// floodgate's own commands (CL.THROTTLE, in the "module" group)
		// are what a module's would be in Redis: out of ACL CAT and of
		// category rules, granted by +@all or by name.
		e := &acl.Command{Name: cmd.Name, NoAuth: cmd.Flags.Has(FlagNoAuth),
			Module: cmd.Flags.Has(FlagModule) || cmd.Group == "module"}
		for _, c := range cmd.categories {
			e.Categories |= acl.CategoryBit(c)
		}
		cmd.acl = e
		return e
	}
	top := map[string]*acl.Command{}
	for _, cmd := range t.all {
		e := entry(cmd)
		top[cmd.Name] = e
		for _, sub := range cmd.Subcommands {
			e.Subs = append(e.Subs, entry(sub))
		}
	}
	// Containers first, so that their subcommands find them.
	for _, cmd := range only {
		// A container floodgate implements some subcommands of is in the
		// table already.
		if !strings.Contains(cmd.Name, "|") && top[cmd.Name] == nil {
			cmd.setACLCategories()
			top[cmd.Name] = entry(cmd)
		}
	}
	for _, cmd := range only {
		if parent, _, ok := strings.Cut(cmd.Name, "|"); ok {
			cmd.setACLCategories()
			p := top[parent]
			if p == nil {
				panic("server: ACL catalogue: no container for " + cmd.Name)
			}
			p.Subs = append(p.Subs, entry(cmd))
		}
	}
	list := make([]*acl.Command, 0, len(top))
	for _, e := range top {
		list = append(list, e)
	}
	return acl.NewCatalog(list)
}

// aclState is a server's users, log and denial counters; guarded by the
// execution lock but for open.
type aclState struct {
	users *acl.Registry
	log   acl.Log
	// open: the default user is on and nopass, so a new connection is
	// authenticated (read by accept, outside the lock).
	open atomic.Bool
	// INFO's acl_access_denied_*.
	deniedAuth, deniedCmd, deniedKey, deniedChannel int64
	logMax                                          int // acllog-max-len
	// declared are the config file's user lines, until LoadConfig ends.
	declared []declaredUser
}

func (s *Server) initACL() {
	s.acl.users = acl.NewRegistry(aclCatalog)
	s.acl.logMax = 128
	s.aclChanged()
}

// aclChanged notes a change to the default user.
func (s *Server) aclChanged() {
	d := s.acl.users.Default()
	s.acl.open.Store(d.NoPass() && d.Enabled())
}

// authRequired is Redis's authRequired for a client not yet authenticated.
func (s *Server) authRequired() bool { return !s.acl.open.Load() }

// setDefaultPassword is requirepass: the default user's only password, or
// nopass for "" (ACLUpdateDefaultUserPassword).
func (s *Server) setDefaultPassword(p string) {
	if s.acl.users == nil {
		return
	}
	rules := [][]byte{[]byte("resetpass"), []byte("nopass")}
	if p != "" {
		rules[1] = []byte(">" + p)
	}
	s.acl.users.SetUser("default", rules)
	s.aclChanged()
}

// aclUser is the user a client runs as; nil (no checks) for clients of
// the server itself (AOF loading, the direct API).
func (c *Client) aclUser() *acl.User {
	if c.inScript && c.srv.scripting.caller.origin != nil {
		return c.srv.scripting.caller.origin.user
	}
	return c.user
}

// aclRequest is what the ACL model checks of a command: its keys as the
// key specs find them (getKeysFromCommandWithSpecs) and its channels.
func aclRequest(cmd *Command, args [][]byte) *acl.Request {
	req := &acl.Request{Cmd: cmd.acl, Args: args}
	if hasKeys(cmd) {
		req.Keys = func() []acl.Key { return aclKeys(cmd, args) }
	}
	switch cmd.Name {
	case "subscribe", "ssubscribe", "psubscribe":
		for i := 1; i < len(args); i++ {
			req.Channels = append(req.Channels, acl.Channel{Pos: i, Pattern: cmd.Name == "psubscribe"})
		}
	case "publish", "spublish":
		req.Channels = []acl.Channel{{Pos: 1}}
	}
	return req
}

// hasKeys is doesCommandHaveKeys: a key spec that names keys, or a
// command whose keys its own procedure finds.
func hasKeys(cmd *Command) bool {
	if _, ok := numKeysCommands[cmd.Name]; ok {
		return true
	}
	for i := range cmd.keySpecs {
		if !strings.Contains(cmd.keySpecs[i].flags, "not_key") {
			return true
		}
	}
	return false
}

// aclKeys returns the keys of a command with the access their specs give
// them. Where Redis falls back on a command's own key procedure (variable
// flags: SET, BITFIELD; incomplete specs: SORT, MIGRATE; numkeys), the
// positions are COMMAND GETKEYS's and the flags keyFlags's.
func aclKeys(cmd *Command, args [][]byte) []acl.Key {
	var pos []int
	special := true
	switch cmd.Name {
	case "sort", "sort_ro":
		pos = sortKeys(args)
	case "migrate":
		pos = migrateKeys(args)
	case "set", "bitfield", "bitfield_ro":
		pos = cmd.keys(args)
	default:
		special = false
	}
	if nk, ok := numKeysCommands[cmd.Name]; ok && !special {
		pos, _ = nk.keys(args)
		special = true
	}
	var keys []acl.Key
	if special {
		for _, p := range pos {
			keys = append(keys, aclKey(p, keyFlags(cmd, args, p)))
		}
		return keys
	}
	add := func(p int, spec *keySpec) { keys = append(keys, aclKey(p, spec.flagList())) }
	if !specKeys(cmd, args, add) {
		if _, ok := keyProcCommands[cmd.Name]; !ok {
			return nil
		}
		// Redis falls back on the command's own key procedure
		// (georadiusGetKeys, xreadGetKeys), which finds the keys of
		// the specs that do fit: GEORADIUS k ... STORE with no
		// destination after it still checks k.
		for i := range cmd.keySpecs {
			pos, _ := cmd.keySpecs[i].positions(args)
			for _, p := range pos {
				add(p, &cmd.keySpecs[i])
			}
		}
	}
	return keys
}

// keyProcCommands are the commands Redis 7.0 gives a key procedure of
// their own (getkeys_proc), which getKeysFromCommandWithSpecs falls back
// on when a spec does not fit the arguments. aclKeys finds the keys of
// most of them without the specs; GEORADIUS and XREAD are found by their
// specs, and the fallback is what their procedures find.
var keyProcCommands = map[string]struct{}{
	"bitfield": {}, "migrate": {}, "sort": {}, "sort_ro": {}, "georadius": {}, "georadiusbymember": {},
	"blmpop": {}, "lmpop": {}, "eval": {}, "evalsha": {}, "evalsha_ro": {}, "eval_ro": {},
	"fcall": {}, "fcall_ro": {}, "sintercard": {}, "bzmpop": {}, "zdiff": {}, "zdiffstore": {},
	"zinter": {}, "zintercard": {}, "zinterstore": {}, "zmpop": {}, "zunion": {}, "zunionstore": {},
	"xread": {}, "xreadgroup": {}, "set": {},
}

func aclKey(pos int, flags []string) acl.Key {
	k := acl.Key{Pos: pos}
	for _, f := range flags {
		switch f {
		case "access":
			k.Read = true
		case "insert", "delete", "update":
			k.Write = true
		}
	}
	return k
}

// aclCheck checks a command against the client's user, and logs a denial
// in the context given; it returns the denial and the position at fault.
func (s *Server) aclCheck(c *Client, cmd *Command, args [][]byte, ctx int) (acl.Denial, int) {
	u := c.aclUser()
	if u == nil || cmd.acl == nil || u.Unrestricted() {
		return acl.OK, 0
	}
	// Redis's lastcmd is the command looked up, run or refused: the log
	// entry's client-info says cmd=<it>.
	if !c.inScript && !c.inExec { // EXEC's checks leave it at exec
		c.lastCmd = cmd.Name
	}
	d, pos := u.Check(aclRequest(cmd, args))
	if d != acl.OK {
		object := cmd.Name
		if d == acl.DeniedKey || d == acl.DeniedChannel {
			object = string(args[pos])
		}
		s.aclLogDenial(c, d, ctx, object, u.Name())
	}
	return d, pos
}

// aclLogDenial adds an ACL LOG entry and counts it in INFO.
func (s *Server) aclLogDenial(c *Client, d acl.Denial, ctx int, object, user string) {
	switch d {
	case acl.DeniedAuth:
		s.acl.deniedAuth++
	case acl.DeniedCommand:
		s.acl.deniedCmd++
	case acl.DeniedKey:
		s.acl.deniedKey++
	case acl.DeniedChannel:
		s.acl.deniedChannel++
	}
	real := c
	if c.inScript && s.scripting.caller.origin != nil {
		real = s.scripting.caller.origin
	}
	now := time.Now()
	e := s.acl.log.Add(acl.LogEntry{Reason: d, Context: ctx, Object: object, Username: user, Time: now}, s.acl.logMax)
	// The entry's client info is replaced by this event's; an entry that
	// took earlier events has one to overwrite, taking no memory.
	ci, ok := e.ClientInfo.(*clientInfo)
	if !ok {
		ci = new(clientInfo)
		e.ClientInfo = ci
	}
	real.snapshotInfo(ci, now, nil)
}

// aclDenialMessage is processCommand's NOPERM text for a denial.
func aclDenialMessage(cmd *Command, d acl.Denial) string {
	switch d {
	case acl.DeniedCommand:
		return "NOPERM this user has no permissions to run the '" + cmd.FullName() + "' command"
	case acl.DeniedKey:
		return "NOPERM this user has no permissions to access one of the keys used as arguments"
	case acl.DeniedChannel:
		return "NOPERM this user has no permissions to access one of the channels used as arguments"
	}
	return "ERR no permission"
}

// aclScriptMessage is scriptVerifyACL's text (getAclErrorMessage).
func aclScriptMessage(d acl.Denial) string {
	switch d {
	case acl.DeniedCommand:
		return "ERR The user executing the script can't run this command or subcommand"
	case acl.DeniedKey:
		return "ERR The user executing the script can't access at least one of the keys mentioned in the command arguments"
	case acl.DeniedChannel:
		return "ERR The user executing the script can't publish to the channel mentioned in the command"
	}
	return "ERR The user executing the script lacking the permissions for the command"
}

// aclExecMessage is EXEC's text for a queued command the user may no
// longer run.
func aclExecMessage(d acl.Denial) string {
	reason := "no permission"
	switch d {
	case acl.DeniedCommand:
		reason = "no permission to execute the command or subcommand"
	case acl.DeniedKey:
		reason = "no permission to touch the specified keys"
	case acl.DeniedChannel:
		reason = "no permission to access one of the channels used as arguments"
	}
	return "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: " + reason
}

// killUserClients closes the connections authenticated as u, which was
// deleted (ACLFreeUserAndKillClients): the client running the command
// after its reply.
func (s *Server) killUserClients(caller *Client, u *acl.User) {
	for _, cl := range s.clientsByID() {
		if cl.user != u {
			continue
		}
		cl.user = s.acl.users.Default()
		cl.authed = false
		if cl == caller {
			cl.closing = true
		} else if cl.conn != nil {
			s.killClient(cl)
		}
	}
}

// subscriptionsAllowed reports whether u allows every channel and pattern
// the client is subscribed to (patterns compared literally).
func (c *Client) subscriptionsAllowed(u *acl.User) bool {
	p := c.pubsub
	for _, ch := range p.channels.list {
		if !u.CheckChannel([]byte(ch), false) {
			return false
		}
	}
	for _, ch := range p.shard.list {
		if !u.CheckChannel([]byte(ch), false) {
			return false
		}
	}
	for _, pat := range p.patterns.list {
		if !u.CheckChannel([]byte(pat), true) {
			return false
		}
	}
	return true
}

// mustAuth is Redis's authRequired(c): the client has not authenticated
// and the default user needs a password (or is off). Such a client gets
// the NOAUTH reply and the parser's unauthenticated limits.
func (c *Client) mustAuth() bool { return !c.authed && c.srv.authRequired() }

// allowedProtected is Redis's allowProtectedAction for the setting named
// (enable-protected-configs): "yes", or "local" and the client is local
// (islocalClient; an in-process client is).
func (c *Client) allowedProtected(setting string) bool {
	switch c.srv.configValue(setting) {
	case "yes":
		return true
	case "local":
		if c.conn == nil || c.addr == "" || strings.HasPrefix(c.addr, "/") {
			return true
		}
		host, _, err := net.SplitHostPort(c.addr)
		return err == nil && (host == "127.0.0.1" || host == "::1")
	}
	return false
}

// aclOnlyByName finds an entry of aclOnlyCommands by its full name, for
// ACL DRYRUN, which checks the arity of a command floodgate lacks as
// Redis checks any command's.
var aclOnlyByName = func() map[string]*Command {
	m := make(map[string]*Command, len(aclOnlyCommands))
	for _, cmd := range aclOnlyCommands {
		m[cmd.Name] = cmd
	}
	return m
}()
