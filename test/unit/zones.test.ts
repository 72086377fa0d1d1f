import { describe, expect, it } from 'vitest';
import { oldestTzVersion, tzOlderThan, tzVersionsOf, zonesOf } from '../../src/model/zones.js';

describe('zonesOf: the zones a definition follows the rules of', () => {
  it("the timing's, the options', the window's and each TZID of a recurrence, sorted, without UTC", () => {
    expect(
      zonesOf({
        timing: {
          kind: 'RECURRENCE',
          rule: 'DTSTART;TZID=America/New_York:20270101T090000\nRRULE:FREQ=DAILY\nEXDATE;TZID=Asia/Tokyo:20270105T230000',
          timezone: 'Europe/Riga',
        },
        timezone: 'Europe/Riga',
        window: { timezone: 'Europe/Paris' },
      }),
    ).toEqual(['America/New_York', 'Asia/Tokyo', 'Europe/Paris', 'Europe/Riga']);
  });

  it('an interval or a cron in UTC depends on no zone', () => {
    expect(zonesOf({ timing: { kind: 'INTERVAL' } })).toEqual([]);
    expect(zonesOf({ timing: { kind: 'CRON', timezone: 'UTC' } })).toEqual([]);
    expect(zonesOf({ timing: { kind: 'CRON', timezone: 'Etc/UTC' }, timezone: 'Europe/Riga' })).toEqual([
      'Europe/Riga',
    ]);
  });
});

describe('tz releases', () => {
  it('sort by name; a slot recorded before 0.6 (no release) is older than any', () => {
    expect(tzVersionsOf([{ tz: '2025c' }, {}, { tz: '2024a' }, { tz: '2025c' }])).toEqual([
      'unknown',
      '2024a',
      '2025c',
    ]);
    expect(oldestTzVersion([{ tz: '2025c' }, { tz: '2025b' }])).toBe('2025b');
    expect(oldestTzVersion([])).toBeNull();
    expect(tzOlderThan('2025b', '2025c')).toBe(true);
    expect(tzOlderThan('2025c', '2025c')).toBe(false);
    expect(tzOlderThan('2026a', '2025c')).toBe(false);
    expect(tzOlderThan('unknown', '2000a')).toBe(true);
  });
});
