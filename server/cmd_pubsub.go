package server

import "github.com/floodgate/floodgate/store"

// The pub/sub commands, as Redis 7.0's src/pubsub.c; the registry and the
// delivery of messages are in pubsub.go.
var pubsubHandlers = map[string]Handler{
	"subscribe":            cmdSubscribe,
	"unsubscribe":          cmdUnsubscribe,
	"psubscribe":           cmdPsubscribe,
	"punsubscribe":         cmdPunsubscribe,
	"publish":              cmdPublish,
	"ssubscribe":           cmdSsubscribe,
	"sunsubscribe":         cmdSunsubscribe,
	"spublish":             cmdSpublish,
	"pubsub|channels":      cmdPubsubChannels,
	"pubsub|numsub":        cmdPubsubNumsub,
	"pubsub|numpat":        cmdPubsubNumpat,
	"pubsub|shardchannels": cmdPubsubShardChannels,
	"pubsub|shardnumsub":   cmdPubsubShardNumsub,
	"pubsub|help":          helpHandler(pubsubHelp),
}

var pubsubHelp = []string{
	"PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CHANNELS [<pattern>]",
	"    Return the currently active channels matching a <pattern> (default: '*').",
	"NUMPAT",
	"    Return number of subscriptions to patterns.",
	"NUMSUB [<channel> ...]",
	"    Return the number of subscribers for the specified channels, excluding",
	"    pattern subscriptions(default: no channels).",
	"SHARDCHANNELS [<pattern>]",
	"    Return the currently active shard level channels matching a <pattern> (default: '*').",
	"SHARDNUMSUB [<shardchannel> ...]",
	"    Return the number of subscribers for the specified shard level channel(s)",
	"HELP",
	"    Prints this help.",
}

// allowedSubscribed reports whether a RESP2 client subscribed to anything
// may run cmd (processCommand's list).
func allowedSubscribed(cmd *Command) bool {
	switch cmd.Name {
	case "ping", "subscribe", "ssubscribe", "unsubscribe", "sunsubscribe",
		"psubscribe", "punsubscribe", "quit", "reset":
		return true
	}
	return false
}

// deniesBlocking is Redis's CLIENT_DENY_BLOCKING: a client that expects one
// reply per command (a script's, or EXEC running its queue).
func (c *Client) deniesBlocking() bool { return c.inExec || c.inScript }

func cmdSubscribe(c *Client, args [][]byte) {
	if c.deniesBlocking() && !c.inExec { // MULTI is let through, as in Redis
		c.w.Error("ERR SUBSCRIBE isn't allowed for a DENY BLOCKING client")
		return
	}
	for _, ch := range args[1:] {
		c.srv.subscribeChannel(c, ch, globalChannels)
	}
}

func cmdUnsubscribe(c *Client, args [][]byte) {
	if len(args) == 1 {
		c.srv.unsubscribeAllChannels(c, true, globalChannels)
		return
	}
	for _, ch := range args[1:] {
		c.srv.unsubscribeChannel(c, string(ch), true, globalChannels)
	}
}

func cmdPsubscribe(c *Client, args [][]byte) {
	if c.deniesBlocking() && !c.inExec {
		c.w.Error("ERR PSUBSCRIBE isn't allowed for a DENY BLOCKING client")
		return
	}
	for _, p := range args[1:] {
		c.srv.subscribePattern(c, p)
	}
}

func cmdPunsubscribe(c *Client, args [][]byte) {
	if len(args) == 1 {
		c.srv.unsubscribeAllPatterns(c, true)
		return
	}
	for _, p := range args[1:] {
		c.srv.unsubscribePattern(c, string(p), true)
	}
}

func cmdSsubscribe(c *Client, args [][]byte) {
	if c.deniesBlocking() { // inside MULTI too
		c.w.Error("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client")
		return
	}
	for _, ch := range args[1:] {
		c.srv.subscribeChannel(c, ch, shardChannels)
	}
}

func cmdSunsubscribe(c *Client, args [][]byte) {
	if len(args) == 1 {
		c.srv.unsubscribeAllChannels(c, true, shardChannels)
		return
	}
	for _, ch := range args[1:] {
		c.srv.unsubscribeChannel(c, string(ch), true, shardChannels)
	}
}

func cmdPublish(c *Client, args [][]byte) {
	c.w.Int(c.srv.publish(args[1], args[2], globalChannels))
}

func cmdSpublish(c *Client, args [][]byte) {
	c.w.Int(c.srv.publish(args[1], args[2], shardChannels))
}

func cmdPubsubChannels(c *Client, args [][]byte) {
	pubsubChannelList(c, args, c.srv.pubsub.channels)
}

func cmdPubsubShardChannels(c *Client, args [][]byte) {
	pubsubChannelList(c, args, c.srv.pubsub.shard)
}

// pubsubChannelList is channelList: the channels with a subscriber,
// matching the pattern when one is given.
func pubsubChannelList(c *Client, args [][]byte, reg map[string]*subscriberList) {
	if len(args) > 3 {
		subcommandSyntaxError(c, args)
		return
	}
	var names []string
	for ch := range reg {
		if len(args) == 2 || store.Match(args[2], []byte(ch), false) {
			names = append(names, ch)
		}
	}
	c.w.Array(len(names))
	for _, ch := range names {
		c.w.BulkString(ch)
	}
}

func cmdPubsubNumsub(c *Client, args [][]byte) {
	pubsubNumsub(c, args, c.srv.pubsub.channels)
}

func cmdPubsubShardNumsub(c *Client, args [][]byte) {
	pubsubNumsub(c, args, c.srv.pubsub.shard)
}

func pubsubNumsub(c *Client, args [][]byte, reg map[string]*subscriberList) {
	c.w.Array(2 * (len(args) - 2))
	for _, ch := range args[2:] {
		c.w.Bulk(ch)
		n := 0
		if l := reg[string(ch)]; l != nil {
			n = len(l.clients)
		}
		c.w.Int(int64(n))
	}
}

func cmdPubsubNumpat(c *Client, args [][]byte) {
	c.w.Int(int64(len(c.srv.pubsub.patterns)))
}

// subcommandSyntaxError is Redis's addReplySubcommandSyntaxError.
func subcommandSyntaxError(c *Client, args [][]byte) {
	c.w.Error(sanitizeError("ERR unknown subcommand or wrong number of arguments for '" + truncate(args[1], 128) + "'. Try " + upper(string(args[0])) + " HELP."))
}
