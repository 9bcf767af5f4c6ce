#!/usr/bin/env python3
"""Differential test of pl_cron_next against Debian's python3-croniter.

Generates a few thousand cron expressions (lists, ranges, steps, names,
aliases, 7 = Sunday) with a fixed seed, in several time zones, from random
start instants and instants near DST transitions; runs them through the C
driver (argv[1]) and through croniter with pytz-aware datetimes, and
compares the next ticks.

Where we differ from croniter, on purpose: croniter does its calendar
arithmetic in the UTC offset of the start instant and then applies a
heuristic correction, so around a DST transition it can land an hour off
(e.g. "0 3 * * *" from 01:30 EST on a spring-forward day gives 04:00 EDT).
Cases whose interval from two hours before the start to either answer
contains a UTC-offset transition are therefore not compared with croniter; they are checked
against a brute-force oracle instead (every matching wall-clock minute,
mapped with zoneinfo, under the rules documented in cron_next.c), when the
tick is within a few days. Everything else must agree exactly.
"""
import datetime
import random
import subprocess
import sys
from zoneinfo import ZoneInfo

import pytz
from croniter import croniter

SEED = 20261129
CASES = 3000
ZONES = ["UTC", "Asia/Shanghai", "America/New_York", "Europe/London",
         "Australia/Lord_Howe", "America/Sao_Paulo", "Asia/Kolkata", "Pacific/Chatham"]
