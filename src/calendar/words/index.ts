// Words ⇄ timings (docs/words.md): `readSchedule` reads English or Russian into structured timings,
// `explainSpec` says a timing in English. Pure functions over values: `now` and the zone are inputs.

export { explainSpec } from './explain.js';
export type { ReadInput, Reading, ReadOutcome, RegionLookup, WordsLanguage } from './read.js';
export { readSchedule } from './read.js';
