// The model layer: contracts shared by every layer above the calendar (workflows, activities, api, cli).
export * from './contracts.js';
export * from './http.js';
export * from './ids.js';
export * from './slots.js';
