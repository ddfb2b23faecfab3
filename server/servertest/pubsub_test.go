package servertest_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
	"github.com/floodgate/floodgate/server/servertest"
	"github.com/redis/go-redis/v9"
)

func next(t *testing.T, sub *servertest.Subscriber) servertest.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m, err := sub.Next(ctx)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return m
}

// TestSubscriber: subscriptions are confirmed before Subscribe returns,
// messages from the direct API and from clients arrive in order, with
// their kind, pattern and channel, and the PUBSUB helpers see them.
func TestSubscriber(t *testing.T) {
	s := servertest.RunT(t)
	sub := s.NewSubscriber()
	defer sub.Close()
	if n := sub.Subscribe("news", "sport"); n != 2 {
		t.Fatalf("Subscribe = %d, want 2", n)
	}
	if n := sub.Psubscribe("n*"); n != 3 {
		t.Fatalf("Psubscribe = %d, want 3", n)
	}
	if n := sub.Ssubscribe("shard"); n != 1 {
		t.Fatalf("Ssubscribe = %d, want 1 (shard channels count alone)", n)
	}
	if got := s.PubSubChannels(""); !reflect.DeepEqual(got, []string{"news", "sport"}) {
		t.Errorf("PubSubChannels = %q", got)
	}
	if got := s.PubSubChannels("s*"); !reflect.DeepEqual(got, []string{"sport"}) {
		t.Errorf("PubSubChannels(s*) = %q", got)
	}
	if got := s.PubSubNumSub("news", "none"); !reflect.DeepEqual(got, map[string]int{"news": 1, "none": 0}) {
		t.Errorf("PubSubNumSub = %v", got)
	}
	if got := s.PubSubNumPat(); got != 1 {
		t.Errorf("PubSubNumPat = %d", got)
	}
	if n := s.Publish("news", "hello"); n != 2 {
		t.Errorf("Publish = %d, want 2 (the channel and the pattern)", n)
	}
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()
	rdb.Publish(context.Background(), "sport", "goal")
	rdb.SPublish(context.Background(), "shard", "s1")
	for _, want := range []servertest.Message{
		{Kind: "message", Channel: "news", Message: "hello"},
		{Kind: "pmessage", Pattern: "n*", Channel: "news", Message: "hello"},
		{Kind: "message", Channel: "sport", Message: "goal"},
		{Kind: "smessage", Channel: "shard", Message: "s1"},
	} {
		if got := next(t, sub); got != want {
			t.Errorf("got %+v, want %+v", got, want)
		}
	}
	if n := sub.Unsubscribe(); n != 1 {
		t.Errorf("Unsubscribe() = %d, want 1 (the pattern left)", n)
	}
	if n := sub.Punsubscribe(); n != 0 {
		t.Errorf("Punsubscribe() = %d, want 0", n)
	}
	if n := sub.Unsubscribe(); n != 0 {
		t.Errorf("Unsubscribe() of nothing = %d, want 0", n)
	}
	if n := s.Publish("news", "x"); n != 0 {
		t.Errorf("Publish after unsubscribing = %d", n)
	}
	if n := sub.Sunsubscribe(); n != 0 {
		t.Errorf("Sunsubscribe() = %d", n)
	}
	// A context that ends first.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sub.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Next with a cancelled context: %v", err)
	}
}

// TestSubscriberMessagesAndClose: Messages delivers the same queue, and
// Close ends it; the subscription goes with the connection.
func TestSubscriberMessagesAndClose(t *testing.T) {
	s := servertest.RunT(t)
	sub := s.NewSubscriber()
	sub.Subscribe(servertest.KeyspaceChannel(0, "k"))
	s.Publish("__keyspace@0__:k", "set")
	select {
	case m := <-sub.Messages():
		if m.Channel != "__keyspace@0__:k" || m.Message != "set" {
			t.Errorf("got %+v", m)
		}
	case <-time.After(time.Minute):
		t.Fatal("no message")
	}
	sub.Close()
	if _, ok := <-sub.Messages(); ok {
		t.Error("Messages still open after Close")
	}
	if _, err := sub.Next(context.Background()); !errors.Is(err, servertest.ErrSubscriberClosed) {
		t.Errorf("Next after Close: %v", err)
	}
	redistest.Eventually(t, "the subscription gone with the connection", func() bool { return s.PubSubNumSub("__keyspace@0__:k")["__keyspace@0__:k"] == 0 })
}

// TestSubscriberKeyspaceEvents: with notify-keyspace-events on, a
// subscriber to the keyspace and keyevent channels sees the server's
// events. Skipped while the server refuses the setting.
func TestSubscriberKeyspaceEvents(t *testing.T) {
	s := servertest.RunT(t)
	if _, err := s.Call(0, "CONFIG", "SET", "notify-keyspace-events", "KEA"); err != nil {
		t.Skipf("keyspace notifications not built: %v", err)
	}
	sub := s.NewSubscriber()
	defer sub.Close()
	sub.Psubscribe(servertest.KeyspaceChannel(0, "*"))
	sub.Subscribe(servertest.KeyeventChannel(0, "set"))
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()
	rdb.Set(context.Background(), "k", "v", 0)
	got := []servertest.Message{next(t, sub), next(t, sub)}
	want := []servertest.Message{
		{Kind: "pmessage", Pattern: "__keyspace@0__:*", Channel: "__keyspace@0__:k", Message: "set"},
		{Kind: "message", Channel: "__keyevent@0__:set", Message: "k"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// A subscriber made with NewSubscriber is subscribed once Subscribe
// returns, so the code under test can publish at once, and the test reads
// what arrived with Next: no sleeps.
func ExampleServer_NewSubscriber() {
	s, err := servertest.Run()
	if err != nil {
		panic(err)
	}
	defer s.Close()

	sub := s.NewSubscriber()
	defer sub.Close()
	sub.Subscribe("limits")

	// The code under test publishes, through any client.
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()
	rdb.Publish(context.Background(), "limits", "api:42 blocked")

	m, err := sub.Next(context.Background())
	fmt.Println(m.Channel, m.Message, err)
	fmt.Println(s.PubSubNumSub("limits"))
	// Output:
	// limits api:42 blocked <nil>
	// map[limits:1]
}
