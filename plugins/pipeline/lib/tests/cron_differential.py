#!/usr/bin/env python3
"""Differential test of pl_cron_next against Debian's python3-croniter.

Generates a few thousand cron expressions (lists, ranges, steps, names,
aliases, 7 = Sunday) with a fixed seed, in several time zones, from random
start instants and instants near DST transitions; runs them through the C
driver (argv[1]) and through croniter with pytz-aware datetimes, and
compares the next ticks.

Where we differ from croniter, on purpose:
 - Around DST transitions croniter does its calendar arithmetic in the UTC
   offset of the start instant and then applies a heuristic correction, so
   it can land an hour off (e.g. "0 3 * * *" from 01:30 EST on a
   spring-forward day gives 04:00 EDT), and it fires repeated wall-clock
   times twice where we fire them once (see cron_next.c). Cases whose
   interval from two hours before the start to either answer contains a
   UTC-offset transition are therefore not compared with croniter.
 - croniter 1.3.5 also skips ticks outside DST: from Feb 27 with
   day-of-month "*/5" (1,6,...,31) it jumps 4 days to Mar 2 and misses
   Mar 1, since it adds the distance to day 31 of a month that has none.
Both kinds are checked against a brute-force oracle instead (every
matching wall-clock minute, mapped with zoneinfo, under the rules of
cron_next.c): a DST-spanning case must agree with it, and a case where we
differ from croniter passes only if the oracle finds our answer. All other
cases must agree with croniter exactly.
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
INVALID = 300
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


def invalid_expression(rng):
    """An expression both croniter and we must reject."""
    fields = [field(rng, f) for f in range(5)]
    f = rng.randrange(5)
    kind = rng.randrange(5)
    if kind == 0:  # a value out of range
        bad = {0: [60, 99], 1: [24, 30], 2: [0, 32, 40], 3: [0, 13, 15], 4: [8, 9]}[f]
        fields[f] = str(rng.choice(bad))
    elif kind == 1 and f != 4:  # a backwards range
        lo, hi = FIELDS[f]
        a = rng.randint(lo + 1, hi)
        fields[f] = "%d-%d" % (a, rng.randint(lo, a - 1))
    elif kind == 2:
        fields[f] = "*/0"
    elif kind == 3:
        fields[3 + rng.randrange(2)] = rng.choice(["foo", "janu", "mo", "x-y"])
    else:
        fields = fields[:rng.choice([1, 2, 3, 4])]
    return " ".join(fields)


def croniter_rejects(expr):
    try:
        croniter(expr)
    except Exception:  # noqa: BLE001 - any rejection counts
        return True
    return False


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


def day_tick(sets, hour_all, z, day, start):
    """The first tick after start among the wall-clock minutes of one day."""
    dow_ok = sets[4] is None or day.isoweekday() % 7 in sets[4]
    dom_ok = sets[2] is None or day.day in sets[2]
    day_ok = (dom_ok or dow_ok) if sets[2] is not None and sets[4] is not None \
        else (dom_ok and dow_ok)
    if not ((sets[3] is None or day.month in sets[3]) and day_ok):
        return None
    best = None
    for hour in range(24):
        if sets[1] is not None and hour not in sets[1]:
            continue
        for minute in range(60):
            if sets[0] is not None and minute not in sets[0]:
                continue
            w = datetime.datetime(day.year, day.month, day.day, hour, minute)
            t0 = int(w.replace(tzinfo=z, fold=0).timestamp())
            t1 = int(w.replace(tzinfo=z, fold=1).timestamp())
            exists = datetime.datetime.fromtimestamp(t0, z).replace(tzinfo=None) == w
            cands = [t0]  # a skipped time: the pre-transition offset (fold=0)
            if exists and t1 != t0 and hour_all:
                cands.append(t1)  # repeated time, wildcard hour: both occurrences
            for c in cands:
                if c > start and (best is None or c < best):
                    best = c
    return best


def oracle(expr, zone, start, days):
    """Brute force: the first tick in (start, start + days], or None."""
    # croniter treats a list holding "*" ("*,5") as "every value"
    sets = [None if "*" in e else set(e) for e in croniter(expr).expanded]
    z = ZoneInfo(zone)
    day = datetime.datetime.fromtimestamp(start, z).date() - datetime.timedelta(days=2)
    last = day + datetime.timedelta(days=days + 4)
    best, found_on = None, None
    while day <= last and (found_on is None or day <= found_on + datetime.timedelta(days=1)):
        t = day_tick(sets, sets[1] is None, z, day, start)
        if t is not None and (best is None or t < best):
            best, found_on = t, found_on or day
        day += datetime.timedelta(days=1)
    return within(best, start, days)


def within(t, start, days):
    return t if t is not None and t - start <= days * 86400 else None


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
    invalid = [invalid_expression(rng) for _ in range(INVALID)]
    feed = "".join("%s\t%s\t%d\n" % c for c in cases)
    feed += "".join("%s\tUTC\t0\n" % e for e in invalid)
    out = subprocess.run([driver], input=feed, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert len(out) == len(cases) + len(invalid), "driver printed %d lines for %d cases" % (
        len(out), len(cases) + len(invalid))
    mismatches = []
    for expr, got in zip(invalid, out[len(cases):]):
        if not got.startswith("error: ") or not croniter_rejects(expr):
            mismatches.append("%r: we say %s, croniter %s" % (
                expr, got, "rejects it" if croniter_rejects(expr) else "accepts it"))
    compared, dst_cases, croniter_wrong = 0, 0, []
    horizon = 5 * 366 * 86400
    for (expr, zone, start), got in zip(cases, out[:len(cases)]):
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
            want = oracle(expr, zone, start, 6)
            if within(mine, start, 6) != want:
                mismatches.append("%r %s start %d: got %s, oracle %s (croniter %s)"
                                  % (expr, zone, start, mine, want, theirs))
            continue
        compared += 1
        if mine == theirs:
            continue
        days = min(400, ((mine or end) - start) // 86400 + 2)
        if mine is not None and oracle(expr, zone, start, days) == mine:
            croniter_wrong.append("%r %s start %d: croniter %s, we and the oracle %s"
                                  % (expr, zone, start, theirs, mine))
            continue
        mismatches.append("%r %s start %d: got %s, croniter %s"
                          % (expr, zone, start, mine, theirs))
    print("%d invalid expressions rejected by both" % (len(invalid) - sum(
        1 for m in mismatches if "croniter" in m and ": we say" in m)))
    print("%d cases: %d compared with croniter (%d where croniter is wrong, per the "
          "oracle), %d spanning a UTC-offset change checked by the oracle"
          % (len(cases), compared, len(croniter_wrong), dst_cases))
    for m in croniter_wrong[:5]:
        print("croniter wrong:", m)
    for m in mismatches[:20]:
        print("MISMATCH", m)
    if mismatches:
        print("%d mismatches" % len(mismatches))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
