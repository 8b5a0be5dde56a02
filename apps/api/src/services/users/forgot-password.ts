import { RateLimiterRedis } from 'rate-limiter-flexible';
import { sha256Hex, UnavailableError, type PrismaClient, type RedisClient } from '@statusvane/shared';
import { issuePasswordLink } from './password-links.js';
import { sendPasswordLink, type MailDeps } from './password-mail.js';

/** Reset mails per address and hour, and requests per client address per 15 minutes: beyond them, no mail is sent. */
const MAILS_PER_EMAIL_HOUR = 3;
const REQUESTS_PER_CLIENT = 20;

export interface ForgotLimits {
  email: RateLimiterRedis;
  client: RateLimiterRedis;
}

export function createForgotLimits(redis: RedisClient, keyPrefix = 'sv:forgot'): ForgotLimits {
  const make = (name: string, points: number, duration: number) =>
    new RateLimiterRedis({
      storeClient: redis,
      points,
      duration,
      keyPrefix: `${keyPrefix}:${name}`,
      useRedisPackage: false,
    });
  return { email: make('email', MAILS_PER_EMAIL_HOUR, 3600), client: make('client', REQUESTS_PER_CLIENT, 900) };
}

/**
 * POST /app/forgot: mails a reset link (one hour) to the address when it is a user's. The caller answers the same
 * whatever happens here: whether the address exists, is over its mail limit, or no SMTP server is configured. Only
 * an outage of Redis or the database is an error.
 */
export async function requestPasswordReset(
  deps: MailDeps & { prisma: PrismaClient; limits: ForgotLimits },
  input: { email: string; address: string; now: Date },
): Promise<void> {
  const email = input.email.trim().toLowerCase();
  if (email.length === 0 || email.length > 320) return;
  const within = async (limiter: RateLimiterRedis, key: string) => {
    try {
      await limiter.consume(key, 1);
      return true;
    } catch (err) {
      if (err instanceof Error) throw new UnavailableError('redis');
      return false;
    }
  };
  if (!(await within(deps.limits.client, input.address))) return;
  const user = await deps.prisma.user.findUnique({ where: { email }, select: { id: true, email: true } });
  if (!user) return;
  if (!(await within(deps.limits.email, sha256Hex(email).slice(0, 32)))) return;
  const token = await issuePasswordLink(deps.prisma, { userId: user.id, purpose: 'reset', now: input.now });
  sendPasswordLink(deps, { to: user.email, purpose: 'reset', token });
}
