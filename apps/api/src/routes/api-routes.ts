import { accessRoutes } from './access/access.routes.js';
import { auditEventRoutes } from './audit-events/audit-events.routes.js';
import { componentRoutes } from './components/components.routes.js';
import { escalationPolicyRoutes } from './escalation-policies/escalation-policies.routes.js';
import { configRoutes } from './config/config.routes.js';
import type { ApiRoute } from './define-route.js';
import { eventRoutes } from './events/events.routes.js';
import { incidentRoutes } from './incidents/incidents.routes.js';
import { maintenanceRoutes } from './maintenance/maintenance.routes.js';
import { monitorRoutes } from './monitors/monitors.routes.js';
import { secretRoutes } from './secrets/secrets.routes.js';
import { reportRoutes } from './reports/reports.routes.js';
import { settingsRoutes } from './settings/settings.routes.js';
import { webhookRoutes } from './webhooks/webhooks.routes.js';
import { meRoutes } from './me/me.routes.js';
import { scheduleRoutes } from './schedules/schedules.routes.js';
import { statusPageRoutes } from './status-pages/status-pages.routes.js';
import { wallTokenRoutes } from './wall-tokens/wall-tokens.routes.js';

/**
 * Every operation of the management API, in the order the document lists them. app.ts serves this list, the OpenAPI
 * document describes it, and the cross-workspace and fuzz suites walk it: a resource's routes file added here is
 * served, documented and tested at once.
 */
export const API_ROUTES: readonly ApiRoute[] = [
  ...maintenanceRoutes,
  ...monitorRoutes,
  ...componentRoutes,
  ...statusPageRoutes,
  ...incidentRoutes,
  ...escalationPolicyRoutes,
  ...scheduleRoutes,
  ...meRoutes,
  ...configRoutes,
  ...accessRoutes,
  ...wallTokenRoutes,
  ...auditEventRoutes,
  ...eventRoutes,
  ...webhookRoutes,
  ...secretRoutes,
  ...reportRoutes,
  ...settingsRoutes,
];
