// bench/args.ts, the one flag reader of the bench scripts: defaults, typed values, lists and choices.
import { describe, expect, it } from 'vitest';
import { benchArgs, decimal, integer, integers, names, oneOf, text, toggle } from '../../bench/args.js';

const flags = {
  schedules: integer(1000, 'schedules'),
  lead: decimal(undefined, 'seconds'),
  k: integers([3, 6], 'in flight'),
  kinds: names('kinds'),
  side: oneOf(['both', 'ours', 'temporal'], 'both', 'side'),
  jitter: text('jitter'),
  idle: toggle('idle'),
};

describe('bench flags', () => {
  it('defaults when nothing is given', () => {
    expect(benchArgs('bench', flags, [])).toEqual({
      schedules: 1000,
      lead: undefined,
      k: [3, 6],
      kinds: undefined,
      side: 'both',
      jitter: undefined,
      idle: false,
    });
  });

  it('reads every kind of value', () => {
    const argv = '--schedules 5 --lead 1.5 --k 1,2,4 --kinds a,b --side ours --jitter PT30S --idle'.split(
      ' ',
    );
    expect(benchArgs('bench', flags, argv)).toEqual({
      schedules: 5,
      lead: 1.5,
      k: [1, 2, 4],
      kinds: ['a', 'b'],
      side: 'ours',
      jitter: 'PT30S',
      idle: true,
    });
  });
});
