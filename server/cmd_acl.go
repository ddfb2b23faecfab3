package server

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/floodgate/floodgate/internal/acl"
	"github.com/floodgate/floodgate/internal/number"
)

var aclHandlers = map[string]Handler{
	"acl|cat":     cmdACLCat,
	"acl|deluser": cmdACLDelUser,
	"acl|dryrun":  cmdACLDryRun,
	"acl|genpass": cmdACLGenPass,
	"acl|getuser": cmdACLGetUser,
	"acl|help":    helpHandler(aclHelp),
	"acl|list":    cmdACLList,
	"acl|load":    cmdACLLoad,
	"acl|log":     cmdACLLog,
	"acl|save":    cmdACLSave,
	"acl|setuser": cmdACLSetUser,
	"acl|users":   cmdACLUsers,
	"acl|whoami":  cmdACLWhoAmI,
}

// aclParams are the ACL's settings, applied (config.go).
var aclParams = map[string]floodgateParam{
	"aclfile": {effect: effectApplied},
	// CONFIG SET of the protected configs (dir, dbfilename): yes, or
	// local for a client on 127.0.0.1, ::1 or a Unix socket.
	"enable-protected-configs": {effect: effectApplied},
	// DEBUG (check): yes, or local as above; no refuses it.
	"enable-debug-command": {effect: effectApplied},
	"acllog-max-len": {effect: effectApplied, apply: func(s *Server, v string) string {
		n, _ := strconv.Atoi(v)
		s.acl.logMax = n
		return ""
	}},
	"acl-pubsub-default": {effect: effectApplied, apply: func(s *Server, v string) string {
		s.acl.users.PubsubAll = v == "allchannels"
		return ""
	}},
}

const (
	errNoACLFile   = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration."
	errDelDefault  = "ERR The 'default' user cannot be removed"
	errBadUserName = "ERR Usernames can't contain spaces or null characters"
	errGenPassBits = "ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096"
)

func cmdACLSetUser(c *Client, args [][]byte) {
	name := args[2]
	if !acl.ValidName(name) {
		c.w.Error(errBadUserName)
		return
	}
	s := c.srv
	u := s.acl.users.User(string(name))
	if u != nil {
		// Pub/sub clients of the user lose what the new rules revoke.
		next, err := s.acl.users.Staged(u, args[3:])
		if err != nil {
			c.w.Error(sanitizeError("ERR " + err.Error()))
			return
		}
		s.killRevokedSubscribers(c, u, next)
	}
	if _, err := s.acl.users.SetUser(string(name), args[3:]); err != nil {
		c.w.Error(sanitizeError("ERR " + err.Error()))
		return
	}
	if string(name) == "default" {
		s.aclChanged()
	}
	c.w.Status("OK")
}

// killRevokedSubscribers closes the pub/sub clients of u that are
// subscribed to a channel or pattern next no longer allows
// (ACLKillPubsubClientsIfNeeded).
func (s *Server) killRevokedSubscribers(caller *Client, u, next *acl.User) {
	if next.AllChannels() {
		return
	}
	for _, cl := range s.clientsByID() {
		if cl.user != u || cl.pubsub == nil || !cl.subscribed() {
			continue
		}
		if !cl.subscriptionsAllowed(next) {
			if cl == caller {
				cl.closing = true
			} else if cl.conn != nil {
				s.killClient(cl)
			}
		}
	}
}

func cmdACLDelUser(c *Client, args [][]byte) {
	for _, a := range args[2:] {
		if string(a) == "default" {
			c.w.Error(errDelDefault)
			return
		}
	}
	deleted := 0
	for _, a := range args[2:] {
		if u := c.srv.acl.users.Delete(string(a)); u != nil {
			c.srv.killUserClients(c, u)
			deleted++
		}
	}
	c.w.Int(int64(deleted))
}

