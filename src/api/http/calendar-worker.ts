// A thread of the HTTP API's calendar pool (./calendar-pool.ts): runs one request's calendar searches under
// its time budget. Loaded by piscina; nothing else imports it.
import { runSlotTask, type SlotTask, type SlotTaskOutcome } from '../slot-runner.js';

export default function calendarTask(task: SlotTask): SlotTaskOutcome {
  return runSlotTask(task);
}
