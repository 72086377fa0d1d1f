// The one place workflow code reads the time. Inside Temporal's workflow sandbox `Date` is the workflow
// clock: the start time of the current workflow task as recorded in history, the same on every replay.
// Code that needs "now" calls these, so a reader (and a grep for Date.now) finds that it is workflow time.
export function workflowNow(): number {
  return Date.now();
}

export function workflowNowIso(): string {
  return new Date(workflowNow()).toISOString();
}