func cmdACLGetUser(c *Client, args [][]byte) {
	u := c.srv.acl.users.User(string(args[2]))
	if u == nil {
		c.w.Null()
		return
	}
	c.w.Map(6)
	c.w.BulkString("flags")
	flags := u.Flags()
	c.w.Set(len(flags))
	for _, f := range flags {
		c.w.BulkString(f)
	}
	c.w.BulkString("passwords")
	c.w.Array(len(u.Passwords()))
	for _, p := range u.Passwords() {
		c.w.BulkString(p)
	}
	writeSelector(c.w, u.Root())
	c.w.BulkString("selectors")
	c.w.Array(len(u.Selectors()))
	for _, sel := range u.Selectors() {
		c.w.Map(3)
		writeSelector(c.w, sel)
	}
}

func writeSelector(w Writer, sel *acl.Selector) {
	cmds, keys, channels := sel.Describe()
	w.BulkString("commands")
	w.BulkString(cmds)
	w.BulkString("keys")
	w.BulkString(keys)
	w.BulkString("channels")
	w.BulkString(channels)
}

func cmdACLList(c *Client, args [][]byte) {
	users := c.srv.acl.users
	names := users.Names()
	c.w.Array(len(names))
	for _, n := range names {
		c.w.BulkString("user " + n + " " + users.User(n).Describe())
	}
}

func cmdACLUsers(c *Client, args [][]byte) {
	names := c.srv.acl.users.Names()
	c.w.Array(len(names))
	for _, n := range names {
		c.w.BulkString(n)
	}
}

func cmdACLWhoAmI(c *Client, args [][]byte) {
	if u := c.aclUser(); u != nil {
		c.w.BulkString(u.Name())
		return
	}
	c.w.BulkString("default")
}

func cmdACLCat(c *Client, args [][]byte) {
	if len(args) == 2 {
		c.w.Array(len(acl.Categories))
		for _, n := range acl.Categories {
			c.w.BulkString(n)
		}
		return
	}
	bit := acl.CategoryBit(string(args[2]))
	if bit == 0 {
		c.w.Error(sanitizeError("ERR Unknown category '" + truncate(args[2], 128) + "'"))
		return
	}
	names := aclCatalog.InCategory(bit)
	c.w.Array(len(names))
	for _, n := range names {
		c.w.BulkString(n)
	}
}

func cmdACLGenPass(c *Client, args [][]byte) {
	bits := int64(256)
	if len(args) == 3 {
		n, ok := number.ParseInt(args[2])
		if !ok {
			c.w.Error("ERR value is not an integer or out of range")
			return
		}
		bits = n
	}
	if bits <= 0 || bits > 4096 {
		c.w.Error(errGenPassBits)
		return
	}
	chars := (bits + 3) / 4
	raw := make([]byte, (chars+1)/2)
	rand.Read(raw)
	c.w.BulkString(hex.EncodeToString(raw)[:chars])
}

func cmdACLLog(c *Client, args [][]byte) {
	count := int64(10)
	if len(args) == 3 {
		if eqFold(args[2], "reset") {
			c.srv.acl.log.Reset()
			c.w.Status("OK")
			return
		}
		n, ok := number.ParseInt(args[2])
		if !ok {
			c.w.Error("ERR value is not an integer or out of range")
			return
		}
		count = max(n, 0)
	}
	entries := c.srv.acl.log.Entries(int(min(count, 1<<30)))
	now := time.Now()
	c.w.Array(len(entries))
	for _, e := range entries {
		c.w.Map(7)
		c.w.BulkString("count")
		c.w.Int(e.Count)
		c.w.BulkString("reason")
		c.w.BulkString(e.ReasonText())
		c.w.BulkString("context")
		c.w.BulkString(e.ContextText())
		c.w.BulkString("object")
		c.w.BulkString(e.Object)
		c.w.BulkString("username")
		c.w.BulkString(e.Username)
		c.w.BulkString("age-seconds")
		age := float64(now.UnixMilli()-e.Time.UnixMilli()) / 1000
		c.w.Double(age)
		c.w.BulkString("client-info")
		c.w.BulkString(e.ClientInfo.String())
	}
}

