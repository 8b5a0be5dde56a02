import { INCIDENT_UPDATE_STATUSES } from '@statusvane/shared';
import { dateTime, z } from '../../schemas/zod.js';

export const incidentUpdateRecordSchema = z
  .object({
    id: z.uuid(),
    incidentId: z.uuid(),
    status: z.enum(INCIDENT_UPDATE_STATUSES),
    message: z.string(),
    createdAt: dateTime,
  })
  .openapi('IncidentUpdate');
export type IncidentUpdateRecord = z.infer<typeof incidentUpdateRecordSchema>;

export const incidentUpdateSelect = {
  id: true,
  incidentId: true,
  status: true,
  message: true,
  createdAt: true,
} as const;

export function toIncidentUpdateRecord(u: {
  id: string;
  incidentId: string;
  status: IncidentUpdateRecord['status'];
  message: string;
  createdAt: Date;
}): IncidentUpdateRecord {
  return {
    id: u.id,
    incidentId: u.incidentId,
    status: u.status,
    message: u.message,
    createdAt: u.createdAt.toISOString(),
  };
}
