package acl

import (
	"fmt"
	"sort"
	"strings"

	"github.com/floodgate/floodgate/store"
)

// Registry holds the users of a server; the default user always exists.
// It is not safe for concurrent use: the server changes and reads it under
// its execution lock.
type Registry struct {
	cat *Catalog
	// users are the users other than the default one, nil while there are
	// none: a server that defines no user (every test double) allocates no
	// map for it.
	users map[string]*User
	def   *User
	// PubsubAll is acl-pubsub-default allchannels: new users and
	// selectors start with &* (Redis 7.0's default is resetchannels).
	PubsubAll bool
}

// NewRegistry returns a registry with only the default user, as Redis
// creates it: on, nopass, ~*, &*, +@all.
func NewRegistry(cat *Catalog) *Registry {
	return &Registry{cat: cat, def: newDefaultUser(cat)}
}

// newDefaultUser returns the default user as Redis creates it.
func newDefaultUser(cat *Catalog) *User {
	u := newUser(cat, "default", false)
	for _, op := range []string{"+@all", "~*", "&*", "on", "nopass"} {
		u.set([]byte(op), false)
	}
	return u
}

// Catalog is the registry's command catalog.
func (r *Registry) Catalog() *Catalog { return r.cat }

// Default is the default user.
func (r *Registry) Default() *User { return r.def }

// User returns the named user, or nil.
func (r *Registry) User(name string) *User {
	if name == "default" {
		return r.def
	}
	return r.users[name]
}

// create adds a user other than the default one.
func (r *Registry) create(name string) *User {
	u := newUser(r.cat, name, r.PubsubAll)
	if r.users == nil {
		r.users = make(map[string]*User)
	}
	r.users[name] = u
	return u
}

