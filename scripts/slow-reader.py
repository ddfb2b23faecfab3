#!/usr/bin/env python3
"""slow-reader.py: one client pipelines 300 ZRANGE bigz 0 -1 on a
100,000-member sorted set and never reads, while another PINGs every
100 ms. Prints the server's peak RSS, the worst PING, and RSS after the
slow client has gone, for floodgate and redis-server, with no output
limit and with client-output-buffer-limit normal 32mb 16mb 10
(BENCHMARKS.md, "## Slow readers").
Usage: scripts/slow-reader.py /path/to/floodgate [seconds]"""
import os, socket, subprocess, sys, time

def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0

def cmd(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out

def readline(s):
    buf = b""
    while not buf.endswith(b"\r\n"):
        chunk = s.recv(1)
        if not chunk:
            raise EOFError
        buf += chunk
    return buf

def run(name, argv, port, limit, seconds):
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                admin = socket.create_connection(("127.0.0.1", port)); break
            except OSError:
                time.sleep(0.1)
        if limit:
            admin.sendall(cmd("CONFIG", "SET", "client-output-buffer-limit", limit)); readline(admin)
        for base in range(0, 100000, 1000):
            args = ["ZADD", "bigz"]
            for i in range(base, base + 1000):
                args += [i, "member:%d" % i]
            admin.sendall(cmd(*args)); readline(admin)
        base_rss = rss(p.pid)
        slow = socket.create_connection(("127.0.0.1", port))
        slow.sendall(cmd("ZRANGE", "bigz", 0, -1) * 300)
        worst, peak, closed_at = 0.0, base_rss, None
        end = time.time() + seconds
        while time.time() < end:
            t0 = time.time()
            admin.sendall(b"PING\r\n"); readline(admin)
            worst = max(worst, time.time() - t0)
            peak = max(peak, rss(p.pid))
            time.sleep(0.1)
        slow.close()
        time.sleep(5)
        t0 = time.time(); admin.sendall(b"PING\r\n"); readline(admin)
        after = rss(p.pid)
        print(f"{name:10} {limit or 'none':22} peak RSS {peak/2**20:7.0f} MB  worst PING {worst*1000:8.1f} ms  RSS 5 s after {after/2**20:6.0f} MB (before {base_rss/2**20:.0f} MB)")
    finally:
        p.kill(); p.wait()

def main():
    fg = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 15
    for limit in ["", "normal 32mb 16mb 10"]:
        run("redis", ["redis-server", "--port", "7461", "--save", "", "--appendonly", "no"], 7461, limit, seconds)
        run("floodgate", [fg, "--port", "7462"], 7462, limit, seconds)

main()
