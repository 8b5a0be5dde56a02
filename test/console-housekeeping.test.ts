// The worker's housekeeping deletes console sign-ins that can no longer be used: sessions past their absolute or idle
// timeout (pending second-factor sign-ins included) and invitation and reset links past their expiry; live ones stay.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { hashToken, randomSecret } from '@statusvane/shared';
import { pruneSignIns } from '../apps/worker/src/housekeeping.js';
import { makeHarness, makeUser, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(() => h.close());

const HOUR = 3_600_000;

describe('housekeeping of console sign-ins', () => {
  it('deletes expired and idle sessions and expired links, and keeps live ones', async () => {
    const w = await makeWorkspace(h.prisma);
    const user = await makeUser(h.prisma, [{ workspace: w.ws.id, role: 'member' }]);
    const now = new Date();
    const at = (ms: number) => new Date(now.getTime() + ms);
    const session = (name: string, data: { lastSeenAt: Date; expiresAt: Date; awaitingSecondFactor?: boolean }) =>
      h.prisma.consoleSession.create({
        data: { tokenHash: hashToken(randomSecret(32)), userId: user.id, userAgent: name, ...data },
      });
    await session('live', { lastSeenAt: at(-HOUR), expiresAt: at(24 * HOUR) });
    await session('past absolute', { lastSeenAt: at(-60_000), expiresAt: at(-1) });
    await session('idle 12 h', { lastSeenAt: at(-12 * HOUR - 1000), expiresAt: at(20 * 24 * HOUR) });
    await session('pending, expired', {
      lastSeenAt: at(-11 * 60_000),
      expiresAt: at(-60_000),
      awaitingSecondFactor: true,
    });
    await session('pending, live', { lastSeenAt: at(-60_000), expiresAt: at(9 * 60_000), awaitingSecondFactor: true });
    const link = (purpose: 'invite' | 'reset', expiresAt: Date) =>
      h.prisma.passwordLink.create({
        data: { userId: user.id, purpose, tokenHash: hashToken(randomSecret(32)), expiresAt },
      });
    const liveLink = await link('invite', at(47 * HOUR));
    await link('reset', at(-1));
    await link('invite', at(-HOUR));

    const report = await pruneSignIns(h.prisma, now, { batchSize: 1 });
    expect(report.consoleSessions).toBeGreaterThanOrEqual(3);
    expect(report.passwordLinks).toBeGreaterThanOrEqual(2);
    const left = await h.prisma.consoleSession.findMany({ where: { userId: user.id }, orderBy: { userAgent: 'asc' } });
    expect(left.map((s) => s.userAgent)).toEqual(['live', 'pending, live']);
    expect((await h.prisma.passwordLink.findMany({ where: { userId: user.id } })).map((l) => l.id)).toEqual([
      liveLink.id,
    ]);
  });
});
