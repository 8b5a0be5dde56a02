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
