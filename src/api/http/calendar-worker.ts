// A thread of the HTTP API's calendar pool (./calendar-pool.ts): runs one request's calendar searches under
// its time budget, or one reading of a text (POST /v1/interpret, which computes its readings' next runs with
// the calendar). Loaded by piscina; nothing else imports it.
import {
  type InterpretTask,
  type InterpretTaskOutcome,
  runInterpretTask,
  runSlotTask,
  type SlotTask,
  type SlotTaskOutcome,
} from '../slot-runner.js';

export default function calendarTask(task: SlotTask | InterpretTask): SlotTaskOutcome | InterpretTaskOutcome {
  return 'request' in task ? runInterpretTask(task) : runSlotTask(task);
}
