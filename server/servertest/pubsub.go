package servertest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"sync"

	"github.com/floodgate/floodgate/server"
)

// Pub/sub helpers, named as miniredis names them (Publish, PubSubChannels,
// PubSubNumSub, PubSubNumPat, NewSubscriber). A Subscriber is a real
// subscribed client of the server (over Dial): it receives what PUBLISH
// from any client, a script or a MULTI sends, and keyspace notifications
// (subscribe to KeyspaceChannel or KeyeventChannel names, or a pattern of
// them), in the order the server sends them. Subscribe and its friends
// return once the server has confirmed the subscription, so a message
// published after they return is delivered: a test never sleeps to wait
// for a subscription, and reads messages with Next or Messages.

// Publish publishes message on channel, as PUBLISH, and returns the
// number of subscriptions that received it.
func (s *Server) Publish(channel, message string) int {
	n, _ := s.Call(0, "PUBLISH", channel, message)
	i, _ := n.(int64)
	return int(i)
}

// PubSubChannels is PUBSUB CHANNELS: the channels with at least one
// subscriber (not counting patterns) whose names match pattern (every
// channel for ""), sorted.
func (s *Server) PubSubChannels(pattern string) []string {
	args := []string{"PUBSUB", "CHANNELS"}
	if pattern != "" {
		args = append(args, pattern)
	}
	reply, _ := s.Call(0, args...)
	list := replyStrings(reply)
	sort.Strings(list)
	return list
}

// PubSubNumSub is PUBSUB NUMSUB: the number of subscribers of each
// channel (patterns not counted).
func (s *Server) PubSubNumSub(channels ...string) map[string]int {
	reply, _ := s.Call(0, append([]string{"PUBSUB", "NUMSUB"}, channels...)...)
	pairs, _ := reply.([]any)
	counts := make(map[string]int, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		name, _ := pairs[i].(string)
		n, _ := pairs[i+1].(int64)
		counts[name] = int(n)
	}
	return counts
}

// PubSubNumPat is PUBSUB NUMPAT: the number of patterns subscribed to by
// any client.
func (s *Server) PubSubNumPat() int {
	n, _ := s.Call(0, "PUBSUB", "NUMPAT")
	i, _ := n.(int64)
	return int(i)
}

