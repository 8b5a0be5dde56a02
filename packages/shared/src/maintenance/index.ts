export * from './active-maintenance.js';
