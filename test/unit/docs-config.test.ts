// docs/configuration.md is generated from the environment schema (scripts/docs-config.ts, `npm run
// docs:config`): a variable added without a `.describe()`, a changed default or range, or a hand edit of the
// generated table fails here until the page is made again.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_PAGE, configurationPage, HAND_WRITTEN } from '../../scripts/docs-config.js';
import { EnvironmentSchema } from '../../src/config.js';

const committed = readFileSync(CONFIGURATION_PAGE, 'utf8');

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` makes from src/config.ts (run it and commit the page)', () => {
    expect(committed).toBe(configurationPage(committed));
  });

  it('documents every variable of the schema, each with a description of its own', () => {
    for (const [name, schema] of Object.entries(EnvironmentSchema.shape)) {
      expect(schema.description, `${name}: add .describe() in src/config.ts`).toMatch(/\S/);
      expect(committed, name).toContain(`| \`${name}\` |`);
    }
  });

  it('keeps a hand-written part for the variables others read, below the generated table', () => {
    const at = committed.indexOf(HAND_WRITTEN);
    expect(at).toBeGreaterThan(committed.indexOf('| --- | --- | --- | --- |'));
    expect(committed.slice(at)).toContain('`TEMPORAL_CONFIG_FILE`');
  });
});