func replyStrings(reply any) []string {
	items, _ := reply.([]any)
	out := make([]string, 0, len(items))
	for _, it := range items {
		if s, ok := it.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// KeyspaceChannel is the channel of key's keyspace notifications in
// database db: "__keyspace@<db>__:<key>" (with notify-keyspace-events
// set to include K).
func KeyspaceChannel(db int, key string) string {
	return "__keyspace@" + strconv.Itoa(db) + "__:" + key
}

// KeyeventChannel is the channel of event's keyevent notifications in
// database db: "__keyevent@<db>__:<event>" (notify-keyspace-events E).
func KeyeventChannel(db int, event string) string {
	return "__keyevent@" + strconv.Itoa(db) + "__:" + event
}

// Message is what a Subscriber received.
type Message struct {
	// Kind is "message" (a channel subscription), "pmessage" (a pattern
	// subscription) or "smessage" (a shard channel).
	Kind string
	// Pattern is the pattern that matched, for a pmessage.
	Pattern string
	// Channel is the channel the message was published to; for a
	// keyspace notification, "__keyspace@0__:<key>" or
	// "__keyevent@0__:<event>".
	Channel string
	// Message is the message; for a keyspace notification, the event
	// ("set", "expired") or the key.
	Message string
}

// ErrSubscriberClosed is returned by Next once the Subscriber is closed or
// its connection is gone.
var ErrSubscriberClosed = errors.New("servertest: subscriber closed")

// Subscriber is a client of the server in the subscribed state. Its
// methods are safe for concurrent use. Messages are kept, in the order
// received, until read with Next or from Messages (both read the same
// queue), so the server never waits for the test to read.
type Subscriber struct {
	conn  net.Conn
	opMu  sync.Mutex     // one (un)subscription at a time
	acks  chan ackOrErr  // the server's replies to those, in order
	done  chan struct{}  // closed when the reader is gone
	subs  map[string]int // the subscriptions by kind, for argument-less unsubscribes
	mu    sync.Mutex
	queue []Message
	ready chan struct{} // signalled when queue gets a message
	once  sync.Once     // starts Messages' goroutine
	out   chan Message
	stop  chan struct{} // closed by Close
	close sync.Once
}

type ackOrErr struct {
	count int
	err   error
}

// NewSubscriber returns a new client of s, subscribed to nothing yet; close
// it with Close (the server's Close closes it too). It panics if the server
// is closed.
func (s *Server) NewSubscriber() *Subscriber {
	conn, err := s.Dial()
	if err != nil {
		panic("servertest: NewSubscriber: " + err.Error())
	}
	sub := &Subscriber{
		conn:  conn,
		acks:  make(chan ackOrErr, 64),
		done:  make(chan struct{}),
		subs:  map[string]int{},
		ready: make(chan struct{}, 1),
		stop:  make(chan struct{}),
	}
	go sub.read()
	return sub
}

// Subscribe subscribes to channels (SUBSCRIBE) and returns the number of
// channels and patterns the subscriber then has.
func (sub *Subscriber) Subscribe(channels ...string) int {
	return sub.do("SUBSCRIBE", channels)
}

// Unsubscribe leaves channels, or every channel if none is given
// (UNSUBSCRIBE), and returns the channels and patterns left.
func (sub *Subscriber) Unsubscribe(channels ...string) int {
	return sub.do("UNSUBSCRIBE", channels)
}

// Psubscribe subscribes to glob-style patterns (PSUBSCRIBE), such as
// "__keyspace@0__:*", and returns the channels and patterns the
// subscriber then has.
func (sub *Subscriber) Psubscribe(patterns ...string) int {
	return sub.do("PSUBSCRIBE", patterns)
}

// Punsubscribe leaves patterns, or every pattern if none is given
// (PUNSUBSCRIBE), and returns the channels and patterns left.
func (sub *Subscriber) Punsubscribe(patterns ...string) int {
	return sub.do("PUNSUBSCRIBE", patterns)
}

// Ssubscribe subscribes to shard channels (SSUBSCRIBE) and returns the
// number of shard channels the subscriber then has.
func (sub *Subscriber) Ssubscribe(channels ...string) int {
	return sub.do("SSUBSCRIBE", channels)
}

// Sunsubscribe leaves shard channels, or all of them if none is given
// (SUNSUBSCRIBE), and returns the shard channels left.
func (sub *Subscriber) Sunsubscribe(channels ...string) int {
	return sub.do("SUNSUBSCRIBE", channels)
}

// do sends one (un)subscription command and waits for the server's
// confirmation of each of its names. It panics on an error reply (an
// empty SUBSCRIBE), as a test helper may; it returns -1 once closed.
func (sub *Subscriber) do(cmd string, names []string) int {
	sub.opMu.Lock()
	defer sub.opMu.Unlock()
	kind := map[string]string{"SUBSCRIBE": "c", "UNSUBSCRIBE": "c", "PSUBSCRIBE": "p", "PUNSUBSCRIBE": "p", "SSUBSCRIBE": "s", "SUNSUBSCRIBE": "s"}[cmd]
	replies := len(names)
	if replies == 0 {
		// An unsubscribe of everything confirms each name it leaves, or
		// once (with a null name) if there was none.
		replies = max(1, sub.count(kind))
	}
	if _, err := sub.conn.Write(encode(append([]string{cmd}, names...))); err != nil {
		return -1
	}
	count := -1
	for range replies {
		select {
		case a := <-sub.acks:
			if a.err != nil {
				panic("servertest: " + cmd + ": " + a.err.Error())
			}
			count = a.count
		case <-sub.done:
			return -1
		}
	}
	return count
}

// count is how many subscriptions of a kind ("c", "p", "s") it has.
func (sub *Subscriber) count(kind string) int {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	return sub.subs[kind]
}

// Next returns the next message received, waiting for one until ctx is
// done (ctx.Err()) or the subscriber is closed (ErrSubscriberClosed).
func (sub *Subscriber) Next(ctx context.Context) (Message, error) {
	for {
		sub.mu.Lock()
		if len(sub.queue) > 0 {
			m := sub.queue[0]
			sub.queue[0] = Message{}
			sub.queue = sub.queue[1:]
			sub.mu.Unlock()
			return m, nil
		}
		sub.mu.Unlock()
		select {
		case <-sub.ready:
		case <-sub.done:
			sub.mu.Lock()
			left := len(sub.queue)
			sub.mu.Unlock()
			if left == 0 {
				return Message{}, ErrSubscriberClosed
			}
		case <-ctx.Done():
			return Message{}, ctx.Err()
		}
	}
}

// Messages returns a channel of the messages received, closed when the
// subscriber is. It reads the queue Next reads: use one or the other.
func (sub *Subscriber) Messages() <-chan Message {
	sub.once.Do(func() {
		sub.out = make(chan Message)
		go func() {
			defer close(sub.out)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				<-sub.stop
				cancel()
			}()
			for {
				m, err := sub.Next(ctx)
				if err != nil {
					return
				}
				select {
				case sub.out <- m:
				case <-sub.stop:
					return
				}
			}
		}()
	})
	return sub.out
}

// Close closes the subscriber's connection, which ends its
// subscriptions, and the Messages channel.
func (sub *Subscriber) Close() {
	sub.close.Do(func() {
		close(sub.stop)
		sub.conn.Close()
		<-sub.done
	})
}

// read is the subscriber's reader: messages go to the queue, the rest
// (confirmations, errors) to acks.
func (sub *Subscriber) read() {
	defer close(sub.done)
	r := bufio.NewReader(sub.conn)
	for {
		v, err := readReply(r)
		if err != nil {
			return
		}
		if e, ok := v.(server.ReplyError); ok {
			sub.ack(ackOrErr{err: e})
			continue
		}
		items, _ := v.([]any)
		if len(items) < 3 {
			continue
		}
		kind, _ := items[0].(string)
		switch kind {
		case "message", "smessage":
			sub.push(Message{Kind: kind, Channel: str(items[1]), Message: str(items[2])})
		case "pmessage":
			if len(items) == 4 {
				sub.push(Message{Kind: kind, Pattern: str(items[1]), Channel: str(items[2]), Message: str(items[3])})
			}
		case "subscribe", "unsubscribe", "psubscribe", "punsubscribe", "ssubscribe", "sunsubscribe":
			n, _ := items[2].(int64)
			sub.noteCount(kind, int(n))
			sub.ack(ackOrErr{count: int(n)})
		}
	}
}

// noteCount keeps the subscription counts from the confirmations: the
// shard count is the reply's, the others are tracked as channels plus
// patterns, split by what each confirmation changed.
func (sub *Subscriber) noteCount(kind string, n int) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	switch kind {
	case "ssubscribe", "sunsubscribe":
		sub.subs["s"] = n
	case "subscribe", "unsubscribe":
		sub.subs["c"] = max(0, n-sub.subs["p"])
	case "psubscribe", "punsubscribe":
		sub.subs["p"] = max(0, n-sub.subs["c"])
	}
}

func (sub *Subscriber) ack(a ackOrErr) {
	select {
	case sub.acks <- a:
	case <-sub.stop:
	}
}

func (sub *Subscriber) push(m Message) {
	sub.mu.Lock()
	sub.queue = append(sub.queue, m)
	sub.mu.Unlock()
	select {
	case sub.ready <- struct{}{}:
	default:
	}
}

func str(v any) string { s, _ := v.(string); return s }

// encode is a command as a RESP array of bulk strings.
func encode(args []string) []byte {
	b := fmt.Appendf(nil, "*%d\r\n", len(args))
	for _, a := range args {
		b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b
}

// readReply reads one RESP2 reply: a string (status or bulk), an int64,
// nil, a []any, or a server.ReplyError.
func readReply(r *bufio.Reader) (any, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 {
		return nil, errors.New("servertest: short reply line")
	}
	body := line[1 : len(line)-2]
	switch line[0] {
	case '+':
		return body, nil
	case '-':
		return server.ReplyError(body), nil
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		items := make([]any, n)
		for i := range items {
			if items[i], err = readReply(r); err != nil {
				return nil, err
			}
		}
		return items, nil
	}
	return nil, fmt.Errorf("servertest: unexpected reply %q", line)
}
