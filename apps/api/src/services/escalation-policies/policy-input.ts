import {
  ESCALATION_LIMITS as L,
  IMPACTS,
  escalationTargetSchema,
  isUrlChannel,
  type Issue,
  type EscalationTargetInput,
  type PrismaClient,
  type SsrfGuard,
  shownText,
} from '@statusvane/shared';
import { z } from '../../schemas/zod.js';
import { failWith } from '../validation.js';

const stepSchema = z
  .object({
    delayMinutes: z.number().int().min(0).max(L.delayMinutesMax).openapi({
      description: "Minutes from the incident's start (in a repeat cycle, from the previous cycle's end).",
    }),
    minImpact: z
      .enum(IMPACTS)
      .default('none')
      .openapi({ description: 'The step pages only incidents of at least this impact.' }),
    targets: z.array(escalationTargetSchema).min(1).max(L.targetsMax),
  })
  .strict()
  .openapi('EscalationStepInput');

/** Steps are in ladder order: a delay may not be shorter than the previous step's (the last step ends a cycle). */
function ladderOrder(steps: ReadonlyArray<{ delayMinutes: number }> | undefined, ctx: z.RefinementCtx) {
  if (!steps) return;
  for (let i = 1; i < steps.length; i++) {
    if (steps[i]!.delayMinutes < steps[i - 1]!.delayMinutes) {
      ctx.addIssue({
        code: 'custom',
        path: ['steps', i, 'delayMinutes'],
        message: 'must be at least the previous step delay (steps are in ladder order)',
      });
    }
  }
}

const fields = {
  name: z.string().trim().min(1).max(L.nameMax).superRefine(shownText),
  repeatCount: z
    .number()
    .int()
    .min(0)
    .max(L.repeatCountMax)
    .openapi({ description: 'How many more times the whole ladder runs after its last step (0: once).' }),
  silent: z.boolean().openapi({ description: 'Record the pages as `skipped` instead of sending them.' }),
  runbook: z.string().max(L.runbookMax).openapi({ description: 'Shown in every page.' }),
  steps: z.array(stepSchema).min(1).max(L.stepsMax),
  isDefault: z.boolean().openapi({
    description:
      "The workspace's default policy: the one a monitor without its own policy pages with. Setting it moves the default " +
      'from any other policy; false on the default policy leaves the workspace without one.',
  }),
};

/**
 * A new policy: the body of `POST /escalation-policies`, and the `--json` of the admin CLI's `policy create`. Steps
 * are in ladder order and their delays (minutes from the incident's start) may not decrease.
 */
export const createEscalationPolicySchema = z
  .object({
    name: fields.name,
    repeatCount: fields.repeatCount.default(0),
    silent: fields.silent.default(false),
    runbook: fields.runbook.default(''),
    steps: fields.steps,
    isDefault: fields.isDefault.default(false),
  })
  .strict()
  .superRefine((p, ctx) => ladderOrder(p.steps, ctx))
  .openapi('CreateEscalationPolicyInput');
export type CreateEscalationPolicyInput = z.output<typeof createEscalationPolicySchema>;

/** PATCH: only the given fields change; `steps` replaces every step. */
export const updateEscalationPolicySchema = z
  .object({
    name: fields.name.optional(),
    repeatCount: fields.repeatCount.optional(),
    silent: fields.silent.optional(),
    runbook: fields.runbook.optional(),
    steps: fields.steps
      .optional()
      .openapi({ description: 'Replaces every step (and target) of the policy, in ladder order.' }),
    isDefault: fields.isDefault.optional(),
  })
  .strict()
  .superRefine((p, ctx) => ladderOrder(p.steps, ctx))
  .openapi('UpdateEscalationPolicyInput', { description: 'Only the provided fields change.' });
export type UpdateEscalationPolicyInput = z.output<typeof updateEscalationPolicySchema>;

type StepsInput = CreateEscalationPolicyInput['steps'];

/**
 * Write-time SSRF check of every URL target: webhook, Slack, Teams, Discord, ntfy (the worker checks each connection
 * again); PagerDuty, Opsgenie and Telegram targets go to the providers' configured URLs. As for monitor targets, a
 * name that does not resolve today is accepted; one that resolves inward is refused: one 400 naming every such
 * target (`steps[0].targets[1].target`).
 */
export async function assertTargetsAllowed(guard: SsrfGuard, steps: StepsInput): Promise<void> {
  const targets = steps.flatMap((s, i) =>
    s.targets.map((target, j) => ({ path: `steps[${i}].targets[${j}]`, target })),
  );
  const issues = await urlTargetIssues(guard, targets);
  if (issues.length) failWith('escalation policy', issues);
}

/**
 * The SSRF issues of the URL targets among `targets` (`<path>.target`): the one write-time rule of policy targets
 * and contact methods alike.
 */
export async function urlTargetIssues(
  guard: SsrfGuard,
  targets: ReadonlyArray<{ path: string; target: EscalationTargetInput }>,
): Promise<Issue[]> {
  const checks = targets.map(async ({ path, target: t }): Promise<Issue | null> => {
    if (!('target' in t) || !isUrlChannel(t.channel)) return null;
    const result = await guard.checkUrl(t.target);
    if (result.ok || result.code === 'dns') return null;
    const message = result.code === 'blocked' ? `target is not allowed: ${result.reason}` : result.reason;
    return { path: `${path}.target`, message };
  });
  return (await Promise.all(checks)).filter((i): i is Issue => i !== null);
}

/**
 * Schedule and user targets name the workspace's own: a schedule of the workspace, a user who is a member of it. One
 * 400 naming every target that is neither (`steps[0].targets[1].target`).
 */
export async function assertPeopleExist(
  prisma: Pick<PrismaClient, 'schedule' | 'membership'>,
  workspaceId: string,
  steps: StepsInput,
): Promise<void> {
  const named = steps.flatMap((s, i) =>
    s.targets.flatMap((t, j) =>
      t.channel === 'schedule' || t.channel === 'user' ? [{ channel: t.channel, id: t.target, i, j }] : [],
    ),
  );
  if (named.length === 0) return;
  const [schedules, members] = await Promise.all([
    prisma.schedule.findMany({
      where: { workspaceId, id: { in: named.filter((n) => n.channel === 'schedule').map((n) => n.id) } },
      select: { id: true },
    }),
    prisma.membership.findMany({
      where: { workspaceId, userId: { in: named.filter((n) => n.channel === 'user').map((n) => n.id) } },
      select: { userId: true },
    }),
  ]);
  const known = new Set([...schedules.map((s) => s.id), ...members.map((m) => m.userId)]);
  const issues = named
    .filter((n) => !known.has(n.id))
    .map((n) => ({
      path: `steps[${n.i}].targets[${n.j}].target`,
      message: n.channel === 'schedule' ? 'is not a schedule of this workspace' : 'is not a member of this workspace',
    }));
  if (issues.length) failWith('escalation policy', issues);
}
