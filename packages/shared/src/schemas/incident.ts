import { z } from 'zod';
import { uuidInputSchema } from './input-fields.js';
import { shownText } from './shown-text.js';

export const INCIDENT_UPDATE_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
export type IncidentUpdateStatus = (typeof INCIDENT_UPDATE_STATUSES)[number];

/** An update's stage in words, as status pages and subscriber messages show it. */
export const INCIDENT_UPDATE_LABELS: Readonly<Record<IncidentUpdateStatus, string>> = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
};

/** POST /incidents/{id}/updates */
export const incidentUpdateInputSchema = z
  .object({
    status: z.enum(INCIDENT_UPDATE_STATUSES),
    message: z.string().trim().min(1).max(5000),
  })
  .strict();
export type IncidentUpdateInput = z.output<typeof incidentUpdateInputSchema>;

/** POST /incidents: a manual incident. */
export const manualIncidentInputSchema = z
  .object({
    title: z.string().trim().min(1).max(300).superRefine(shownText),
    impact: z.enum(['none', 'minor', 'major', 'critical']).default('major'),
    componentIds: z.array(uuidInputSchema).max(200).optional(),
    message: z.string().trim().min(1).max(5000).optional(),
  })
  .strict();
export type ManualIncidentInput = z.output<typeof manualIncidentInputSchema>;
