import { describe, expect, it } from 'vitest';
import { developmentApiKey, parseApiKeys } from '../../src/api/auth.js';
import { tempDir } from '../helpers/servers.js';

describe('SCHEDULER_API_KEYS', () => {
  it('maps each key to its tenant and owner', () => {
    const keys = parseApiKeys('k-0123456789abcdef=acme:ops, k-fedcba9876543210=globex:billing');
    expect(keys.get('k-0123456789abcdef')).toEqual({ tenant_id: 'acme', owner_ref: 'ops' });
    expect(keys.get('k-fedcba9876543210')).toEqual({ tenant_id: 'globex', owner_ref: 'billing' });
  });

  it('names the malformed entry', () => {
    expect(() => parseApiKeys('k-0123456789abcdef=acme:ops,short=acme:ops')).toThrow(/entry 2 is not/);
    expect(() => parseApiKeys('k-0123456789abcdef=acme')).toThrow(/entry 1 is not/);
    expect(() => parseApiKeys(' , ')).toThrow(/no entries/);
  });

  it('keeps the development key across restarts', () => {
    const dir = tempDir('keys');
    const first = developmentApiKey(dir);
    expect(developmentApiKey(dir)).toEqual(first);
    expect(parseApiKeys(first.spec).get(first.key)).toEqual({ tenant_id: 'dev', owner_ref: 'developer' });
  });
});
