#!/usr/bin/env python3
"""pubsub-subscribers.py PORT COUNT CHANNEL: COUNT connections to
127.0.0.1:PORT, each SUBSCRIBEd to CHANNEL, reading and dropping
everything they are sent until killed (scripts/bench-pubsub.sh)."""
import selectors, socket, sys

port, count, channel = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].encode()
sel = selectors.DefaultSelector()
req = b"*2\r\n$9\r\nSUBSCRIBE\r\n$%d\r\n%s\r\n" % (len(channel), channel)
for _ in range(count):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(req)
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ)
while True:
    for key, _ in sel.select():
        try:
            if not key.fileobj.recv(1 << 16):
                sel.unregister(key.fileobj)
        except BlockingIOError:
            pass
