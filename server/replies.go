package server

import "github.com/floodgate/floodgate/internal/resp"

// Writer receives a command's reply. Handlers write through it and never
// format protocol bytes themselves, so the same handler serves a RESP2 or
// RESP3 client (resp.Writer) and a script's redis.call (the engine's Lua
// values): it is resp.ReplyWriter, one interface for both.
type Writer = resp.ReplyWriter
