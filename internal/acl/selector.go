package acl

import (
	"bytes"
	"strings"
)

// Key permissions of a key pattern: ~ is both, %R~ read, %W~ write.
const (
	PermRead  = 1 << 0
	PermWrite = 1 << 1
	PermAll   = PermRead | PermWrite
)

// KeyPattern is one ~, %R~ or %W~ pattern.
type KeyPattern struct {
	Pattern string
	Perm    int
}

func (p KeyPattern) String() string {
	switch p.Perm {
	case PermAll:
		return "~" + p.Pattern
	case PermRead:
		return "%R~" + p.Pattern
	default:
		return "%W~" + p.Pattern
	}
}

// Selector is one set of permissions: a user's root one (the rules given
// outside parentheses) or one of its (…) selectors.
type Selector struct {
	root        bool
	allKeys     bool
	allChannels bool
	allCommands bool
	allowed     []uint64 // a bit per command ID, and the future-commands bit
	firstArgs   map[int][]string
	keys        []KeyPattern
	channels    []string
	cat         *Catalog
}

func newSelector(cat *Catalog, root, allChannels bool) *Selector {
	return &Selector{cat: cat, root: root, allChannels: allChannels, allowed: make([]uint64, (cat.size()+63)/64)}
}

func (s *Selector) clone() *Selector {
	d := *s
	d.allowed = append([]uint64(nil), s.allowed...)
	d.keys = append([]KeyPattern(nil), s.keys...)
	d.channels = append([]string(nil), s.channels...)
	if s.firstArgs != nil {
		d.firstArgs = make(map[int][]string, len(s.firstArgs))
		for id, a := range s.firstArgs {
			d.firstArgs[id] = append([]string(nil), a...)
		}
	}
	return &d
}

func (s *Selector) bit(id int) bool { return s.allowed[id/64]&(1<<(id%64)) != 0 }

func (s *Selector) setBit(id int, on bool) {
	if on {
		s.allowed[id/64] |= 1 << (id % 64)
	} else {
		s.allowed[id/64] &^= 1 << (id % 64)
		s.allCommands = false
	}
}

// changePerm allows or blocks a command and, for a container, all its
// subcommands (ACLChangeSelectorPerm).
func (s *Selector) changePerm(c *Command, on bool) {
	s.setBit(c.ID, on)
	delete(s.firstArgs, c.ID)
	for _, sub := range c.Subs {
		s.setBit(sub.ID, on)
	}
}

func (s *Selector) setCategory(bit uint32, on bool) {
	for _, c := range s.cat.top {
		if c.Module {
			continue
		}
		if c.Categories&bit != 0 {
			s.changePerm(c, on)
		}
		for _, sub := range c.Subs {
			if sub.Categories&bit != 0 {
				s.changePerm(sub, on)
			}
		}
	}
}

func (s *Selector) setAll(on bool) {
	var w uint64
	if on {
		w = ^uint64(0)
	}
	for i := range s.allowed {
		s.allowed[i] = w
	}
	s.allCommands = on
	s.firstArgs = nil
}

// errCode is the errno ACLSetUser sets, which picks the error text.
type errCode int

const (
	errWrongFormat     errCode = iota
	errUnknown                 // ENOENT
	errSyntax                  // EINVAL
	errKeyAfterAll             // EEXIST
	errChannelAfterAll         // EISDIR
	errNoSuchPass              // ENODEV
	errBadHash                 // EBADMSG
	errDuplicateUser           // EALREADY
	errFirstArgOfSub           // ECHILD
)

func (e errCode) text() string {
	switch e {
	case errUnknown:
		return "Unknown command or category name in ACL"
	case errSyntax:
		return "Syntax error"
	case errKeyAfterAll:
		return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"
	case errChannelAfterAll:
		return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"
	case errNoSuchPass:
		return "The password you are trying to remove from the user does not exist"
	case errBadHash:
		return "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"
	case errDuplicateUser:
		return "Duplicate user found. A user can only be defined once in config files"
	case errFirstArgOfSub:
		return "Allowing first-arg of a subcommand is not supported"
	}
	return "Wrong format"
}

