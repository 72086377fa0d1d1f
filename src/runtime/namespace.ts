import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { schedulerSearchAttributes } from '../workflows/search-attributes.js';

const GRPC_ALREADY_EXISTS = 6;
const GRPC_UNIMPLEMENTED = 12;

/**
 * Registers the product's custom search attributes in the namespace. Safe to repeat: attributes that
 * already exist are left alone; a clash with a different type is reported.
 */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  let custom: Record<string, number | null | undefined> = {};
  try {
    custom = (await connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
  } catch (err) {
    // The Java time-skipping test server can add search attributes but not list them.
    if ((err as { code?: number }).code !== GRPC_UNIMPLEMENTED) throw err;
  }
  const missing: Record<string, number> = {};
  for (const key of schedulerSearchAttributes) {
    const wanted = proto.temporal.api.enums.v1.IndexedValueType[`INDEXED_VALUE_TYPE_${key.type}`];
    const have = custom[key.name];
    if (have === undefined || have === null) missing[key.name] = wanted;
    else if (have !== wanted) {
      throw new Error(
        `search attribute ${key.name} exists in namespace ${namespace} with another type (${have}, want ${key.type}): remove it or use another namespace`,
      );
    }
  }
  if (Object.keys(missing).length === 0) return;
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
  } catch (err) {
    if ((err as { code?: number }).code !== GRPC_ALREADY_EXISTS) throw err;
  }
}
