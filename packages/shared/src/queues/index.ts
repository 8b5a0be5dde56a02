export * from './queues.js';
export * from './escalation.js';