// hasSpaces is ACLStringHasSpaces: C's isspace, or a NUL.
func hasSpaces(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\v', '\f', '\r', 0:
			return true
		}
	}
	return false
}

// set applies one selector rule (ACLSetSelector); ok is false with the
// error's code for a rule it refuses.
func (s *Selector) set(op []byte) (errCode, bool) {
	str := string(op)
	switch {
	case equalFold(str, "allkeys") || str == "~*":
		s.allKeys = true
		s.keys = nil
	case equalFold(str, "resetkeys"):
		s.allKeys = false
		s.keys = nil
	case equalFold(str, "allchannels") || str == "&*":
		s.allChannels = true
		s.channels = nil
	case equalFold(str, "resetchannels"):
		s.allChannels = false
		s.channels = nil
	case equalFold(str, "allcommands") || equalFold(str, "+@all"):
		s.setAll(true)
	case equalFold(str, "nocommands") || equalFold(str, "-@all"):
		s.setAll(false)
	case op[0] == '~' || op[0] == '%':
		if s.allKeys {
			return errKeyAfterAll, false
		}
		perm, offset := 0, 1
		if op[0] == '%' {
			for ; offset < len(op); offset++ {
				c := op[offset]
				if (c == 'R' || c == 'r') && perm&PermRead == 0 {
					perm |= PermRead
				} else if (c == 'W' || c == 'w') && perm&PermWrite == 0 {
					perm |= PermWrite
				} else if c == '~' {
					offset++
					break
				} else {
					return errSyntax, false
				}
			}
		} else {
			perm = PermAll
		}
		// Redis takes "%R" (no '~') as the pattern "" readable, and
		// refuses "%" and "%~", which grant nothing.
		if perm == 0 {
			return errSyntax, false
		}
		var pat []byte
		if offset <= len(op) {
			pat = op[offset:]
		}
		if hasSpaces(pat) {
			return errSyntax, false
		}
		found := false
		for i := range s.keys {
			if s.keys[i].Pattern == string(pat) {
				s.keys[i].Perm |= perm
				found = true
				break
			}
		}
		if !found {
			s.keys = append(s.keys, KeyPattern{Pattern: string(pat), Perm: perm})
		}
		s.allKeys = false
	case op[0] == '&':
		if s.allChannels {
			return errChannelAfterAll, false
		}
		if hasSpaces(op[1:]) {
			return errSyntax, false
		}
		pat := string(op[1:])
		found := false
		for _, c := range s.channels {
			if c == pat {
				found = true
				break
			}
		}
		if !found {
			s.channels = append(s.channels, pat)
		}
		s.allChannels = false
	case op[0] == '+' && (len(op) < 2 || op[1] != '@'):
		name := cString(op[1:])
		i := strings.LastIndexByte(name, '|')
		if i < 0 {
			c := s.cat.Lookup(name)
			if c == nil {
				return errUnknown, false
			}
			s.changePerm(c, true)
			break
		}
		c := s.cat.Lookup(name[:i])
		if c == nil {
			return errUnknown, false
		}
		if c.Parent != nil {
			return errFirstArgOfSub, false
		}
		sub := name[i+1:]
		if sub == "" {
			return errSyntax, false
		}
		if len(c.Subs) > 0 {
			sc := s.cat.Lookup(name)
			if sc == nil {
				return errUnknown, false
			}
			s.changePerm(sc, true)
			break
		}
		s.addFirstArg(c.ID, sub)
	case op[0] == '-' && (len(op) < 2 || op[1] != '@'):
		c := s.cat.Lookup(cString(op[1:]))
		if c == nil {
			return errUnknown, false
		}
		s.changePerm(c, false)
	case (op[0] == '+' || op[0] == '-') && op[1] == '@':
		bit := CategoryBit(cString(op[2:]))
		if bit == 0 {
			return errUnknown, false
		}
		s.setCategory(bit, op[0] == '+')
	default:
		return errSyntax, false
	}
	return 0, true
}

func (s *Selector) addFirstArg(id int, sub string) {
	if s.firstArgs == nil {
		s.firstArgs = map[int][]string{}
	}
	for _, a := range s.firstArgs[id] {
		if equalFold(a, sub) {
			return
		}
	}
	s.firstArgs[id] = append(s.firstArgs[id], sub)
}

