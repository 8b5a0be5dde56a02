import { hashToken, randomSecret, type Prisma } from '@statusvane/shared';

/**
 * A new calendar feed secret (32 random bytes) for a schedule or a user, replacing the one they had: the URL it
 * makes, and the SHA-256 stored in its place (the URL is never stored).
 */
export async function replaceCalendarToken(
  tx: Prisma.TransactionClient,
  publicBaseUrl: string,
  owner: { scheduleId: string } | { userId: string },
): Promise<string> {
  const token = randomSecret(32);
  await tx.calendarToken.deleteMany({ where: owner });
  await tx.calendarToken.create({ data: { ...owner, tokenHash: hashToken(token) } });
  return `${publicBaseUrl.replace(/\/+$/, '')}/ical/${token}.ics`;
}
