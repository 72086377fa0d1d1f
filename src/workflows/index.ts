// Workflow entry point: every workflow type the scheduler worker registers is exported here.

export { ownerRegistryWorkflow } from './owner-registry.js';
export { scheduleWorkflow, scheduleWorkflowV2 } from './schedule/workflow.js';
