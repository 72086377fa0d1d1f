import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** Who a caller is: every schedule belongs to one tenant and one owner. */
export const PrincipalSchema = z.object({
  tenant_id: z.string().min(1).max(128),
  owner_ref: z.string().min(1).max(256),
});
export type Principal = z.infer<typeof PrincipalSchema>;

export class ApiKeyConfigError extends Error {
  override name = 'ApiKeyConfigError';
}

/** Parses SCHEDULER_API_KEYS: comma-separated `key=tenant_id:owner_ref`. */
export function parseApiKeys(spec: string): Map<string, Principal> {
  const keys = new Map<string, Principal>();
  for (const [index, raw] of spec.split(',').entries()) {
    const entry = raw.trim();
    if (!entry) continue;
    const match = /^([^=\s]{16,})=([^:\s]+):(\S+)$/.exec(entry);
    if (!match) {
      throw new ApiKeyConfigError(
        `SCHEDULER_API_KEYS entry ${index + 1} is not 'key=tenant_id:owner_ref' with a key of at least 16 characters`,
      );
    }
    keys.set(match[1]!, PrincipalSchema.parse({ tenant_id: match[2], owner_ref: match[3] }));
  }
  if (keys.size === 0) throw new ApiKeyConfigError('SCHEDULER_API_KEYS has no entries');
  return keys;
}

/**
 * Development key for `npm start` without SCHEDULER_API_KEYS: made once and kept in the data directory,
 * so it stays the same across restarts (scripts and bookmarks keep working).
 */
export function developmentApiKey(dataDir: string): { spec: string; key: string } {
  const file = join(dataDir, 'dev-api-key');
  let key: string;
  if (existsSync(file)) key = readFileSync(file, 'utf8').trim();
  else {
    key = `dev_${randomBytes(18).toString('base64url')}`;
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${key}\n`, { mode: 0o600 });
  }
  return { key, spec: `${key}=dev:developer` };
}
