#!/usr/bin/env python3
"""Differential test of the TZif reader against Python's zoneinfo.

For every zone Python knows (the same system tzdata), the C driver
(argv[1]) gives the UTC offset at instants from 1900 to 2100: random
ones, plus ones just before and after every transition zoneinfo shows in
1970-2060 and hours either side of the table's end, where the footer's
POSIX rule takes over. Every offset must agree.
"""
import datetime
import random
import subprocess
import sys
import zoneinfo

UTC = datetime.timezone.utc


def offset(z, t):
    return int(datetime.datetime.fromtimestamp(t, z).utcoffset().total_seconds())


def transitions(z, y0, y1):
    t = int(datetime.datetime(y0, 1, 1, tzinfo=UTC).timestamp())
    end = int(datetime.datetime(y1, 1, 1, tzinfo=UTC).timestamp())
    step = 7 * 86400
    while t < end:
        if offset(z, t) != offset(z, t + step):
            lo, hi = t, t + step
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if offset(z, mid) == offset(z, lo) else (lo, mid)
            yield hi
        t += step


def main():
    driver = sys.argv[1]
    rng = random.Random(7)
    zones = sorted(n for n in zoneinfo.available_timezones()
                   if not n.startswith(("right/", "posix/")) and n not in ("Factory", "localtime"))
    lo = int(datetime.datetime(1900, 1, 1, tzinfo=UTC).timestamp())
    hi = int(datetime.datetime(2100, 1, 1, tzinfo=UTC).timestamp())
    cases = []
    for name in zones:
        z = zoneinfo.ZoneInfo(name)
        instants = [rng.randint(lo, hi) for _ in range(40)]
        edges = list(transitions(z, 1970, 2060)) if rng.random() < 0.25 else []
        for t in edges:
            instants += [t - 1, t]
        for t in instants:
            cases.append((name, t, offset(z, t)))
    feed = "".join("=offset\t%s\t%d\n" % (n, t) for n, t, _ in cases)
    out = subprocess.run([driver], input=feed, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert len(out) == len(cases), "driver printed %d lines for %d" % (len(out), len(cases))
    bad = [(n, t, want, got) for (n, t, want), got in zip(cases, out) if got != str(want)]
    print("%d zones, %d instants compared with zoneinfo" % (len(zones), len(cases)))
    for n, t, want, got in bad[:20]:
        print("MISMATCH %s at %d (%s UTC): got %s, zoneinfo %d"
              % (n, t, datetime.datetime.fromtimestamp(t, UTC).isoformat(), got, want))
    if bad:
        print("%d mismatches" % len(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
