import { randomUUID } from 'node:crypto';
import {
  createDeliverer,
  workspaceSigningSecrets,
  ESCALATION_CHANNELS,
  IMPACTS,
  isPersonChannel,
  openTarget,
  shownTarget,
  type Config,
  type DeliveryOutcome,
  type Logger,
  type Page,
  type PrismaClient,
  type SsrfGuard,
} from '@statusvane/shared';
import { z } from '../../schemas/zod.js';
import { assertCan } from '../auth/permissions.js';
import { logFailure } from '../best-effort.js';
import type { ServiceContext } from '../context.js';
import { policyLookup } from './policy-record.js';
import { findOwn } from '../records.js';

export const policyTestResultSchema = z
  .object({
    step: z.number().int().min(0).openapi({ description: "The step's position in the ladder, from 0." }),
    channel: z.enum(ESCALATION_CHANNELS),
    display: z.string().openapi({ description: 'The target as records show it (never a secret).' }),
    ok: z.boolean().openapi({ description: 'The provider (or the SMTP server) accepted the message.' }),
    status: z.number().int().optional().openapi({ description: "The provider's HTTP status, when it answered." }),
    error: z
      .string()
      .optional()
      .openapi({
        description:
          'Why it was not delivered: `http_404`, `timeout`, `connection_refused`, `ssrf_blocked`, `smtp_550`, `email not ' +
          "configured`, `target_unreadable` (the target's encryption key is gone), `person_not_tested` (a schedule " +
          'or user target: a test wakes nobody) ...',
      }),
  })
  .openapi('EscalationTestResult');
export type PolicyTestResult = z.infer<typeof policyTestResultSchema>;

/** One attempt per target (no retries): the answer says at once what each provider made of it. */
const TEST_RETRY = { attempts: 1, backoffMs: 0 };
const TEST_TIMEOUT_MS = 10_000;
/** Channels whose alerts stay open until resolved: a test send resolves its own alert right after. */
const CLOSES_ALERTS: ReadonlySet<string> = new Set(['pagerduty', 'opsgenie']);

/**
 * POST /escalation-policies/{id}/test (managers): one test message to every target of every step, at once, in each
 * channel's own format (webhooks signed as pages are, with `"test": true`; PagerDuty and Opsgenie at the lowest
 * severity, their alert resolved right after), and one answer per target. Nothing is recorded as a page and no
 * incident is involved.
 */
export async function testEscalationPolicy(
  deps: {
    prisma: PrismaClient;
    guard: SsrfGuard;
    logger: Logger;
    config: Pick<Config, 'encryption' | 'smtp' | 'alertProviders'>;
  },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<PolicyTestResult[]> {
  assertCan(ctx.role, 'escalationPolicies:manage');
  const policy = await findOwn(deps.prisma, ctx, policyLookup, id);
  const targets = await deps.prisma.escalationTarget.findMany({
    where: { step: { policyId: policy.id } },
    select: {
      id: true,
      channel: true,
      display: true,
      targetEnc: true,
      encKeyId: true,
      legacyTarget: true,
      stepId: true,
    },
  });
  const byId = new Map(targets.map((t) => [t.id, t]));
  const deliverer = createDeliverer({
    guard: deps.guard,
    signingSecret: workspaceSigningSecrets(deps.prisma, deps.config.encryption.current.key),
    smtp: deps.config.smtp,
    providers: deps.config.alertProviders,
    retry: TEST_RETRY,
    timeoutMs: TEST_TIMEOUT_MS,
  });
  const now = ctx.now.toISOString();
  try {
    const sends = policy.steps.flatMap((step) =>
      step.targets.map(async (t): Promise<PolicyTestResult> => {
        const channel = t.channel;
        // A schedule or user target pages people's own contact methods: a test of the policy does not wake them.
        if (isPersonChannel(channel))
          return { step: step.position, channel, display: t.display, ok: false, error: 'person_not_tested' };
        const page: Page = {
          deliveryId: randomUUID(),
          workspaceId: ctx.workspace.id,
          incident: {
            id: randomUUID(),
            title: `Test message from Statusvane: escalation policy "${policy.name}"`,
            status: 'open',
            impact: IMPACTS[0],
            source: 'test',
            startedAt: now,
            monitorId: null,
            metadata: {},
          },
          policy: { id: policy.id, name: policy.name, runbook: policy.runbook },
          step: {
            id: step.id,
            position: step.position,
            delayMinutes: step.delayMinutes,
            minImpact: step.minImpact,
            cycle: 0,
          },
          firedAt: now,
          test: true,
        };
        let outcome: DeliveryOutcome;
        try {
          const target = openTarget(byId.get(t.id)!, deps.config.encryption);
          outcome = await deliverer.deliver(channel, target, page);
          // PagerDuty and Opsgenie keep an alert open until told otherwise: close the test's at once (same incident
          // id, so the same dedup_key / alias). The answer reports the test message; the close is best effort.
          if (outcome.status === 'sent' && CLOSES_ALERTS.has(channel))
            await deliverer
              .notify(channel, target, {
                noticeId: randomUUID(),
                workspaceId: ctx.workspace.id,
                kind: 'resolved',
                incident: { ...page.incident, status: 'resolved', acknowledgedAt: null, resolvedAt: now },
                at: now,
              })
              .catch(
                logFailure(
                  deps.logger,
                  'escalation test: the test alert not closed',
                  { policyId: policy.id, channel: t.channel },
                  'close the test alert in the provider',
                ),
              );
        } catch {
          outcome = { status: 'failed', attempts: 0, reason: 'target_unreadable', sentAt: null };
        }
        // Never the target: URLs and keys are credentials.
        deps.logger.info('escalation test', {
          policyId: policy.id,
          channel: t.channel,
          status: outcome.status,
          reason: outcome.reason,
        });
        return {
          step: step.position,
          channel: t.channel,
          display: shownTarget(t.channel, t.display),
          ok: outcome.status === 'sent',
          ...(outcome.statusCode === undefined ? {} : { status: outcome.statusCode }),
          ...(outcome.reason === null ? {} : { error: outcome.reason }),
        };
      }),
    );
    return await Promise.all(sends);
  } finally {
    deliverer.close();
  }
}
