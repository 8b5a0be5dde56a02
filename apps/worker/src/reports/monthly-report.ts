import {
  accountMonitors,
  dueReportMonth,
  loadAccountingSettings,
  monitorRegions,
  monthRange,
  namedPolicy,
  uptimeCsv,
  type EmailSender,
  type Logger,
  type PeriodFigures,
  type PrismaClient,
} from '@statusvane/shared';

export interface ReportMailDeps {
  prisma: PrismaClient;
  /** Null without SMTP_URL: mails fail with `smtp_not_configured`. */
  email: EmailSender | null;
  checkRegions: readonly string[];
  logger: Logger;
}

/** Mails sent per sweep at most (each reads a month of its workspace's monitors). */
const MAILS_PER_SWEEP = 10;

/**
 * One sweep of the monthly uptime reports (docs/decisions.md, "Monthly report"): queues the scheduled mail of every
 * workspace whose 1st-of-the-month 06:00 (in its policy's timezone) has come, as one row per workspace and month
 * (a unique index: whichever worker inserts it first, the others insert nothing), then claims waiting mails (status
 * `sending`, SKIP LOCKED: one worker each) and sends them. A mail whose worker died while sending stays `sending`
 * and is never sent twice. Answers how many were queued and sent.
 */
export async function sweepUptimeReports(deps: ReportMailDeps, now: Date): Promise<{ queued: number; sent: number }> {
  const { prisma } = deps;
  const policies = await prisma.accountingPolicy.findMany({
    where: { reportRecipients: { isEmpty: false } },
    select: { workspaceId: true, timezone: true, reportRecipients: true },
  });
  const due = policies.flatMap((p) => {
    const month = dueReportMonth(now, p.timezone);
    return month
      ? [{ workspaceId: p.workspaceId, month, scheduled: true, recipients: p.reportRecipients, createdAt: now }]
      : [];
  });
  const queued = due.length ? (await prisma.uptimeReportMail.createMany({ data: due, skipDuplicates: true })).count : 0;
  const claimed = await prisma.$queryRaw<
    Array<{ id: string; workspaceId: string; month: string; recipients: string[] }>
  >`
    UPDATE uptime_report_mails SET status = 'sending', "claimedAt" = ${now}
    WHERE id IN (SELECT id FROM uptime_report_mails WHERE status = 'pending' ORDER BY "createdAt" LIMIT ${MAILS_PER_SWEEP}
      FOR UPDATE SKIP LOCKED)
    RETURNING id, "workspaceId"::text AS "workspaceId", month, recipients`;
  let sent = 0;
  for (const mail of claimed) {
    let outcome: { ok: true } | { ok: false; reason: string };
    try {
      outcome = deps.email
        ? await deps.email.send({ to: mail.recipients.join(', '), ...(await reportMail(deps, mail, now)) })
        : { ok: false, reason: 'smtp_not_configured' };
    } catch (err) {
      outcome = { ok: false, reason: `error: ${(err as Error).message}`.slice(0, 500) };
    }
    await prisma.uptimeReportMail.update({
      where: { id: mail.id },
      data: outcome.ok ? { status: 'sent', sentAt: new Date() } : { status: 'failed', reason: outcome.reason },
    });
    if (outcome.ok) sent++;
    else deps.logger.warn('uptime report mail failed', { mailId: mail.id, reason: outcome.reason });
  }
  return { queued, sent };
}

/** The mail of one month's report: a table per monitor in the text, the CSV attached. */
export async function reportMail(
  deps: Pick<ReportMailDeps, 'prisma' | 'checkRegions'>,
  mail: { workspaceId: string; month: string },
  now: Date,
): Promise<{
  subject: string;
  text: string;
  attachments: Array<{ filename: string; content: string; contentType: string }>;
}> {
  const { prisma } = deps;
  const [settings, workspace, monitors] = await Promise.all([
    loadAccountingSettings(prisma, mail.workspaceId),
    prisma.workspace.findUniqueOrThrow({ where: { id: mail.workspaceId }, select: { name: true } }),
    prisma.monitor.findMany({
      where: { workspaceId: mail.workspaceId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: { id: true, name: true, componentId: true, createdAt: true, type: true, regions: true, slaTarget: true },
    }),
  ]);
  const month = monthRange(mail.month, settings.timezone);
  const to = Math.min(month.to, Math.floor(now.getTime() / 1000) * 1000);
  const accounts = await accountMonitors(prisma, {
    workspaceId: mail.workspaceId,
    monitors: monitors.map((m) => ({ ...m, regions: monitorRegions(deps.checkRegions, m) })),
    from: month.from,
    to: Math.max(to, month.from),
    granularity: 'month',
    timezone: settings.timezone,
    policy: settings,
  });
  const rows = monitors.map((m) => ({ monitorId: m.id, monitorName: m.name, periods: accounts.get(m.id)!.periods }));
  const policy = namedPolicy(settings);
  const table = textTable(
    ['Monitor', 'Uptime', 'Down', 'Degraded', 'Maintenance', 'No data', 'SLA'],
    monitors.map((m) => {
      const p: PeriodFigures | undefined = accounts.get(m.id)!.total;
      return [
        m.name,
        p.uptimePercent === null ? 'no data' : `${p.uptimePercent}%`,
        duration(p.downSeconds),
        duration(p.degradedSeconds),
        duration(p.maintenanceSeconds),
        duration(p.noDataSeconds),
        m.slaTarget === null ? '' : `${m.slaTarget}% ${p.slaMet === null ? '' : p.slaMet ? 'met' : 'missed'}`.trim(),
      ];
    }),
  );
  const text = [
    `Uptime of ${workspace.name} for ${mail.month} (${settings.timezone}).`,
    '',
    `Policy version ${policy.version}: maintenance ${policy.maintenance}, degraded counted ${policy.degraded}, ` +
      `no data ${policy.noData}. Down time runs from the first failing check of each incident to its resolution.`,
    '',
    monitors.length ? table : 'No monitors.',
    '',
    'The CSV attached has the seconds in each state per monitor.',
  ].join('\n');
  return {
    subject: `Uptime report ${mail.month}: ${workspace.name}`,
    text,
    attachments: [
      { filename: `uptime-${mail.month}.csv`, content: uptimeCsv(rows), contentType: 'text/csv; charset=utf-8' },
    ],
  };
}

/** Seconds as `1 h 02 min 03 s` (or `0 s`). */
function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h ? `${h} h ${String(m).padStart(2, '0')} min` : m ? `${m} min ${String(s).padStart(2, '0')} s` : `${s} s`;
}

/** A plain-text table, columns padded to their widest cell. */
function textTable(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
