export { createDeliverer, type Deliverer, type DelivererOptions, type DeliveryOutcome } from './deliverer.js';
export { createEmailSender, type EmailSender } from './email.js';
export { postOnce } from './http-post.js';
export type { IncidentSnapshot, Notice, Page } from './page.js';
export * from './action-links.js';
