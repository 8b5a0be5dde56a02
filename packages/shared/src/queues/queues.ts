import { z } from 'zod';

/** One check queue per probe region; a worker consumes only its own region's queue. */
export function checkQueueName(region: string): string {
  return `checks-${region}`;
}

export const CHECK_JOB_NAME = 'check';

/** Fixed per monitor and region, so upserting the same monitor twice never makes two schedules. */
export function schedulerId(monitorId: string, region: string): string {
  return `monitor:${monitorId}:${region}`;
}

export function parseSchedulerId(id: string): { monitorId: string; region: string } | null {
  const m = /^monitor:([0-9a-f-]{36}):([a-z0-9-]+)$/.exec(id);
  return m ? { monitorId: m[1]!, region: m[2]! } : null;
}

/** The payload of a scheduled check; workers re-parse it at the boundary. */
export const checkJobSchema = z.object({ monitorId: z.uuid(), region: z.string().min(1).max(40) }).strict();
export type CheckJob = z.infer<typeof checkJobSchema>;

/**
 * The queue of a region's partition schedulers (docs/adr/0020-partitioned-scheduling.md): a queue of its own, so that
 * workers of the previous release, which cannot parse a `partition` job, never read one during a rolling deploy.
 */
export function partitionQueueName(region: string): string {
  return `checks-${region}-p`;
}

export const PARTITION_JOB_NAME = 'partition';

/** A partition: the monitors checked in `region` every `everyMs` at `offsetMs` within the interval. */
export interface Partition {
  everyMs: number;
  offsetMs: number;
  region: string;
}

/** Fixed per partition, so upserting a partition's scheduler twice never makes two schedules. */
export function partitionSchedulerId(p: Partition): string {
  return `part:${p.everyMs}:${p.offsetMs}:${p.region}`;
}

export function parsePartitionSchedulerId(id: string): Partition | null {
  const m = /^part:(\d+):(\d+):([a-z0-9-]+)$/.exec(id);
  return m ? { everyMs: Number(m[1]), offsetMs: Number(m[2]), region: m[3]! } : null;
}

/** The payload of a partition's scheduled job; workers re-parse it at the boundary. */
export const partitionJobSchema = z
  .object({
    everyMs: z.number().int().positive(),
    offsetMs: z.number().int().positive(),
    region: z.string().min(1).max(40),
  })
  .strict();
export type PartitionJob = z.infer<typeof partitionJobSchema>;