func cmdACLDryRun(c *Client, args [][]byte) {
	u := c.srv.acl.users.User(string(args[2]))
	if u == nil {
		c.w.Error(sanitizeError("ERR User '" + truncate(args[2], len(args[2])) + "' not found"))
		return
	}
	target := args[3:]
	cmd := commandTable.lookup(target[0])
	if cmd != nil && len(cmd.Subcommands) > 0 && len(target) > 1 {
		cmd = cmd.subcommand(target[1])
	}
	var req *acl.Request
	if cmd != nil {
		if !cmd.arityOK(len(target)) {
			c.w.Error(arityError(cmd))
			return
		}
		req = aclRequest(cmd, target)
	} else {
		// A command of Redis's that floodgate lacks: the catalog knows
		// its name, aclOnlyCommands its arity and key specs.
		name := strings.ToLower(string(target[0]))
		if e := aclCatalog.Lookup(name); e != nil && len(e.Subs) > 0 && len(target) > 1 {
			e = aclCatalog.Lookup(name + "|" + strings.ToLower(string(target[1])))
			if e != nil {
				req = &acl.Request{Cmd: e, Args: target}
			}
		} else if e != nil {
			req = &acl.Request{Cmd: e, Args: target}
		}
		if req == nil {
			c.w.Error(sanitizeError("ERR Command '" + truncate(target[0], len(target[0])) + "' not found"))
			return
		}
		if only := aclOnlyByName[req.Cmd.Name]; only != nil {
			if !only.arityOK(len(target)) {
				c.w.Error(arityError(only))
				return
			}
			req = aclRequest(only, target) // its keys, from Redis's key specs
		}
	}
	d, pos := u.Check(req)
	switch d {
	case acl.OK:
		c.w.Status("OK")
	case acl.DeniedCommand:
		c.w.BulkString("This user has no permissions to run the '" + req.Cmd.Name + "' command")
	case acl.DeniedKey:
		c.w.BulkString("This user has no permissions to access the '" + truncate(target[pos], len(target[pos])) + "' key")
	default:
		c.w.BulkString("This user has no permissions to access the '" + truncate(target[pos], len(target[pos])) + "' channel")
	}
}

func cmdACLLoad(c *Client, args [][]byte) {
	if c.srv.aclFile() == "" {
		c.w.Error(errNoACLFile)
		return
	}
	if err := c.srv.loadACLFile(c); err != "" {
		c.w.Error(sanitizeError("ERR " + err))
		return
	}
	c.w.Status("OK")
}

func cmdACLSave(c *Client, args [][]byte) {
	if c.srv.aclFile() == "" {
		c.w.Error(errNoACLFile)
		return
	}
	if err := c.srv.saveACLFile(); err != nil {
		c.srv.log.Warn("ACL SAVE failed", "err", err)
		c.w.Error("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
		return
	}
	c.w.Status("OK")
}

var aclHelp = []string{
	"ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CAT [<category>]",
	"    List all commands that belong to <category>, or all command categories",
	"    when no category is specified.",
	"DELUSER <username> [<username> ...]",
	"    Delete a list of users.",
	"DRYRUN <username> <command> [<arg> ...]",
	"    Returns whether the user can execute the given command without executing the command.",
	"GETUSER <username>",
	"    Get the user's details.",
	"GENPASS [<bits>]",
	"    Generate a secure 256-bit user password. The optional `bits` argument can",
	"    be used to specify a different size.",
	"LIST",
	"    Show users details in config file format.",
	"LOAD",
	"    Reload users from the ACL file.",
	"LOG [<count> | RESET]",
	"    Show the ACL log entries.",
	"SAVE",
	"    Save the current config to the ACL file.",
	"SETUSER <username> <attribute> [<attribute> ...]",
	"    Create or modify a user with the specified attributes.",
	"USERS",
	"    List all the registered usernames.",
	"WHOAMI",
	"    Return the current connection username.",
	"HELP",
	"    Prints this help.",
}

// aclFile is the aclfile setting.
func (s *Server) aclFile() string { return s.configValue("aclfile") }
