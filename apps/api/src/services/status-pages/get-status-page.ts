import type { Config, PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { toStatusPageRecord, type StatusPageRecord, statusPageLookup } from './status-page-record.js';
import { findOwn } from '../records.js';

/** GET /status-pages/{id}: the record POST returns. */
export async function getStatusPage(
  deps: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl'> },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<StatusPageRecord> {
  return toStatusPageRecord(await findOwn(deps.prisma, ctx, statusPageLookup, id), deps.config.publicBaseUrl);
}
