import type { Config, PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { findOwnStatusPage } from './find-status-page.js';
import { toStatusPageRecord, type StatusPageRecord } from './status-page-record.js';

/** GET /status-pages/{id}: the record POST returns. */
export async function getStatusPage(
  deps: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl'> },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<StatusPageRecord> {
  return toStatusPageRecord(await findOwnStatusPage(deps.prisma, ctx, id), deps.config.publicBaseUrl);
}