UTC = datetime.timezone.utc
FIELDS = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]
MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
ALIASES = ["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]


def value(rng, f, lo, hi):
    v = rng.randint(lo, hi)
    if f == 3 and rng.random() < 0.3:
        return MONTHS[v - 1].upper() if rng.random() < 0.5 else MONTHS[v - 1]
    if f == 4 and v < 7 and rng.random() < 0.3:
        return DAYS[v].capitalize()
    return str(v)


def item(rng, f):
    lo, hi = FIELDS[f]
    r = rng.random()
    if r < 0.25:
        return "*" if rng.random() < 0.5 else "*/%d" % rng.randint(1, max(2, hi // 2))
    if r < 0.6:
        return value(rng, f, lo, hi)
    a = rng.randint(lo, hi - 1)
    b = rng.randint(a + 1, hi)
    text = "%s-%s" % (value(rng, f, a, a), value(rng, f, b, b))
    if rng.random() < 0.4:
        text += "/%d" % rng.randint(1, max(1, (b - a)))
    return text


def field(rng, f):
    if rng.random() < [0.3, 0.3, 0.55, 0.65, 0.55][f]:
        return "*"
    return ",".join(item(rng, f) for _ in range(rng.choice([1, 1, 1, 2, 3])))


def expression(rng):
    if rng.random() < 0.03:
        return rng.choice(ALIASES)
    return " ".join(field(rng, f) for f in range(5))


def transitions(zone, y0=1998, y1=2036):
    """Instants where the zone's UTC offset changes, by daily scan + bisection."""
    z = ZoneInfo(zone)
    off = lambda t: datetime.datetime.fromtimestamp(t, z).utcoffset()
    t = int(datetime.datetime(y0, 1, 1, tzinfo=UTC).timestamp())
    end = int(datetime.datetime(y1, 1, 1, tzinfo=UTC).timestamp())
    out = []
    while t < end:
        if off(t) != off(t + 86400):
            lo, hi = t, t + 86400
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if off(mid) == off(lo) else (lo, mid)
            out.append(hi)
        t += 86400
    return out


def croniter_next(expr, zone, start):
    tz = pytz.timezone(zone)
    s = tz.normalize(datetime.datetime.fromtimestamp(start, UTC).astimezone(tz))
    try:
        return int(croniter(expr, s).get_next(float))
    except Exception:  # noqa: BLE001 - "no tick" in croniter's 50-year search
        return None


def oracle(expr, zone, start, days=6):
    """Brute force: every wall-clock minute from 2 days before the start."""
    exp = croniter(expr).expanded
    # croniter treats a list holding "*" ("*,5") as "every value"
    sets = [None if "*" in e else set(e) for e in exp]
    hour_all = sets[1] is None
    z = ZoneInfo(zone)
    w = datetime.datetime.fromtimestamp(start - 2 * 86400, z).replace(tzinfo=None, second=0)
    stop = w + datetime.timedelta(days=days + 2)
    best = None
    while w < stop:
        dow = w.isoweekday() % 7
        dom_ok = sets[2] is None or w.day in sets[2]
        dow_ok = sets[4] is None or dow in sets[4]
        day_ok = (dom_ok or dow_ok) if sets[2] is not None and sets[4] is not None \
            else (dom_ok and dow_ok)
        if not ((sets[3] is None or w.month in sets[3]) and day_ok):
            w = (w + datetime.timedelta(days=1)).replace(hour=0, minute=0)
            continue
        if (sets[1] is None or w.hour in sets[1]) and (sets[0] is None or w.minute in sets[0]):
            t0 = int(w.replace(tzinfo=z, fold=0).timestamp())
            t1 = int(w.replace(tzinfo=z, fold=1).timestamp())
            exists = datetime.datetime.fromtimestamp(t0, z).replace(tzinfo=None) == w
            cands = [t0]
            if exists and t1 != t0 and hour_all:
                cands.append(t1)  # repeated time, wildcard hour: both occurrences
            for c in cands:
                if c > start and (best is None or c < best):
                    best = c
        w += datetime.timedelta(minutes=1)
    if best is not None and best - start > days * 86400:
        return "far"
    return best


def main():
    driver = sys.argv[1]
    rng = random.Random(SEED)
    edges = {z: transitions(z) for z in ZONES}
    lo = int(datetime.datetime(1999, 1, 1, tzinfo=UTC).timestamp())
    hi = int(datetime.datetime(2035, 1, 1, tzinfo=UTC).timestamp())
    cases = []
    for i in range(CASES):
        zone = rng.choice(ZONES)
        if edges[zone] and rng.random() < 0.4:
            start = rng.choice(edges[zone]) + rng.randint(-4 * 3600, 4 * 3600)
        else:
            start = rng.randint(lo, hi)
        if rng.random() < 0.3:
            start -= start % 60
        cases.append((expression(rng), zone, start))
    feed = "".join("%s\t%s\t%d\n" % c for c in cases)
    out = subprocess.run([driver], input=feed, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert len(out) == len(cases), "driver printed %d lines for %d cases" % (len(out), len(cases))
    mismatches, compared, dst_cases, dst_checked, dst_agree = [], 0, 0, 0, 0
    horizon = 5 * 366 * 86400
    for (expr, zone, start), got in zip(cases, out):
        if got.startswith("error"):
            mismatches.append("%r %s %d: driver %s" % (expr, zone, start, got))
            continue
        mine = None if got == "none" else int(got)
        theirs = croniter_next(expr, zone, start)
        if theirs is not None and theirs - start > horizon:
            theirs = None  # beyond our 5-year horizon: we answer "none"
        end = max(x for x in (mine, theirs, start) if x is not None)
        # A start inside a repeated hour counts too: we do not fire a
        # restricted-hour time a second time, croniter may.
        if any(start - 7200 < t <= end for t in edges[zone]):
            dst_cases += 1
            dst_agree += mine == theirs
            want = oracle(expr, zone, start)
            if want == "far" or (want is None and (mine is None or mine - start > 6 * 86400)):
                continue
            dst_checked += 1
            if mine != want:
                mismatches.append("%r %s start %d: got %s, oracle %s (croniter %s)"
                                  % (expr, zone, start, mine, want, theirs))
            continue
        compared += 1
        if mine != theirs:
            mismatches.append("%r %s start %d: got %s, croniter %s"
                              % (expr, zone, start, mine, theirs))
    print("%d cases: %d compared with croniter, %d span a UTC-offset change "
          "(%d checked by the oracle, croniter agrees on %d)"
          % (len(cases), compared, dst_cases, dst_checked, dst_agree))
    for m in mismatches[:20]:
        print("MISMATCH", m)
    if mismatches:
        print("%d mismatches" % len(mismatches))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
