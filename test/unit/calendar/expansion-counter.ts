// The RRULE expander wrapped so that a test counts the occurrences every rule's expander yields: the work a
// search does, which a test can bound without timing it. Used from a `vi.mock` factory (hoisted above the
// test's imports), so this module imports nothing at run time.
import type * as RruleExpand from '../../../src/calendar/rrule-expand.js';

export interface ExpansionCount {
  yielded: number;
}

export function countingExpanders(real: typeof RruleExpand, count: ExpansionCount): typeof RruleExpand {
  return {
    ...real,
    makeExpander: (...args: Parameters<typeof real.makeExpander>) => {
      const expander = real.makeExpander(...args);
      return {
        *walls(from: number) {
          for (const wall of expander.walls(from)) {
            count.yielded++;
            yield wall;
          }
        },
      };
    },
  };
}