// Names are the users' names in Redis's radix tree order (bytewise).
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.users)+1)
	names = append(names, "default")
	for n := range r.users {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Delete removes a user (not the default one) and returns it, or nil.
func (r *Registry) Delete(name string) *User {
	u := r.users[name] // never the default user
	if u == nil {
		return nil
	}
	delete(r.users, name)
	return u
}

// Error is an ACL SETUSER refusal; Error() is Redis's text without the
// "ERR " its reply adds.
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

// ValidName reports whether a user name is acceptable: no spaces and no
// NUL (ACLStringHasSpaces).
func ValidName(name []byte) bool { return !hasSpaces(name) }

// SetUser applies rules to the named user, creating it if it does not
// exist, all or nothing (ACLStringSetUser). It returns the user, whether
// it is new, and the refusal of the first bad rule.
func (r *Registry) SetUser(name string, rules [][]byte) (*User, error) {
	u := r.User(name)
	tmp, err := r.apply(u, rules)
	if err != nil {
		return nil, err
	}
	if u == nil {
		u = r.create(name)
	}
	u.copyFrom(tmp)
	return u, nil
}

// Staged returns what the user would be after the rules, without
// changing it (nil for a new user), for callers that must compare before
// and after (pub/sub clients whose channels are revoked).
func (r *Registry) Staged(u *User, rules [][]byte) (*User, error) {
	return r.apply(u, rules)
}

func (r *Registry) apply(u *User, rules [][]byte) (*User, error) {
	merged, bad := mergeSelectors(rules)
	if bad >= 0 {
		return nil, &Error{"Unmatched parenthesis in acl selector starting at '" + cString(rules[bad]) + "'."}
	}
	var tmp *User
	if u != nil {
		tmp = u.clone()
	} else {
		tmp = newUser(r.cat, "", r.PubsubAll)
	}
	for _, op := range merged {
		if code, ok := tmp.set(op, r.PubsubAll); !ok {
			return nil, &Error{"Error in ACL SETUSER modifier '" + cString(op) + "': " + code.text()}
		}
	}
	return tmp, nil
}

// mergeSelectors joins the arguments of a selector split over several
// ("(+get", "~key)") into one (ACLMergeSelectorArguments); bad is the
// index of an unclosed one's start, or -1.
func mergeSelectors(args [][]byte) (merged [][]byte, bad int) {
	open := -1
	var sel []byte
	for j, op := range args {
		// An empty argument reads as C's op[sdslen(op)-1]: the byte
		// before it, which in an sds is its header, never ')' or '('.
		last := byte(0)
		if len(op) > 0 {
			last = op[len(op)-1]
		}
		if len(op) > 0 && op[0] == '(' && last != ')' {
			sel = append([]byte(nil), op...)
			open = j
			continue
		}
		if open >= 0 {
			sel = append(append(sel, ' '), cString(op)...)
			if last == ')' {
				open = -1
				merged = append(merged, sel)
			}
			continue
		}
		merged = append(merged, op)
	}
	if open >= 0 {
		return nil, open
	}
	return merged, -1
}

// Denial is why a check failed; its values are Redis's ACL_DENIED_*.
type Denial int

// The results of a check, and the auth reason of a log entry.
const (
	OK            Denial = 0
	DeniedCommand Denial = 1
	DeniedKey     Denial = 2
	DeniedAuth    Denial = 3
	DeniedChannel Denial = 4
)

// Key is a key argument of a command and the access its key spec
// declares.
type Key struct {
	Pos         int
	Read, Write bool // access; insert, delete or update
}

// Channel is a channel argument a command publishes or subscribes to.
type Channel struct {
	Pos     int
	Pattern bool // PSUBSCRIBE: matched literally against the user's patterns
}

// Request is a command to check: its arguments and, found by the caller
// when a selector needs them, its keys and channels.
type Request struct {
	Cmd      *Command
	Args     [][]byte // args[0] is the command name
	Keys     func() []Key
	Channels []Channel
}

// Check reports whether the user may run the request, and when not, why
// and the position of the key or channel at fault: no selector allowing
// the command gives DeniedCommand; otherwise the last key or channel no
// selector could match (ACLCheckAllUserCommandPerm).
func (u *User) Check(req *Request) (Denial, int) {
	relevant, lastPos := DeniedCommand, 0
	var keys []Key
	keysFound := false
	for _, s := range u.selectors {
		d, pos := s.check(req, &keys, &keysFound)
		if d == OK {
			return OK, 0
		}
		if d > relevant || (d == relevant && pos > lastPos) {
			relevant, lastPos = d, pos
		}
	}
	return relevant, lastPos
}

func (s *Selector) check(req *Request, keys *[]Key, found *bool) (Denial, int) {
	c := req.Cmd
	if !s.allCommands && !c.NoAuth && !s.bit(c.ID) {
		allowed := false
		if len(req.Args) >= 2 {
			idx := 1
			if c.Parent != nil {
				idx = 2
			}
			if idx < len(req.Args) {
				for _, a := range s.firstArgs[c.ID] {
					if equalFold(cString(req.Args[idx]), a) {
						allowed = true
						break
					}
				}
			}
		}
		if !allowed {
			return DeniedCommand, 0
		}
	}
	if !s.allKeys && req.Keys != nil {
		if !*found {
			*keys, *found = req.Keys(), true
		}
		for _, k := range *keys {
			if !s.keyAllowed(req.Args[k.Pos], k) {
				return DeniedKey, k.Pos
			}
		}
	}
	if !s.allChannels {
		for _, ch := range req.Channels {
			if !s.channelAllowed(req.Args[ch.Pos], ch.Pattern) {
				return DeniedChannel, ch.Pos
			}
		}
	}
	return OK, 0
}

func (s *Selector) keyAllowed(key []byte, k Key) bool {
	if s.allKeys {
		return true
	}
	need := 0
	if k.Read {
		need |= PermRead
	}
	if k.Write {
		need |= PermWrite
	}
	for _, p := range s.keys {
		if p.Perm&need != need {
			continue
		}
		if store.Match([]byte(p.Pattern), key, false) {
			return true
		}
	}
	return false
}

func (s *Selector) channelAllowed(ch []byte, pattern bool) bool {
	if s.allChannels {
		return true
	}
	for _, p := range s.channels {
		if (pattern && p == cString(ch)) || (!pattern && store.Match([]byte(p), ch, false)) {
			return true
		}
	}
	return false
}

// CheckKey reports whether any selector allows the access to a key
// (ACLUserCheckKeyPerm).
func (u *User) CheckKey(key []byte, k Key) bool {
	for _, s := range u.selectors {
		if s.keyAllowed(key, k) {
			return true
		}
	}
	return false
}

// CheckChannel reports whether any selector allows the channel
// (ACLUserCheckChannelPerm).
func (u *User) CheckChannel(ch []byte, pattern bool) bool {
	for _, s := range u.selectors {
		if s.channelAllowed(ch, pattern) {
			return true
		}
	}
	return false
}

// AllChannels reports whether some selector allows every channel.
func (u *User) AllChannels() bool {
	for _, s := range u.selectors {
		if s.allChannels {
			return true
		}
	}
	return false
}

// String is for debugging.
func (u *User) String() string { return "user " + u.name + " " + strings.TrimSpace(u.Describe()) }

// Load replaces the users with those of an aclfile's text
// (ACLLoadFromFile): all or nothing. The default user keeps its identity
// (and its connections), taking the file's rules or, when the file has
// none for it, its rules at creation. It returns the users replaced, whose
// connections the caller closes, or the errors in Redis's words.
func (r *Registry) Load(text, filename string) (replaced []*User, errs string) {
	var b strings.Builder
	users := map[string]*User{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		n := i + 1
		argv := strings.Split(line, " ")
		if argv[0] != "user" || len(argv) < 2 {
			fmt.Fprintf(&b, "%s:%d should start with user keyword followed by the username. ", filename, n)
			continue
		}
		if hasSpaces([]byte(argv[1])) {
			fmt.Fprintf(&b, "'%s:%d: username '%s' contains invalid characters. ", filename, n, cString([]byte(argv[1])))
			continue
		}
		if users[argv[1]] != nil {
			fmt.Fprintf(&b, "WARNING: Duplicate user '%s' found on line %d. ", cString([]byte(argv[1])), n)
			continue
		}
		u := newUser(r.cat, argv[1], r.PubsubAll)
		users[argv[1]] = u
		rules := make([][]byte, len(argv)-2)
		for j, a := range argv[2:] {
			rules[j] = []byte(a)
		}
		merged, bad := mergeSelectors(rules)
		if bad >= 0 {
			fmt.Fprintf(&b, "%s:%d: Unmatched parenthesis in selector definition.", filename, n)
		}
		syntax := false
		for _, op := range merged {
			op = []byte(strings.Trim(string(op), "\t\r\n"))
			if code, ok := u.set(op, r.PubsubAll); !ok {
				if code == errUnknown {
					fmt.Fprintf(&b, "%s:%d: Error in applying operation '%s': %s. ", filename, n, cString(op), code.text())
				} else if !syntax {
					fmt.Fprintf(&b, "%s:%d: %s. ", filename, n, code.text())
					syntax = true
				}
			}
		}
	}
	if b.Len() > 0 {
		b.WriteString("WARNING: ACL errors detected, no change to the previously active ACL rules was performed")
		return nil, b.String()
	}
	def := users["default"]
	if def == nil {
		def = newDefaultUser(r.cat)
	}
	r.def.copyFrom(def)
	delete(users, "default")
	for _, u := range r.users {
		replaced = append(replaced, u)
	}
	r.users = users
	return replaced, ""
}

// Save is the users as an aclfile holds them (ACLSaveToFile).
func (r *Registry) Save() string {
	var b strings.Builder
	for _, n := range r.Names() {
		b.WriteString("user " + n + " " + r.User(n).Describe() + "\n")
	}
	return b.String()
}

// ErrDuplicateUser is the refusal of a second "user" line for one name.
var ErrDuplicateUser = errDuplicateUser.text()

// CheckDeclaration checks a config file's user rules on a throw-away user
// (ACLAppendUserForLoading): it returns the index j of the first refused
// rule and Redis's text, or "". An unknown command or category is not
// refused here.
func CheckDeclaration(cat *Catalog, rules [][]byte) (int, string) {
	merged, bad := mergeSelectors(rules)
	if bad >= 0 {
		return bad, errSyntax.text()
	}
	u := newUser(cat, "", false)
	for j, op := range merged {
		if code, ok := u.set(op, false); !ok && code != errUnknown {
			return j, code.text()
		}
	}
	return 0, ""
}

// Declare creates a user of a config file's user line, or, for the
// default user, resets it first (ACLLoadConfiguredUsers).
func (r *Registry) Declare(name string, rules [][]byte) error {
	if hasSpaces([]byte(name)) {
		return &Error{"Spaces not allowed in ACL usernames"}
	}
	u := r.User(name)
	if u == nil {
		u = r.create(name)
	} else {
		u.set([]byte("reset"), r.PubsubAll)
	}
	merged, _ := mergeSelectors(rules)
	for _, op := range merged {
		if code, ok := u.set(op, r.PubsubAll); !ok {
			return &Error{"'" + cString(op) + "': " + code.text()}
		}
	}
	return nil
}

// Unrestricted reports whether some selector allows every command, key
// and channel (the default user's +@all ~* &*): then no request needs
// building, which keeps the check off the cost of every command.
func (u *User) Unrestricted() bool {
	for _, s := range u.selectors {
		if s.allCommands && s.allKeys && s.allChannels {
			return true
		}
	}
	return false
}
