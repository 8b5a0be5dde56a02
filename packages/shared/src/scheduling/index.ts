export * from './check-scheduler.js';
export * from './enabled-monitors.js';
