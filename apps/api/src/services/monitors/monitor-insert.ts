import { randomUUID } from 'node:crypto';
import {
  coveringWindows,
  coveringWindowsJson,
  Prisma,
  sqlRows,
  type CoverageWindow,
  type CoveringWindowJson,
  type SqlTransaction,
} from '@statusvane/shared';
import { monitorRecordSelect, type MonitorRow } from './monitor-record.js';

/**
 * The SQL type of each monitors column a create can set (monitorCreateData's output, plus the timestamps Prisma would
 * fill in), for the casts of insertMonitorWithComponent.
 */
const COLUMN_TYPES: Record<string, string> = {
  id: 'uuid',
  workspaceId: 'uuid',
  componentId: 'uuid',
  name: 'text',
  type: '"MonitorType"',
  target: 'text',
  method: '"HttpMethod"',
  intervalSeconds: 'int',
  timeoutMs: 'int',
  openThreshold: 'int',
  resolveThreshold: 'int',
  expectedStatusCodes: 'int[]',
  keyword: 'text',
  keywordAbsent: 'text',
  degradedAfterMs: 'int',
  latencyThresholdMs: 'int',
  headersEnc: 'text',
  headerNames: 'text[]',
  bodyEnc: 'text',
  encKeyId: 'text',
  steps: 'jsonb',
  stepSecretsEnc: 'text',
  secretRefs: 'text[]',
  responseSchema: 'jsonb',
  contentType: 'text',
  environment: 'text',
  metadata: 'jsonb',
  jsonAssertion: 'jsonb',
  graceSeconds: 'int',
  certificateExpiryDays: 'int',
  sendTraceparent: 'boolean',
  dnsRecordType: 'text',
  dnsResolver: 'text',
  dnsExpected: 'text[]',
  domainExpiryDays: 'int',
  regions: 'text[]',
  quorum: 'int',
  confirmAfterSeconds: 'int',
  dependsOn: 'uuid[]',
  enabled: 'boolean',
  pingSecret: 'text',
  maxRunSeconds: 'int',
  minRunSeconds: 'int',
  schedule: 'text',
  timezone: 'text',
  escalationPolicyId: 'uuid',
  ref: 'text',
  slaTarget: 'float8',
  createdAt: 'timestamptz',
  updatedAt: 'timestamptz',
};

const RETURNING = Prisma.raw(
  Object.keys(monitorRecordSelect)
    .map((c) => `"${c}"`)
    .join(', '),
);

function sqlValue(column: string, value: unknown): Prisma.Sql {
  const type = COLUMN_TYPES[column];
  // A column outside the map is a new field of monitorCreateData: add it above (the tests of every kind fail first).
  if (!type) throw new Error(`insertMonitorWithComponent: no SQL type for monitors.${column}`);
  if (type !== 'jsonb') return Prisma.sql`${value}::${Prisma.raw(type)}`;
  if (value === Prisma.DbNull || value === null) return Prisma.sql`NULL::jsonb`;
  if (value === Prisma.JsonNull) return Prisma.sql`'null'::jsonb`;
  return Prisma.sql`${JSON.stringify(value)}::jsonb`;
}

/** What insertMonitorWithComponent returns: the record's columns, and the maintenance that covers the new monitor. */
export interface InsertedMonitor {
  row: MonitorRow;
  /**
   * The windows (not cancelled) covering the new component at `now` (coveringWindowsJson): whole-workspace ones only,
   * as its component is created in this statement. maintenanceCoverage judges them exactly.
   */
  workspaceWindows: CoverageWindow[];
}

/**
 * A new monitor and its public component in one statement (the component in a data-modifying CTE, checked by the
 * monitor's foreign key at the statement's end), returning the columns of a record: what `component.create` then
 * `monitor.create({ data, select: monitorRecordSelect })` did in two round trips and two compiled ORM calls, which
 * cost POST /monitors several times the CPU of this statement. The same statement reads the whole-workspace windows
 * in progress at `now`, which the record shows: read before the transaction, through the ORM, they cost a create a
 * round trip and about a sixth of its API CPU. In a hotTransaction (POST /monitors) it is a hot statement (sqlRows): its
 * text depends only on which columns the create sets, one shape per monitor type and optional field set.
 */
export async function insertMonitorWithComponent(
  tx: SqlTransaction,
  data: Prisma.MonitorUncheckedCreateInput,
  now: Date,
): Promise<InsertedMonitor> {
  const createdAt = new Date();
  // The values Prisma's client fills in on create: @default(uuid()), @default(now()) and @updatedAt.
  const row: Record<string, unknown> = { id: randomUUID(), createdAt, updatedAt: createdAt, ...data };
  const columns = Object.keys(row).filter((c) => row[c] !== undefined);
  const [inserted] = await sqlRows<MonitorRow & { workspaceWindows: CoveringWindowJson[] | null }>(
    tx,
    Prisma.sql`
    WITH component AS (
      INSERT INTO components (id, "workspaceId", name, "createdAt")
      VALUES (${data.componentId}::uuid, ${data.workspaceId}::uuid, ${data.name}, ${createdAt})
    ), created AS (
      INSERT INTO monitors (${Prisma.raw(columns.map((c) => `"${c}"`).join(', '))})
      VALUES (${Prisma.join(columns.map((c) => sqlValue(c, row[c])))})
      RETURNING ${RETURNING}
    )
    SELECT created.*,
      ${coveringWindowsJson({
        workspaceId: Prisma.sql`${data.workspaceId}::uuid`,
        componentId: Prisma.raw('created."componentId"'),
        from: Prisma.sql`${now}::timestamptz`,
        to: Prisma.sql`${now}::timestamptz`,
      })} AS "workspaceWindows"
    FROM created`,
  );
  const { workspaceWindows, ...created } = inserted!;
  return {
    row: created,
    workspaceWindows: coveringWindows(workspaceWindows),
  };
}
