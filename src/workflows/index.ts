// Workflow entry point: every workflow type the scheduler worker registers is exported here.
export { scheduleWorkflow } from './schedule.js';
