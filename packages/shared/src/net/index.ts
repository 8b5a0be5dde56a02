export * from './reason-for-error.js';
