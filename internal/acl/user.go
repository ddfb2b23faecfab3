package acl

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strings"

	"github.com/floodgate/floodgate/internal/argline"
)

// User flags, in the order ACL LIST and GETUSER print them.
const (
	flagOn = 1 << iota
	flagOff
	flagNoPass
	flagSkipSanitize
	flagSanitize
)

var userFlagNames = []string{"on", "off", "nopass", "skip-sanitize-payload", "sanitize-payload"}

// User is one ACL user. A connection holds its *User: ACL SETUSER changes
// the user in place, so what a connection may do changes with it.
type User struct {
	name      string
	flags     int
	passwords []string // sha256 hex, in the order added
	selectors []*Selector
	cat       *Catalog
	described string // ACL LIST's text, until the next change
}

func newUser(cat *Catalog, name string, allChannels bool) *User {
	return &User{name: name, flags: flagOff, cat: cat, selectors: []*Selector{newSelector(cat, true, allChannels)}}
}

// Name is the user's name.
func (u *User) Name() string { return u.name }

// Enabled reports whether the user is on.
func (u *User) Enabled() bool { return u.flags&flagOff == 0 }

// NoPass reports whether any password authenticates the user.
func (u *User) NoPass() bool { return u.flags&flagNoPass != 0 }

// Flags are GETUSER's flags.
func (u *User) Flags() []string {
	var out []string
	for i, n := range userFlagNames {
		if u.flags&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// Passwords are the user's password hashes.
func (u *User) Passwords() []string { return u.passwords }

// Root is the user's root selector; Selectors the others.
func (u *User) Root() *Selector        { return u.selectors[0] }
func (u *User) Selectors() []*Selector { return u.selectors[1:] }

func (u *User) clone() *User {
	d := *u
	d.passwords = append([]string(nil), u.passwords...)
	d.selectors = make([]*Selector, len(u.selectors))
	for i, s := range u.selectors {
		d.selectors[i] = s.clone()
	}
	d.described = ""
	return &d
}

// copyFrom makes u's rules those of src, keeping u's name and identity.
func (u *User) copyFrom(src *User) {
	name := u.name
	*u = *src.clone()
	u.name = name
}

// HashPassword is a password as users keep it: its sha256 in lower-case hex.
func HashPassword(pass []byte) string {
	sum := sha256.Sum256(pass)
	return hex.EncodeToString(sum[:])
}

func validHash(h []byte) bool {
	if len(h) != 64 {
		return false
	}
	for _, c := range h {
		if (c < 'a' || c > 'f') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// CheckPassword reports whether pass authenticates an enabled user. Every
// stored hash is compared in constant time, as Redis's
// time_independent_strcmp compares them.
func (u *User) CheckPassword(pass []byte) bool {
	if u.flags&flagOff != 0 {
		return false
	}
	if u.flags&flagNoPass != 0 {
		return true
	}
	hashed := []byte(HashPassword(pass))
	ok := 0
	for _, p := range u.passwords {
		ok |= subtle.ConstantTimeCompare(hashed, []byte(p))
	}
	return ok == 1
}

// set applies one user rule (ACLSetUser).
func (u *User) set(op []byte, pubsubAll bool) (errCode, bool) {
	u.described = ""
	if len(op) == 0 {
		return 0, true
	}
	str := string(op)
	switch {
	case equalFold(str, "on"):
		u.flags = u.flags&^flagOff | flagOn
	case equalFold(str, "off"):
		u.flags = u.flags&^flagOn | flagOff
	case equalFold(str, "skip-sanitize-payload"):
		u.flags = u.flags&^flagSanitize | flagSkipSanitize
	case equalFold(str, "sanitize-payload"):
		u.flags = u.flags&^flagSkipSanitize | flagSanitize
	case equalFold(str, "nopass"):
		u.flags |= flagNoPass
		u.passwords = nil
	case equalFold(str, "resetpass"):
		u.flags &^= flagNoPass
		u.passwords = nil
	case op[0] == '>' || op[0] == '#':
		var h string
		if op[0] == '>' {
			h = HashPassword(op[1:])
		} else {
			if !validHash(op[1:]) {
				return errBadHash, false
			}
			h = string(op[1:])
		}
		if !contains(u.passwords, h) {
			u.passwords = append(u.passwords, h)
		}
		u.flags &^= flagNoPass
	case op[0] == '<' || op[0] == '!':
		var h string
		if op[0] == '<' {
			h = HashPassword(op[1:])
		} else {
			if !validHash(op[1:]) {
				return errBadHash, false
			}
			h = string(op[1:])
		}
		i := index(u.passwords, h)
		if i < 0 {
			return errNoSuchPass, false
		}
		u.passwords = append(u.passwords[:i:i], u.passwords[i+1:]...)
	case op[0] == '(' && op[len(op)-1] == ')':
		s := newSelector(u.cat, false, pubsubAll)
		// Unbalanced quotes make sdssplitargs fail, which Redis takes as
		// no rules: an empty selector.
		args, _ := argline.Split(op[1 : len(op)-1])
		for _, a := range args {
			if code, ok := s.set(a); !ok {
				return code, false
			}
		}
		u.selectors = append(u.selectors, s)
	case equalFold(str, "clearselectors"):
		u.selectors = u.selectors[:1]
	case equalFold(str, "reset"):
		u.set([]byte("resetpass"), pubsubAll)
		u.set([]byte("resetkeys"), pubsubAll)
		u.set([]byte("resetchannels"), pubsubAll)
		if pubsubAll {
			u.set([]byte("allchannels"), pubsubAll)
		}
		u.set([]byte("off"), pubsubAll)
		u.set([]byte("sanitize-payload"), pubsubAll)
		u.set([]byte("clearselectors"), pubsubAll)
		u.set([]byte("-@all"), pubsubAll)
	default:
		return u.selectors[0].set(op)
	}
	return 0, true
}

func contains(list []string, s string) bool { return index(list, s) >= 0 }

func index(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// Describe is the user's rules as ACL LIST prints them after "user <name> ".
func (u *User) Describe() string {
	if u.described != "" {
		return u.described
	}
	var b strings.Builder
	for _, f := range u.Flags() {
		b.WriteString(f + " ")
	}
	for _, p := range u.passwords {
		b.WriteString("#" + p + " ")
	}
	for _, s := range u.selectors {
		if s.root {
			b.WriteString(s.describe())
		} else {
			b.WriteString(" (" + s.describe() + ")")
		}
	}
	u.described = b.String()
	return u.described
}
