// Workflow entry point: every workflow type the scheduler worker registers is exported here.
export { scheduleWorkflow } from './schedule.js';
export { ownerRegistryWorkflow } from './owner-registry.js';
