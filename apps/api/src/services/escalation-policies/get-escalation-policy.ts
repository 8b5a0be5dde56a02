import type { PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { findOwnPolicy, toEscalationPolicyRecord, type EscalationPolicyRecord } from './policy-record.js';

/** GET /escalation-policies/{id}. */
export async function getEscalationPolicy(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<EscalationPolicyRecord> {
  return toEscalationPolicyRecord(await findOwnPolicy(prisma, ctx, id));
}
