import { z } from 'zod';
import {
  layoutInputSchema,
  NotFoundError,
  parseOrThrow,
  STATUS_PAGE_LIMITS,
  uuidInputSchema,
  ValidationError,
  type PrismaClient,
} from '@statusvane/shared';
import { changesBetween, claimVersion, cliWriteContext, recordUpdate } from '../services/audit/record-write.js';
import { layoutOf, type StatusPageLayout } from '../services/status-pages/status-page-layout-record.js';
import { replaceLayout } from '../services/status-pages/replace-layout.js';
import { hashPassword } from '../services/status-pages/password.js';
import {
  statusPageRecordSelect,
  toStatusPageRecord,
  type StatusPageRecord,
} from '../services/status-pages/status-page-record.js';

export interface StatusPageCommandOptions {
  /** For the record's `url`. */
  publicBaseUrl: string;
}

const id = uuidInputSchema;
const password = z
  .string()
  .min(STATUS_PAGE_LIMITS.passwordMin, `must be at least ${STATUS_PAGE_LIMITS.passwordMin} characters`)
  .max(STATUS_PAGE_LIMITS.passwordMax);

async function findPage(prisma: Pick<PrismaClient, 'statusPage'>, pageId: string) {
  const page = await prisma.statusPage.findUnique({ where: { id: pageId }, select: statusPageRecordSelect });
  if (!page) throw new NotFoundError('status page', pageId);
  return page;
}

/** status-page set-password --id --password: visitors must then type it; earlier access cookies stop working. */
export async function setStatusPagePassword(
  prisma: PrismaClient,
  raw: unknown,
  opts: StatusPageCommandOptions,
): Promise<StatusPageRecord> {
  const input = parseOrThrow(z.object({ id, password }).strict(), raw, 'arguments');
  const passwordHash = await hashPassword(input.password);
  return writePage(prisma, input.id, opts, { passwordHash });
}

/** status-page clear-password --id: the page is open to everyone again (if it is public). */
export async function clearStatusPagePassword(
  prisma: PrismaClient,
  raw: unknown,
  opts: StatusPageCommandOptions,
): Promise<StatusPageRecord> {
  const input = parseOrThrow(z.object({ id }).strict(), raw, 'arguments');
  return writePage(prisma, input.id, opts, { passwordHash: null });
}

/** Sets or clears the password in one transaction with its version and audit event (actor: the CLI). */
async function writePage(
  prisma: PrismaClient,
  pageId: string,
  opts: StatusPageCommandOptions,
  data: { passwordHash: string | null },
): Promise<StatusPageRecord> {
  const page = await findPage(prisma, pageId);
  const ctx = cliWriteContext(page.workspaceId);
  return prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'status_page', page.id);
    const before = await findPage(tx, page.id);
    const after = await tx.statusPage.update({ where: { id: page.id }, data, select: statusPageRecordSelect });
    const record = toStatusPageRecord(after, opts.publicBaseUrl);
    const version = await recordUpdate(tx, ctx, {
      resourceType: 'status_page',
      resourceId: page.id,
      changes: changesBetween(toStatusPageRecord(before, opts.publicBaseUrl), record, {
        password: [before.passwordHash !== null, data.passwordHash !== null],
      }),
    });
    return { ...record, version: version ?? record.version };
  });
}

/** Parses `--json`; a syntax error is a 400-style argument error, not a crash. */
function parseSectionsJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new ValidationError('Invalid arguments: json', [
      { path: 'json', message: `is not valid JSON (${(err as Error).message})` },
    ]);
  }
}

/**
 * status-page arrange --id --json '[{ "name": "API", "componentIds": [...] }, ...]': replaces the whole layout
 * in one transaction (`[]` clears it, and the page shows every component again). Components must belong to the
 * page's workspace and appear at most once; at most 50 sections, names 1-200 characters.
 */
export async function arrangeStatusPage(prisma: PrismaClient, raw: unknown): Promise<StatusPageLayout> {
  const input = parseOrThrow(z.object({ id, json: z.string().max(200_000) }).strict(), raw, 'arguments');
  // Wrapped so every issue names the option: `json[0].name`, `json[1].componentIds[2]`.
  const { json: sections } = parseOrThrow(
    z.object({ json: layoutInputSchema }),
    { json: parseSectionsJson(input.json) },
    'layout',
  );

  const { workspaceId } = await findPage(prisma, input.id);
  const ctx = cliWriteContext(workspaceId);
  return prisma.$transaction(async (tx) => {
    // Serialises concurrent arranges of one page: the later one replaces the earlier, never interleaves with it.
    await claimVersion(tx, ctx, 'status_page', input.id);
    const page = await findPage(tx, input.id);

    const previous = await replaceLayout(tx, page, sections, 'json');
    await recordUpdate(tx, ctx, {
      resourceType: 'status_page',
      resourceId: page.id,
      changes: changesBetween({ sections: previous }, { sections }),
    });
    return layoutOf(tx, page);
  });
}
