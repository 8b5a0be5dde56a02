export * from './queues.js';
export * from './escalation.js';
export * from './job-slot.js';
