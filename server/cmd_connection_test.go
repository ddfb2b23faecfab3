package server

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestGoRedisHandshake: go-redis opens with HELLO 3, falls back to RESP2 on
// NOPROTO, authenticates, selects its database and names the connection,
// then parses INFO, CONFIG GET and TIME replies.
func TestGoRedisHandshake(t *testing.T) {
	srv := startProtocolServer(t, Config{Password: "pw"})
	ctx := context.Background()
	rdb := redis.NewClient(patient(&redis.Options{Addr: srv.Addr(), Password: "pw", DB: 3, ClientName: "gr", MaxRetries: -1}))
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING: %v", err)
	}
	if name, err := rdb.ClientGetName(ctx).Result(); err != nil || name != "gr" {
		t.Fatalf("CLIENT GETNAME = %q, %v", name, err)
	}
	list, err := rdb.ClientList(ctx).Result()
	if err != nil || !strings.Contains(list, " name=gr ") || !strings.Contains(list, " db=3 ") {
		t.Fatalf("CLIENT LIST = %q, %v", list, err)
	}
	info, err := rdb.InfoMap(ctx, "server", "keyspace").Result()
	if err != nil || info["Server"]["redis_version"] != Version {
		t.Fatalf("INFO = %v, %v", info, err)
	}
	cfg, err := rdb.ConfigGet(ctx, "maxmemory*").Result()
	if err != nil || cfg["maxmemory"] != "0" || cfg["maxmemory-policy"] != "noeviction" {
		t.Fatalf("CONFIG GET = %v, %v", cfg, err)
	}
	if _, err := rdb.Time(ctx).Result(); err != nil {
		t.Fatalf("TIME: %v", err)
	}
	wrong := redis.NewClient(patient(&redis.Options{Addr: srv.Addr(), Password: "nope", MaxRetries: -1}))
	defer wrong.Close()
	if err := wrong.Ping(ctx).Err(); err == nil || !strings.HasPrefix(err.Error(), "WRONGPASS") {
		t.Fatalf("PING with a wrong password: %v", err)
	}
}
