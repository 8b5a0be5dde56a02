export * from './check-scheduler.js';
export * from './enabled-monitors.js';
export * from './escalation-scheduler.js';
