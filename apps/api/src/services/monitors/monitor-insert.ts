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

const RETURNING = Object.keys(monitorRecordSelect)
  .map((c) => `"${c}"`)
  .join(', ');

/** A column's value in the rows' JSON: jsonb_populate_recordset reads JSON null as SQL NULL. */
function jsonValue(column: string, value: unknown): unknown {
  if (value === Prisma.DbNull || value === null) return null;
  // JSON null in a jsonb column: no create stores one (monitorCreateData gives DbNull), and the rows' JSON cannot.
  if (value === Prisma.JsonNull || value === Prisma.AnyNull) throw new Error(`insertMonitors: JSON null in ${column}`);
  return value;
}

/** What insertMonitors returns for each row: the record's columns, and the maintenance that covers the new monitor. */
export interface InsertedMonitor {
  row: MonitorRow;
  /**
   * The windows (not cancelled) of its workspace that cover the new component at some instant of `during`
   * (coveringWindowsJson): whole-workspace ones only, as its component is created in this statement.
   * maintenanceCoverage judges them exactly, at each create's clock.
   */
  workspaceWindows: CoverageWindow[];
}

/**
 * New monitors and their public components: for the rows that set the same columns (one shape per monitor type and
 * optional field set), one statement, whatever their number (POST /monitors groups concurrent creates:
 * docs/adr/0022-group-commit-of-creates.md). The rows travel as one JSON array, read by jsonb_populate_recordset with
 * the monitors row type (PostgreSQL types each value by its column, as the casts of a VALUES list would); the
 * components are inserted in a data-modifying CTE, checked by the monitors' foreign key at the statement's end. The
 * statement returns the columns of a record and reads the whole-workspace windows that cover some instant of `during`:
 * what `component.create` then `monitor.create({ data, select: monitorRecordSelect })` did in two round trips per
 * monitor and two compiled ORM calls, which cost POST /monitors several times the CPU of this statement. In a
 * hotTransaction it is a hot statement (sqlRows): its text depends only on the shape. Answers in the order of `rows`.
 */
export async function insertMonitors(
  tx: SqlTransaction,
  rows: readonly Prisma.MonitorUncheckedCreateInput[],
  during: { from: Date; to: Date },
): Promise<InsertedMonitor[]> {
  const createdAt = new Date();
  const shapes = new Map<string, Array<Record<string, unknown>>>();
  const ids: string[] = [];
  for (const data of rows) {
    // The values Prisma's client fills in on create: @default(uuid()), @default(now()) and @updatedAt.
    const row: Record<string, unknown> = { id: randomUUID(), createdAt, updatedAt: createdAt, ...data };
    for (const c of Object.keys(row)) if (row[c] === undefined) delete row[c];
    ids.push(row.id as string);
    const shape = Object.keys(row).sort().join(',');
    let same = shapes.get(shape);
    if (!same) shapes.set(shape, (same = []));
    same.push(Object.fromEntries(Object.entries(row).map(([c, v]) => [c, jsonValue(c, v)])));
  }
  const inserted = new Map<string, InsertedMonitor>();
  for (const [shape, same] of shapes) {
    const columns = shape
      .split(',')
      .map((c) => `"${c}"`)
      .join(', ');
    const found = await sqlRows<
      MonitorRow & { workspaceWindows: CoveringWindowJson[] | null; insertedInWorkspace: string }
    >(
      tx,
      Prisma.sql`
      WITH input AS (
        SELECT * FROM jsonb_populate_recordset(NULL::monitors, ${JSON.stringify(same)}::jsonb)
      ), component AS (
        INSERT INTO components (id, "workspaceId", name, "createdAt")
        SELECT "componentId", "workspaceId", name, "createdAt" FROM input
      ), created AS (
        INSERT INTO monitors (${Prisma.raw(columns)})
        SELECT ${Prisma.raw(columns)} FROM input
        RETURNING ${Prisma.raw(RETURNING)}, "workspaceId" AS "insertedInWorkspace"
      )
      SELECT created.*,
        ${coveringWindowsJson({
          workspaceId: Prisma.raw('created."insertedInWorkspace"'),
          componentId: Prisma.raw('created."componentId"'),
          from: Prisma.sql`${during.from}::timestamptz`,
          to: Prisma.sql`${during.to}::timestamptz`,
        })} AS "workspaceWindows"
      FROM created`,
    );
    for (const { workspaceWindows, insertedInWorkspace: _, ...row } of found) {
      inserted.set(row.id, { row, workspaceWindows: coveringWindows(workspaceWindows) });
    }
  }
  return ids.map((id) => inserted.get(id)!);
}
