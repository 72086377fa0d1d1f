// Slot batches are computed in an activity (a local one before 0.3) and recorded in the workflow's history rather than
// recomputed on replay: a tzdata update in Node or a fix in src/calendar then never makes a running
// schedule's replay diverge, and a wake costs no recomputation.
import { computeSlots, type SlotBatch, type SlotBatchRequest } from '../model/slots.js';

export async function computeSlotBatch(request: SlotBatchRequest): Promise<SlotBatch> {
  return computeSlots(request);
}
