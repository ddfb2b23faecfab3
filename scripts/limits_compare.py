#!/usr/bin/env python3
"""limits_compare.py: run the Python `limits` library's Redis storage with
every strategy against real Redis and floodgate in lockstep, and report any
decision, window statistic or stored key that differs.

    PYTHONPATH=/path/to/limits python3 scripts/limits_compare.py \
        redis://127.0.0.1:6379/0 redis://127.0.0.1:7777/0

`limits` (5.x, it backs Flask-Limiter and slowapi) and `redis` (redis-py)
must be importable. Both servers see the same calls at the same moment, so
the decisions must be identical; reset times and TTLs may differ by the
few milliseconds between the two calls, and are compared with a tolerance.
Exit status 0 when nothing differs.
"""
import sys
import time

import redis
from limits import parse
from limits.storage import storage_from_string
from limits.strategies import (
    FixedWindowRateLimiter,
    MovingWindowRateLimiter,
    SlidingWindowCounterRateLimiter,
)

STRATEGIES = [
    ("fixed-window", FixedWindowRateLimiter),
    ("moving-window", MovingWindowRateLimiter),
    ("sliding-window-counter", SlidingWindowCounterRateLimiter),
]

LIMITS = ["5/second", "10 per 2 seconds", "3/minute", "100/hour", "1/second"]

# A schedule is a list of steps: ("hit", cost), ("test", cost),
# ("stats",), ("sleep", seconds), ("clear",), ("reset",) (the storage's
# reset, whose clear_keys.lua deletes every LIMITS:* key). Costs above the
# limit and bursts around the window edge are where strategies diverge.
SCHEDULE = (
    [("hit", 1)] * 6
    + [("test", 1), ("stats",), ("sleep", 0.6), ("hit", 1), ("stats",)]
    + [("sleep", 0.5), ("hit", 2), ("hit", 3), ("test", 4), ("stats",)]
    + [("hit", 200), ("test", 200), ("sleep", 1.1), ("hit", 1), ("stats",)]
    + [("clear",), ("stats",), ("hit", 1), ("hit", 1), ("stats",)]
    + [("sleep", 2.1), ("hit", 5), ("hit", 1), ("stats",), ("test", 1)]
    + [("reset",), ("stats",), ("hit", 1)]
)

TOLERANCE = 0.5  # seconds, for reset times and TTLs


def keys_snapshot(client):
    """Every key with its type, value and TTL (ms), for the comparison."""
    snap = {}
    for key in sorted(client.keys("*")):
        kind = client.type(key).decode()
        if kind == "string":
            value = client.get(key)
        elif kind == "list":
            value = client.lrange(key, 0, -1)
        else:
            value = kind
        snap[key] = (kind, value, client.pttl(key))
    return snap


def compare_snapshots(where, a, b, problems):
    if sorted(a) != sorted(b):
        problems.append(f"{where}: keys differ: {sorted(a)} vs {sorted(b)}")
        return
    for key in a:
        (ka, va, ta), (kb, vb, tb) = a[key], b[key]
        if ka != kb:
            problems.append(f"{where}: {key!r} type {ka} vs {kb}")
        elif ka == "list":
            if len(va) != len(vb):
                problems.append(f"{where}: {key!r} list length {len(va)} vs {len(vb)}")
            # Entries are timestamps taken on the client: same format, and
            # the same moment within the tolerance.
            for x, y in zip(va, vb):
                if x.count(b".") != y.count(b".") or abs(float(x) - float(y)) > TOLERANCE:
                    problems.append(f"{where}: {key!r} entry {x!r} vs {y!r}")
                    break
        elif va != vb:
            problems.append(f"{where}: {key!r} value {va!r} vs {vb!r}")
        if (ta < 0) != (tb < 0) or abs(ta - tb) > TOLERANCE * 1000:
            problems.append(f"{where}: {key!r} pttl {ta} vs {tb}")


def run(url_a, url_b):
    problems = []
    decisions = 0
    raw = [redis.from_url(u) for u in (url_a, url_b)]
    storages = [storage_from_string(u) for u in (url_a, url_b)]
    for name, strategy in STRATEGIES:
        for spec in LIMITS:
            for c in raw:
                c.flushdb()
            limiters = [strategy(s) for s in storages]
            item = parse(spec)
            for i, step in enumerate(SCHEDULE):
                where = f"{name} {spec} step {i} {step}"
                op = step[0]
                if op == "sleep":
                    time.sleep(step[1])
                    continue
                results = []
                for lim in limiters:
                    if op == "hit":
                        results.append(lim.hit(item, "k", "user", cost=step[1]))
                    elif op == "test":
                        results.append(lim.test(item, "k", "user", cost=step[1]))
                    elif op == "clear":
                        results.append(lim.clear(item, "k", "user"))
                    elif op == "stats":
                        results.append(lim.get_window_stats(item, "k", "user"))
                    elif op == "reset":
                        results.append(lim.storage.reset())
                decisions += 1
                a, b = results
                if op == "stats":
                    if a.remaining != b.remaining or abs(a.reset_time - b.reset_time) > TOLERANCE:
                        problems.append(f"{where}: stats {a} vs {b}")
                elif a != b:
                    problems.append(f"{where}: {a} vs {b}")
                compare_snapshots(where, keys_snapshot(raw[0]), keys_snapshot(raw[1]), problems)
    return decisions, problems


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    decisions, problems = run(sys.argv[1], sys.argv[2])
    for p in problems:
        print("DIFF", p)
    print(f"{decisions} steps compared, {len(problems)} differences")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
