import { ESCALATION_CHANNELS, IMPACTS, shownTarget, type Prisma, type PrismaClient } from '@statusvane/shared';
import { dateTime, versionSchema, z } from '../../schemas/zod.js';
import type { OwnLookup } from '../records.js';

const targetRecordSchema = z
  .object({
    id: z.uuid(),
    channel: z.enum(ESCALATION_CHANNELS),
    display: z.string().openapi({
      description:
        'How the target is shown, never a secret (targets are stored encrypted and never shown in clear). Email: the ' +
        'address. URL channels (webhook, slack, teams, discord, ntfy): `scheme://host[:port]/…`. pagerduty and ' +
        'opsgenie: `routing key …abcd` / `API key …abcd`. telegram: `chat <chatId>`.',
    }),
  })
  .openapi('EscalationTarget');

const stepRecordSchema = z
  .object({
    id: z.uuid(),
    position: z.number().int().min(0).openapi({ description: 'The step in ladder order, from 0.' }),
    delayMinutes: z.number().int(),
    minImpact: z.enum(IMPACTS),
    targets: z.array(targetRecordSchema),
  })
  .openapi('EscalationPolicyStep');

export const escalationPolicyRecordSchema = z
  .object({
    id: z.uuid(),
    ref: z.string().nullable().openapi({
      description: 'The name a workspace document (`POST /config/apply`) manages the policy by; null: not managed.',
    }),
    version: versionSchema,
    name: z.string(),
    repeatCount: z.number().int().min(0),
    silent: z.boolean(),
    runbook: z.string(),
    isDefault: z.boolean().openapi({ description: "The workspace's default policy." }),
    createdAt: dateTime,
    steps: z.array(stepRecordSchema),
  })
  .openapi('EscalationPolicy');
export type EscalationPolicyRecord = z.infer<typeof escalationPolicyRecordSchema>;

export const escalationPolicySelect = {
  id: true,
  ref: true,
  version: true,
  workspaceId: true,
  name: true,
  repeatCount: true,
  silent: true,
  runbook: true,
  createdAt: true,
  workspace: { select: { defaultEscalationPolicyId: true } },
  steps: {
    orderBy: { position: 'asc' },
    select: {
      id: true,
      position: true,
      delayMinutes: true,
      minImpact: true,
      targets: { orderBy: { position: 'asc' }, select: { id: true, channel: true, display: true } },
    },
  },
} as const satisfies Prisma.EscalationPolicySelect;
export type EscalationPolicyRow = Prisma.EscalationPolicyGetPayload<{ select: typeof escalationPolicySelect }>;

/**
 * The policy record. Targets are stored encrypted and shown by their display form only, here as everywhere (the
 * CLI's output ends up in terminals and CI logs): never a secret.
 */
export function toEscalationPolicyRecord(p: EscalationPolicyRow): EscalationPolicyRecord {
  return {
    id: p.id,
    ref: p.ref,
    version: p.version,
    name: p.name,
    repeatCount: p.repeatCount,
    silent: p.silent,
    runbook: p.runbook,
    isDefault: p.workspace.defaultEscalationPolicyId === p.id,
    createdAt: p.createdAt.toISOString(),
    steps: p.steps.map((s) => ({
      id: s.id,
      position: s.position,
      delayMinutes: s.delayMinutes,
      minImpact: s.minImpact,
      targets: s.targets.map((t) => ({ id: t.id, channel: t.channel, display: shownTarget(t.channel, t.display) })),
    })),
  };
}

/** The live (not archived) policies of the caller's workspace. */
export const livePolicies = (workspaceId: string) =>
  ({ workspaceId, archivedAt: null }) satisfies Prisma.EscalationPolicyWhereInput;

/** findOwn's lookup of one of the caller's live policies (an archived one is not found). */
export const policyLookup: OwnLookup<Pick<PrismaClient, 'escalationPolicy'>, EscalationPolicyRow> = {
  noun: 'escalation policy',
  find: (db, { id, workspaceId }) =>
    db.escalationPolicy.findFirst({
      where: { id, ...livePolicies(workspaceId) },
      select: escalationPolicySelect,
    }),
};
