export * from './resolve-oncall.js';
export * from './schedule-spec.js';
