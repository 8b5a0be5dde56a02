import { eventPageSchema } from '../../services/events/event-record.js';
import { listEvents, listEventsQuerySchema } from '../../services/events/list-events.js';
import { defineRoute } from '../define-route.js';

export const eventRoutes = [
  defineRoute({
    method: 'get',
    path: '/events',
    operationId: 'listEvents',
    roles: 'read',
    tag: 'Events',
    summary: 'Read the event log',
    description:
      "The workspace's events, oldest first, as CloudEvents 1.0: `incident.opened|acknowledged|resolved|updated`, " +
      '`monitor.status_changed|created|updated|deleted`, `maintenance.started|completed|cancelled` (the `type` attribute ' +
      'carries the prefix `com.statusvane.`). Kept 30 days. Poll with `after` = the last `nextCursor` forever: the log is ' +
      'ordered and durable (each event is written in the transaction of the change), and a cursor never passes an event ' +
      'that commits later. `types` filters (comma list of the short names); `limit` 1 to 500 (default 100). A `after` ' +
      "that is not a cursor: 400. Events never carry a secret: a monitor's `pingUrl` (its path is the ping secret) and " +
      'any other secret field show `"<redacted>"`; read the monitor for its ping URL.',
    request: { query: listEventsQuerySchema },
    responses: {
      200: { description: 'Events after the cursor and the cursor to continue from.', body: eventPageSchema },
    },
    handler: (deps, { ctx, query }) => listEvents(deps, { ctx, input: query }),
  }),
];
