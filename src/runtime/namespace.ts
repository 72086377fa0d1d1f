import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { schedulerSearchAttributes } from '../workflows/search-attributes.js';

const GRPC_ALREADY_EXISTS = 6;
const GRPC_PERMISSION_DENIED = 7;
const GRPC_UNIMPLEMENTED = 12;

/**
 * What the start does about the product's search attributes (SCHEDULER_SEARCH_ATTRIBUTES): `register` adds
 * the missing ones, and where that is refused (Temporal Cloud, a namespace-scoped identity) checks that they
 * exist; `check` only checks; `skip` does neither (an operator who manages them elsewhere).
 */
export type SearchAttributeMode = 'register' | 'check' | 'skip';

/** Search attributes missing (or of another type) where the start may not create them: what to run. */
export class SearchAttributesMissingError extends Error {
  override name = 'SearchAttributesMissingError';
  constructor(
    readonly namespace: string,
    readonly missing: ReadonlyArray<{ name: string; type: string }>,
    why: string,
  ) {
    const typeName = (t: string) =>
      ({
        KEYWORD: 'Keyword',
        DATETIME: 'Datetime',
        KEYWORD_LIST: 'KeywordList',
        INT: 'Int',
        BOOL: 'Bool',
        DOUBLE: 'Double',
        TEXT: 'Text',
      })[t] ?? t;
    super(
      [
        `${missing.length} search attribute(s) of the scheduler are missing in namespace ${namespace} (${why}): ${missing.map((m) => `${m.name} (${typeName(m.type)})`).join(', ')}. Create them, then start again:`,
        ...missing.map(
          (m) =>
            `  temporal operator search-attribute create --namespace ${namespace} --name ${m.name} --type ${typeName(m.type)}`,
        ),
        '  on Temporal Cloud:',
        `  tcld namespace search-attributes add --namespace ${namespace} ${missing.map((m) => `--sa '${m.name}=${typeName(m.type)}'`).join(' ')}`,
      ].join('\n'),
    );
  }
}

/**
 * Makes sure the product's custom search attributes exist in the namespace. Safe to repeat: attributes that
 * already exist are left alone; a clash with a different type is reported. Where the identity may not add
 * them (PermissionDenied), or `mode` is `check`, it only checks, and throws SearchAttributesMissingError
 * naming each missing one and the command that creates it.
 */
export async function registerSearchAttributes(
  connection: Connection,
  namespace: string,
  mode: SearchAttributeMode = 'register',
): Promise<void> {
  if (mode === 'skip') return;
  let custom: Record<string, number | null | undefined> = {};
  let listed = true;
  try {
    custom = (await connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
  } catch (err) {
    const code = (err as { code?: number }).code;
    if (code === GRPC_PERMISSION_DENIED)
      throw new Error(
        `this identity may not list the search attributes of namespace ${namespace} (PermissionDenied): create the scheduler's (docs/operations.md, "Search attributes") and set SCHEDULER_SEARCH_ATTRIBUTES=skip`,
      );
    // The Java time-skipping test server can add search attributes but not list them.
    if (code !== GRPC_UNIMPLEMENTED) throw err;
    listed = false;
  }
  const missing: Record<string, number> = {};
  const missingKeys: Array<{ name: string; type: string }> = [];
  for (const key of schedulerSearchAttributes) {
    const wanted = proto.temporal.api.enums.v1.IndexedValueType[`INDEXED_VALUE_TYPE_${key.type}`];
    const have = custom[key.name];
    if (have === undefined || have === null) {
      missing[key.name] = wanted;
      missingKeys.push({ name: key.name, type: key.type });
    } else if (have !== wanted) {
      throw new Error(
        `search attribute ${key.name} exists in namespace ${namespace} with another type (${have}, want ${key.type}): remove it or use another namespace`,
      );
    }
  }
  if (missingKeys.length === 0) return;
  if (mode === 'check' && listed)
    throw new SearchAttributesMissingError(namespace, missingKeys, 'SCHEDULER_SEARCH_ATTRIBUTES=check');
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
  } catch (err) {
    const code = (err as { code?: number }).code;
    if (code === GRPC_ALREADY_EXISTS) return;
    if (code === GRPC_PERMISSION_DENIED && listed)
      throw new SearchAttributesMissingError(namespace, missingKeys, 'this identity may not create them');
    throw err;
  }
}
