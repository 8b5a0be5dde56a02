export * from './queues.js';
export * from './escalation.js';
export * from './job-slot.js';
export * from './delivery-queue.js';
