package conformance

import "testing"

// TestKeyspaceEventsRefused: floodgate has no pub/sub, so no client could
// receive a keyspace event, and every event class is refused with the text
// Redis gives for a value it cannot take; the default, "", is accepted.
// What Redis accepts is run on both and not compared (Redis is set back).
func TestKeyspaceEventsRefused(t *testing.T) {
	const noPubSub = "!known=floodgate-has-no-pub/sub:-it-refuses-every-event-class-with-Redis's-invalid-value-text "
	runCases(t, []tcase{
		{"notify-keyspace-events", []string{
			"CONFIG SET notify-keyspace-events Q", "CONFIG SET notify-keyspace-events KEQ", "CONFIG SET notify-keyspace-events 1",
			"CONFIG GET notify-keyspace-events",
			noPubSub + "CONFIG SET notify-keyspace-events KEA", noPubSub + "CONFIG SET notify-keyspace-events Ex",
			noPubSub + "CONFIG SET notify-keyspace-events K",
			`CONFIG SET notify-keyspace-events ""`, "CONFIG GET notify-keyspace-events",
			`CONFIG SET notify-keyspace-events "" notify-keyspace-events Q`, "CONFIG GET notify-keyspace-events",
		}},
	})
}
