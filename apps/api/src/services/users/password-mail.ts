import { createEmailSender, type Config, type EmailSender, type Logger } from '@statusvane/shared';
import { LINK_TTL_MS, passwordLinkPath, type PasswordLinkPurpose } from './password-links.js';

/** What sending a password link needs: SMTP settings (none: no mail), the base URL of links, and a logger. */
export interface MailDeps {
  config: Pick<Config, 'smtp' | 'publicBaseUrl'>;
  logger: Logger;
  /** A sender to use instead of one built from config.smtp. */
  mailer?: EmailSender | undefined;
}

const senders = new WeakMap<object, EmailSender>();

/** The deployment's mail sender, built on first use from SMTP_URL; null when no SMTP server is configured. */
function mailerOf(deps: MailDeps): EmailSender | null {
  if (deps.mailer) return deps.mailer;
  const smtp = deps.config.smtp;
  if (!smtp) return null;
  let sender = senders.get(smtp);
  if (!sender) senders.set(smtp, (sender = createEmailSender(smtp)));
  return sender;
}

/** Whether password links can be mailed at all (SMTP_URL set). */
export const canMail = (deps: MailDeps) => mailerOf(deps) !== null;

/** The mail of a link: plain text, the link alone on its line, how long it lasts, and what to do if unexpected. */
export function passwordLinkMail(input: {
  purpose: PasswordLinkPurpose;
  url: string;
  workspaceName?: string | undefined;
  invitedBy?: string | undefined;
}): { subject: string; text: string } {
  const hours = LINK_TTL_MS[input.purpose] / 3_600_000;
  if (input.purpose === 'invite') {
    const where = input.workspaceName ? ` to ${input.workspaceName}` : '';
    const who = input.invitedBy ? `${input.invitedBy} invited you` : 'You were invited';
    return {
      subject: `You are invited${where} on Statusvane`,
      text: [
        `${who}${where} on Statusvane.`,
        '',
        'Choose your password here (the link works once, for 48 hours):',
        input.url,
        '',
        'If you did not expect this, you can ignore this mail.',
      ].join('\n'),
    };
  }
  return {
    subject: 'Reset your Statusvane password',
    text: [
      'Someone (we hope you) asked to reset the password of this address on Statusvane.',
      '',
      `Choose a new password here (the link works once, for ${hours} hour${hours === 1 ? '' : 's'}):`,
      input.url,
      '',
      'If you did not ask, ignore this mail: your password stays as it is.',
    ].join('\n'),
  };
}

/**
 * Mails a password link, not awaited: the request answers at once whatever the SMTP server does (so the forgot form's
 * timing does not tell whether the address exists), and a failure is logged without the link.
 */
export function sendPasswordLink(
  deps: MailDeps,
  input: {
    to: string;
    purpose: PasswordLinkPurpose;
    token: string;
    workspaceName?: string | undefined;
    invitedBy?: string | undefined;
  },
): void {
  const mailer = mailerOf(deps);
  if (!mailer) return;
  const url = `${deps.config.publicBaseUrl}${passwordLinkPath(input.purpose, input.token)}`;
  const mail = passwordLinkMail({ ...input, url });
  mailer
    .send({ to: input.to, subject: mail.subject, text: mail.text, headers: { 'Auto-Submitted': 'auto-generated' } })
    .then((attempt) => {
      if (!attempt.ok)
        deps.logger.warn('password link mail not sent', { purpose: input.purpose, reason: attempt.reason });
    })
    .catch((err: unknown) =>
      deps.logger.warn('password link mail not sent', { purpose: input.purpose, error: (err as Error)?.message }),
    );
}
