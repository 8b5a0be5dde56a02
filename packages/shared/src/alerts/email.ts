import nodemailer from 'nodemailer';
import type { Attempt } from './retry.js';

export interface EmailSender {
  send(message: {
    /** One address, or several separated by commas (one mail to all of them). */
    to: string;
    subject: string;
    text: string;
    headers?: Record<string, string>;
    attachments?: Array<{ filename: string; content: string; contentType: string }>;
  }): Promise<Attempt>;
  close(): void;
}

/** SMTP errors: 4xx replies and connection trouble may pass later; a 5xx reply will not. */
function attemptFromError(err: unknown): Attempt {
  const e = (err ?? {}) as { responseCode?: unknown; code?: unknown };
  if (typeof e.responseCode === 'number')
    return { ok: false, reason: `smtp_${e.responseCode}`, retryable: e.responseCode < 500 };
  const code = typeof e.code === 'string' ? e.code.toLowerCase() : 'error';
  return { ok: false, reason: `smtp_${code}`, retryable: code !== 'eenvelope' };
}

/** One nodemailer transport per worker, over SMTP_URL (credentials and TLS settings live in the URL). */
export function createEmailSender(smtp: { url: string; from: string }, timeoutMs = 10_000): EmailSender {
  // Options given in the URL's query win over these defaults; the timeouts bound a stuck server.
  const transport = nodemailer.createTransport({
    url: smtp.url,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  return {
    async send(message) {
      try {
        await transport.sendMail({
          from: smtp.from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          ...(message.headers ? { headers: message.headers } : {}),
          ...(message.attachments ? { attachments: message.attachments } : {}),
        });
        return { ok: true };
      } catch (err) {
        return attemptFromError(err);
      }
    },
    close() {
      transport.close();
    },
  };
}