// cString is b as C reads it: up to its first NUL.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// countCategory counts the commands of a category the selector allows
// (on) and blocks (off), subcommands included (ACLCountCategoryBitsForSelector).
func (s *Selector) countCategory(bit uint32) (on, off int) {
	for _, c := range s.cat.byID {
		if c.Categories&bit != 0 {
			if s.bit(c.ID) {
				on++
			} else {
				off++
			}
		}
	}
	return on, off
}

// commandRules describes the selector's commands as rules that rebuild
// its bitmap (ACLDescribeSelectorCommandRules): +@all or -@all, the
// categories that fit best, then single commands and first-args.
func (s *Selector) commandRules() string {
	var rules strings.Builder
	fake := newSelector(s.cat, false, false)
	additive := !s.bit(s.cat.futureBit())
	if additive {
		rules.WriteString("-@all ")
		fake.setAll(false)
	} else {
		rules.WriteString("+@all ")
		fake.setAll(true)
	}
	temp := newSelector(s.cat, false, false)
	copy(temp.allowed, s.allowed)
	applied := make([]bool, len(Categories))
	for {
		best, minDiff, maxSame := -1, int(^uint(0)>>1), 0
		for j := range Categories {
			if applied[j] {
				continue
			}
			on, off := temp.countCategory(1 << j)
			diff, same := on, off
			if additive {
				diff, same = off, on
			}
			if same > diff && (diff < minDiff || (diff == minDiff && same > maxSame)) {
				best, minDiff, maxSame = j, diff, same
			}
		}
		if best < 0 {
			break
		}
		sign, inv := "+@", "-@"
		if !additive {
			sign, inv = "-@", "+@"
		}
		fake.setCategory(1<<best, sign == "+@")
		temp.setCategory(1<<best, inv == "+@")
		rules.WriteString(sign + Categories[best] + " ")
		applied[best] = true
	}
	for _, c := range s.cat.top {
		s.singleRules(&rules, fake, c)
		for _, sub := range c.Subs {
			s.singleRules(&rules, fake, sub)
		}
	}
	out := rules.String()
	return out[:len(out)-1]
}

func (s *Selector) singleRules(rules *strings.Builder, fake *Selector, c *Command) {
	user, want := s.bit(c.ID), fake.bit(c.ID)
	if user != want {
		if user {
			rules.WriteString("+")
		} else {
			rules.WriteString("-")
		}
		rules.WriteString(c.Name + " ")
		fake.changePerm(c, user)
	}
	if !user {
		for _, a := range s.firstArgs[c.ID] {
			rules.WriteString("+" + c.Name + "|" + a + " ")
		}
	}
}

// keysText and channelsText are GETUSER's keys and channels fields.
func (s *Selector) keysText() string {
	if s.allKeys {
		return "~*"
	}
	parts := make([]string, len(s.keys))
	for i, k := range s.keys {
		parts[i] = k.String()
	}
	return strings.Join(parts, " ")
}

func (s *Selector) channelsText() string {
	if s.allChannels {
		return "&*"
	}
	parts := make([]string, len(s.channels))
	for i, c := range s.channels {
		parts[i] = "&" + c
	}
	return strings.Join(parts, " ")
}

// describe is ACLDescribeSelector: keys, channels, then commands.
func (s *Selector) describe() string {
	var b strings.Builder
	if s.allKeys {
		b.WriteString("~* ")
	} else {
		for _, k := range s.keys {
			b.WriteString(k.String() + " ")
		}
	}
	if s.allChannels {
		b.WriteString("&* ")
	} else {
		b.WriteString("resetchannels ")
		for _, c := range s.channels {
			b.WriteString("&" + c + " ")
		}
	}
	b.WriteString(s.commandRules())
	return b.String()
}

// Describe returns GETUSER's commands, keys and channels of the selector.
func (s *Selector) Describe() (commands, keys, channels string) {
	return s.commandRules(), s.keysText(), s.channelsText()
}

// equalFold compares as C's strcasecmp does: ASCII letters only.
func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
