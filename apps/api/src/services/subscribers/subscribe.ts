import {
  encryptSecret,
  newLinkToken,
  randomSecret,
  redactUrl,
  shownComponentIds,
  ValidationError,
  type Keyring,
  type PrismaClient,
  type SsrfGuard,
} from '@statusvane/shared';
import type { PageVisitContext } from '../context.js';
import { isUniqueViolation } from '../records.js';
import { addressHash, type SubscribeInput } from './subscription-input.js';

/** How long a confirmation link stays valid. */
export const CONFIRM_TTL_MS = 48 * 3600_000;

export type SubscribeResult =
  | { kind: 'email'; confirmDeliveryId: string | null }
  | { kind: 'webhook'; id: string; secret: string; componentIds: string[] };

interface Deps {
  prisma: PrismaClient;
  keyring: Keyring;
  guard: SsrfGuard;
}

async function checkComponents(deps: Deps, page: { id: string; workspaceId: string }, ids: string[]) {
  if (!ids.length) return;
  const shown = new Set(await shownComponentIds(deps.prisma, page));
  const issues = ids.flatMap((id, i) =>
    shown.has(id) ? [] : [{ path: `componentIds[${i}]`, message: 'Not a component of this status page' }],
  );
  if (issues.length) throw new ValidationError('Invalid subscription: componentIds', issues);
}

/**
 * Subscribes an address to a page. The answer never says whether the address was already there:
 * - email, new: stored unconfirmed, with a confirmation delivery (the mail carries a one-time link);
 * - email, unconfirmed: a fresh link replaces the old one (and the components chosen now apply);
 * - email, confirmed: nothing changes and nothing is sent (no one can change a subscription by knowing the address);
 * - webhook: must pass the SSRF guard; confirmed at once; the signing secret is returned once. Subscribing the same
 *   URL again replaces its secret and components (the URL is its identity, as on Statuspage).
 */
export async function subscribe(
  deps: Deps,
  { ctx, input }: { ctx: PageVisitContext; input: SubscribeInput },
): Promise<SubscribeResult> {
  const { page, now } = ctx;
  const componentIds = input.componentIds ?? [];
  await checkComponents(deps, page, componentIds);
  const components = { create: componentIds.map((componentId) => ({ componentId })) };

  if (input.webhookUrl !== undefined) {
    const check = await deps.guard.checkUrl(input.webhookUrl);
    if (!check.ok)
      throw new ValidationError('Invalid subscription: webhookUrl', [{ path: 'webhookUrl', message: check.reason }]);
    const secret = `whsec_${randomSecret(32)}`;
    const secretEnc = encryptSecret(secret, deps.keyring.current).ciphertext;
    const hash = addressHash('webhook', input.webhookUrl);
    const row = await deps.prisma.$transaction(async (tx) => {
      const existing = await tx.statusPageSubscriber.findUnique({
        where: { statusPageId_addressHash: { statusPageId: page.id, addressHash: hash } },
        select: { id: true },
      });
      if (existing) {
        await tx.subscriberComponent.deleteMany({ where: { subscriberId: existing.id } });
        return tx.statusPageSubscriber.update({
          where: { id: existing.id },
          data: { secretEnc, components },
          select: { id: true },
        });
      }
      const unsubscribe = newLinkToken(deps.keyring);
      return tx.statusPageSubscriber.create({
        data: {
          workspaceId: page.workspaceId,
          statusPageId: page.id,
          kind: 'webhook',
          webhookUrlEnc: encryptSecret(input.webhookUrl!, deps.keyring.current).ciphertext,
          webhookDisplay: redactUrl(input.webhookUrl!),
          secretEnc,
          addressHash: hash,
          unsubscribeTokenHash: unsubscribe.hash,
          unsubscribeTokenEnc: unsubscribe.sealed,
          confirmedAt: now,
          components,
        },
        select: { id: true },
      });
    });
    return { kind: 'webhook', id: row.id, secret, componentIds };
  }

  const email = input.email!;
  const hash = addressHash('email', email);
  const confirm = newLinkToken(deps.keyring);
  const confirmData = {
    confirmTokenHash: confirm.hash,
    confirmTokenEnc: confirm.sealed,
    confirmExpiresAt: new Date(now.getTime() + CONFIRM_TTL_MS),
  };
  const attempt = () =>
    deps.prisma.$transaction(async (tx) => {
      const existing = await tx.statusPageSubscriber.findUnique({
        where: { statusPageId_addressHash: { statusPageId: page.id, addressHash: hash } },
        select: { id: true, confirmedAt: true },
      });
      if (existing?.confirmedAt) return null;
      let id: string;
      if (existing) {
        await tx.subscriberComponent.deleteMany({ where: { subscriberId: existing.id } });
        await tx.statusPageSubscriber.update({ where: { id: existing.id }, data: { ...confirmData, components } });
        id = existing.id;
      } else {
        const unsubscribe = newLinkToken(deps.keyring);
        id = (
          await tx.statusPageSubscriber.create({
            data: {
              workspaceId: page.workspaceId,
              statusPageId: page.id,
              kind: 'email',
              email,
              addressHash: hash,
              unsubscribeTokenHash: unsubscribe.hash,
              unsubscribeTokenEnc: unsubscribe.sealed,
              ...confirmData,
              components,
            },
            select: { id: true },
          })
        ).id;
      }
      const delivery = await tx.subscriberDelivery.create({
        data: { subscriberId: id, eventKey: `confirm:${confirm.hash.slice(0, 32)}` },
        select: { id: true },
      });
      return delivery.id;
    });
  try {
    return { kind: 'email', confirmDeliveryId: await attempt() };
  } catch (err) {
    // Two subscriptions of one new address at once: the second finds the first's row.
    if (!isUniqueViolation(err)) throw err;
    return { kind: 'email', confirmDeliveryId: await attempt() };
  }
}
