#!/usr/bin/env python3
"""Reference oracle for the calendar engine's differential tests.

Reads a JSON array of cases on stdin:
  {"id": str, "tz": IANA zone, "dtstart": "YYYY-MM-DDTHH:MM:SS" (wall clock in tz),
   "rule": RRULE body, "after": ISO instant with Z, "count": int}
and writes a JSON object {id: [UTC instants "YYYY-MM-DDTHH:MM:SSZ", ...] | {"error": str}}.

Semantics: python-dateutil's rrule expands in wall-clock time with a zone-aware DTSTART
(zoneinfo). A wall time in a DST gap (fold=0) converts with the offset before the gap, an
ambiguous one (fold=0) to the first instant: RFC 5545 §3.3.5, the calendar's default policy.
Occurrences are converted to UTC, de-duplicated, sorted, and the first `count` strictly after
`after` are returned.
"""
import json
import signal
import sys
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from dateutil.rrule import rrulestr


def utc_iso(dt):
    return dt.astimezone(timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def run_case(case):
    tz = ZoneInfo(case['tz'])
    dtstart = datetime.fromisoformat(case['dtstart']).replace(tzinfo=tz)
    after = datetime.fromisoformat(case['after'].replace('Z', '+00:00'))
    count = case['count']
    rule = rrulestr(case['rule'], dtstart=dtstart)
    # start two days (wall clock) before `after` to catch every slot that lands after it
    after_wall = after.astimezone(tz).replace(tzinfo=None) - timedelta(days=2)
    start = after_wall.replace(tzinfo=tz)
    found = set()
    horizon = None
    for dt in rule.xafter(start, count=None, inc=True):
        inst = dt.astimezone(timezone.utc)
        if inst > after:
            found.add(inst)
        if len(found) >= count:
            kth = sorted(found)[count - 1]
            if horizon is None or kth < horizon:
                horizon = kth
            # later wall times resolve at most a day before their naive reading
            if dt.replace(tzinfo=None) - timedelta(days=1) > horizon.astimezone(tz).replace(tzinfo=None):
                break
    return [utc_iso(x) for x in sorted(found)[:count]]


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
