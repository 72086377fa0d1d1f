// A list cursor is the server's page token, signed with the cursor secret over the listing it came from
// (tenant and filters): `base64url(tag ‖ token)`, the tag being the first 16 bytes of
// HMAC-SHA-256(secret, query ‖ NUL ‖ token). A cursor of another listing, a tampered one or one signed
// with another secret is refused here, before Temporal sees it: without the key nobody can make a token
// that Temporal would choke on (INVALID_ARGUMENT, which used to be a 500 and an error log line).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SchedulerError } from '../errors.js';

const CURSOR_TAG_BYTES = 16;
/** Used when no cursor secret is configured: cursors of this process only. */
export const PROCESS_CURSOR_SECRET = randomBytes(32);
const CURSOR_REFUSED =
  'not a cursor of this listing (tampered, from other filters, or signed by another API process or before a restart): list again from the start, without a cursor';

const cursorTag = (secret: string | Buffer, query: string, token: Uint8Array): Buffer =>
  createHmac('sha256', secret)
    .update(query)
    .update('\0')
    .update(token)
    .digest()
    .subarray(0, CURSOR_TAG_BYTES);

export const cursorRefused = () => new SchedulerError('VALIDATION', CURSOR_REFUSED, 'cursor');

export function encodeCursor(secret: string | Buffer, token: Uint8Array, query: string): string {
  return Buffer.concat([cursorTag(secret, query, token), token]).toString('base64url');
}

export function decodeCursor(secret: string | Buffer, cursor: string, query: string): Uint8Array {
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length <= CURSOR_TAG_BYTES) throw cursorRefused();
  const token = bytes.subarray(CURSOR_TAG_BYTES);
  if (!timingSafeEqual(bytes.subarray(0, CURSOR_TAG_BYTES), cursorTag(secret, query, token))) {
    throw cursorRefused();
  }
  return token;
}
