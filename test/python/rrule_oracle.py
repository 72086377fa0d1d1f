#!/usr/bin/env python3
"""Reference oracle for the calendar engine's differential tests.

Reads a JSON array of cases on stdin:
  {"id": str, "tz": IANA zone, "dtstart": "YYYY-MM-DDTHH:MM:SS" (wall clock in tz),
   "rule": RRULE body, "after": ISO instant with Z, "count": int}
or, for a recurrence set, the same with "block": an RFC 5545 block (DTSTART, RRULE, EXRULE,
RDATE, EXDATE lines; its DTSTART is the case's), and writes a JSON object
{id: [UTC instants "YYYY-MM-DDTHH:MM:SSZ", ...] | {"error": str} | {"inconclusive": str}}.

Semantics: python-dateutil's rrule expands in wall-clock time with a zone-aware DTSTART
(zoneinfo). A wall time in a DST gap (fold=0) converts with the offset before the gap, an
ambiguous one (fold=0) to the first instant: RFC 5545 §3.3.5, the calendar's default policy.
Occurrences are converted to UTC, de-duplicated, sorted, and the first `count` strictly after
`after` are returned.

A block becomes a dateutil rruleset (each RRULE and EXRULE an rrule with the case's DTSTART, its
own COUNT). dateutil's rrulestr refuses RDATE;TZID= and VALUE=PERIOD, so the lines are read here:
a value takes its TZID's zone (none: the case's zone; Z: UTC), a PERIOD its start. The set then
excludes what datetime == says equal, which is not quite the engine's rule where DST is involved:
Python compares datetimes of one zone by wall time and of two zones by instant, but never equal
when either is in a gap or fold (PEP 495). The engine removes an EXDATE by instant and an EXRULE
occurrence by wall time in the rule's zone. A case where the two rules judge a pair differently
is answered {"inconclusive": why}.
"""
import json
import signal
import sys
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from dateutil.rrule import rrulestr, rruleset


def utc_iso(dt):
    return dt.astimezone(timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def first_after(gen, tz, after, count):
    """The first `count` UTC instants of `gen` strictly after `after`, and the last value looked at
    (None when `gen` ran out)."""
    # start two days (wall clock) before `after` to catch every slot that lands after it
    after_wall = after.astimezone(tz).replace(tzinfo=None) - timedelta(days=2)
    start = after_wall.replace(tzinfo=tz)
    found = set()
    horizon = None
    for dt in gen.xafter(start, count=None, inc=True):
        inst = dt.astimezone(timezone.utc)
        if inst > after:
            found.add(inst)
        if len(found) >= count:
            kth = sorted(found)[count - 1]
            if horizon is None or kth < horizon:
                horizon = kth
            # later wall times resolve at most a day before their naive reading
            if dt.astimezone(tz).replace(tzinfo=None) - timedelta(days=1) > horizon.astimezone(tz).replace(
                tzinfo=None
            ):
                return sorted(found)[:count], start, dt
    return sorted(found)[:count], start, None


def run_case(case):
    tz = ZoneInfo(case['tz'])
    dtstart = datetime.fromisoformat(case['dtstart']).replace(tzinfo=tz)
    after = datetime.fromisoformat(case['after'].replace('Z', '+00:00'))
    if 'block' in case:
        return run_set_case(case, tz, dtstart, after)
    rule = rrulestr(case['rule'], dtstart=dtstart)
    found, _, _ = first_after(rule, tz, after, case['count'])
    return [utc_iso(x) for x in found]


def ics_value(text, tzid, value_type):
    """One RDATE/EXDATE value as an aware datetime: a PERIOD gives its start."""
    if value_type == 'PERIOD':
        text = text.split('/', 1)[0]
    if text.upper().endswith('Z'):
        return datetime.strptime(text[:-1], '%Y%m%dT%H%M%S').replace(tzinfo=timezone.utc)
    return datetime.strptime(text, '%Y%m%dT%H%M%S').replace(tzinfo=ZoneInfo(tzid))


def read_block(text, tz_name, dtstart):
    parts = {'RRULE': [], 'EXRULE': [], 'RDATE': [], 'EXDATE': []}
    for line in text.splitlines():
        head, value = line.split(':', 1)
        name, *params = head.split(';')
        params = dict(p.split('=', 1) for p in params)
        if name == 'DTSTART':
            continue  # the case's dtstart, the same value
        if name in ('RRULE', 'EXRULE'):
            parts[name].append(rrulestr(value, dtstart=dtstart))
        else:
            for v in value.split(','):
                parts[name].append(ics_value(v, params.get('TZID', tz_name), params.get('VALUE')))
    return parts


def disagreement(parts, tz, lo, hi):
    """A pair (member, exclusion) within [lo, hi] that datetime == judges unlike the engine."""
    members = [d for r in parts['RRULE'] for d in r.between(lo, hi, inc=True)]
    members += [d for d in parts['RDATE'] if lo <= d <= hi]
    margin = timedelta(days=2)
    exrule_items = [d for r in parts['EXRULE'] for d in r.between(lo - margin, hi + margin, inc=True)]

    def wall(d):  # the engine's wall time in the rule's zone: nominal for the zone's own values
        return d.replace(tzinfo=None) if d.tzinfo is tz else d.astimezone(tz).replace(tzinfo=None)

    for o in members:
        ou = o.astimezone(timezone.utc)
        # EXDATE: the engine removes by instant; Python's == where they differ
        for x in parts['EXDATE']:
            if (x.astimezone(timezone.utc) == ou) != (x == o):
                return f'EXDATE {x.isoformat()} vs {o.isoformat()}: datetime == is not instant equality here'
        # EXRULE: the engine removes by wall time in the rule's zone
        for x in exrule_items:
            if (x.replace(tzinfo=None) == wall(o)) != (x == o):
                return f'EXRULE {x.isoformat()} vs {o.isoformat()}: datetime == is not wall equality here'
    return None


def run_set_case(case, tz, dtstart, after):
    parts = read_block(case['block'], case['tz'], dtstart)
    rs = rruleset()
    for r in parts['RRULE']:
        rs.rrule(r)
    for r in parts['EXRULE']:
        rs.exrule(r)
    for d in parts['RDATE']:
        rs.rdate(d)
    for d in parts['EXDATE']:
        rs.exdate(d)
    found, lo, last = first_after(rs, tz, after, case['count'])
    if last is None:
        # the set ran out: every member it had is in the past of the last rule's end
        ends = [r[-1] for r in parts['RRULE'] if r.count() > 0] + parts['RDATE']
        hi = max(ends, key=lambda d: d.astimezone(timezone.utc)) if ends else lo
    else:
        hi = last
    why = disagreement(parts, tz, lo, hi + timedelta(days=1))
    if why:
        return {'inconclusive': why}
    return [utc_iso(x) for x in found]


def main():
    cases = json.load(sys.stdin)
    out = {}
    budget = int(sys.argv[1]) if len(sys.argv) > 1 else 5

    def on_alarm(signum, frame):
        raise TimeoutError(f'dateutil took longer than {budget}s')

    signal.signal(signal.SIGALRM, on_alarm)
    for case in cases:
        signal.alarm(budget)
        try:
            out[case['id']] = run_case(case)
        except TimeoutError as e:
            out[case['id']] = {'timeout': str(e)}
        except Exception as e:  # reported, compared by the test
            out[case['id']] = {'error': f'{type(e).__name__}: {e}'}
        finally:
            signal.alarm(0)
    json.dump(out, sys.stdout)


if __name__ == '__main__':
    main()
