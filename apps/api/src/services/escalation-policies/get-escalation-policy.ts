import type { PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { toEscalationPolicyRecord, type EscalationPolicyRecord, policyLookup } from './policy-record.js';
import { findOwn } from '../records.js';

/** GET /escalation-policies/{id}. */
export async function getEscalationPolicy(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<EscalationPolicyRecord> {
  return toEscalationPolicyRecord(await findOwn(prisma, ctx, policyLookup, id));
}
