// Package acl is Redis 7.0's access control model: users, their
// passwords and selectors, the rules ACL SETUSER and the aclfile speak,
// permission checks of a command, its keys and channels, the
// description ACL LIST prints, and the ACL LOG. It knows commands only as
// a Catalog of names and categories, and nothing of connections: the
// server finds a command's keys and channels and asks.
//
// Every name and text follows Redis 7.0.15's src/acl.c.
package acl

import (
	"sort"
	"strings"
)

// Categories are Redis's ACL categories, in acl.c's ACLCommandCategories
// order: the order of ACL CAT, of COMMAND INFO's categories, and the
// order in which the description of a user tries them.
var Categories = []string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
	"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
	"blocking", "dangerous", "connection", "transaction", "scripting",
}

// CategoryBit returns the bit of a category name (case-insensitive, as
// Redis's strcasecmp), or 0 for an unknown name.
func CategoryBit(name string) uint32 {
	for i, c := range Categories {
		if equalFold(c, name) {
			return 1 << i
		}
	}
	return 0
}

// Command is one command of the catalog: every command Redis has (and
// floodgate's own), implemented or not, since rules may name any of them.
type Command struct {
	Name       string // lower case full name: "get", "config|get"
	Categories uint32 // bits of Categories
	NoAuth     bool   // the no_auth flag: every user may run it
	Module     bool   // a module command: categories leave it alone

	ID     int
	Parent *Command
	Subs   []*Command // sorted by name
}

// Catalog is the set of commands ACL rules speak of.
type Catalog struct {
	top    []*Command // sorted by name
	byID   []*Command
	byName map[string]*Command // full names
}

// NewCatalog builds a catalog of top-level commands with their
// subcommands, and numbers them.
func NewCatalog(top []*Command) *Catalog {
	cat := &Catalog{byName: map[string]*Command{}}
	cat.top = append(cat.top, top...)
	sort.Slice(cat.top, func(i, j int) bool { return cat.top[i].Name < cat.top[j].Name })
	for _, c := range cat.top {
		cat.add(c)
		sort.Slice(c.Subs, func(i, j int) bool { return c.Subs[i].Name < c.Subs[j].Name })
		for _, s := range c.Subs {
			s.Parent = c
			cat.add(s)
		}
	}
	return cat
}

func (cat *Catalog) add(c *Command) {
	c.ID = len(cat.byID)
	cat.byID = append(cat.byID, c)
	cat.byName[c.Name] = c
}

// Lookup finds a command by full name ("config|get"), case-insensitively.
func (cat *Catalog) Lookup(name string) *Command {
	if c, ok := cat.byName[name]; ok {
		return c
	}
	return cat.byName[strings.ToLower(name)]
}

// InCategory returns the full names of the commands of a category (a
// bit of Categories), containers before their subcommands; module
// commands are left out, as ACL CAT leaves them out.
func (cat *Catalog) InCategory(bit uint32) []string {
	var names []string
	for _, c := range cat.top {
		if !c.Module && c.Categories&bit != 0 {
			names = append(names, c.Name)
		}
		for _, s := range c.Subs {
			if !s.Module && s.Categories&bit != 0 {
				names = append(names, s.Name)
			}
		}
	}
	return names
}

// size is the number of command bits a selector holds, the last one being
// Redis's reserved bit for commands added later (set by +@all only).
func (cat *Catalog) size() int { return len(cat.byID) + 1 }

func (cat *Catalog) futureBit() int { return len(cat.byID) }
