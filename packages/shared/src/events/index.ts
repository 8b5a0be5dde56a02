export * from './types.js';
export * from './cursor.js';
export * from './record-event.js';
export * from './read-events.js';
export * from './maintenance-events.js';
