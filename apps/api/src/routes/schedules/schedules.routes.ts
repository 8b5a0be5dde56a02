import { paginationQuerySchema } from '@statusvane/shared';
import { z } from '../../schemas/zod.js';
import { addOverride } from '../../services/schedules/add-override.js';
import { createCalendarToken, calendarTokenRecordSchema } from '../../services/schedules/create-calendar-token.js';
import { createSchedule } from '../../services/schedules/create-schedule.js';
import { deleteCalendarToken } from '../../services/schedules/delete-calendar-token.js';
import { deleteSchedule } from '../../services/schedules/delete-schedule.js';
import { getOnCall } from '../../services/schedules/get-oncall.js';
import { getSchedule } from '../../services/schedules/get-schedule.js';
import { listOnCall } from '../../services/schedules/list-oncall.js';
import { listOverrides } from '../../services/schedules/list-overrides.js';
import { listSchedules } from '../../services/schedules/list-schedules.js';
import { listShifts } from '../../services/schedules/list-shifts.js';
import { removeOverride } from '../../services/schedules/remove-override.js';
import {
  addOverrideSchema,
  createScheduleSchema,
  onCallQuerySchema,
  shiftsQuerySchema,
  updateScheduleSchema,
} from '../../services/schedules/schedule-input.js';
import {
  onCallRecordSchema,
  overrideRecordSchema,
  scheduleOnCallRecordSchema,
  scheduleRecordSchema,
  shiftRecordSchema,
} from '../../services/schedules/schedule-record.js';
import { updateSchedule } from '../../services/schedules/update-schedule.js';
import { defineRoute, KEY_IN_FLIGHT } from '../define-route.js';

const EXAMPLE = {
  name: 'Platform primary',
  timezone: 'Europe/Berlin',
  fallbackUserId: '0b5c2f8e-3c39-4f5e-9a55-0d9c3c1e2a10',
  layers: [
    {
      name: 'Weekly',
      startsAt: '2026-12-07T09:00:00+01:00',
      rotation: { every: 1, unit: 'weeks' },
      handoffTime: '09:00',
      members: ['6f1c8f8a-2b7d-4e0a-9c43-1f6a7f1d9e21', '9a0e3c55-7d2b-41f4-8f0e-2a6b1c9d8e33'],
    },
    {
      name: 'Nights',
      startsAt: '2026-12-07T09:00:00+01:00',
      rotation: { every: 1, unit: 'days' },
      handoffTime: '22:00',
      members: ['2d4f6a8c-1b3e-4d5f-8a9b-0c1d2e3f4a5b'],
      restrictions: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '22:00', to: '07:00' }],
    },
  ],
};

export const scheduleRoutes = [
  defineRoute({
    method: 'post',
    path: '/schedules',
    operationId: 'createSchedule',
    roles: 'schedules:manage',
    tag: 'On-call',
    summary: 'Create an on-call schedule',
    description:
      'Layers of rotations in one IANA timezone. `startsAt` is the first handoff; `hours` rotations move by elapsed time, ' +
      "`days` and `weeks` at `handoffTime` on the schedule's wall clock, across daylight-saving changes (a time the clock " +
      'skips is the end of the jump; a repeated one, its first occurrence). Restrictions limit a layer to weekly windows ' +
      '(one may cross midnight). A later layer wins wherever it has someone; overrides win over layers. Members and the ' +
      'fallback must be members of the workspace (400).',
    request: {
      body: {
        schema: createScheduleSchema,
        examples: { twoLayers: { summary: 'Weekly, nights on top', value: EXAMPLE } },
      },
    },
    idempotent: true,
    responses: { 201: { description: 'The schedule.', data: scheduleRecordSchema }, 409: KEY_IN_FLIGHT },
    handler: (deps, { ctx, body }) => createSchedule(deps, { ctx, input: body }),
  }),
  defineRoute({
    method: 'get',
    path: '/schedules',
    operationId: 'listSchedules',
    roles: 'read',
    tag: 'On-call',
    summary: 'List schedules',
    description: "The workspace's schedules, oldest first.",
    request: { query: paginationQuerySchema },
    responses: { 200: { description: 'A page of schedules.', page: scheduleRecordSchema } },
    handler: (deps, { ctx, query }) => listSchedules(deps, { ctx, input: query }),
  }),
  defineRoute({
    method: 'get',
    path: '/schedules/{id}',
    operationId: 'getSchedule',
    roles: 'read',
    tag: 'On-call',
    summary: 'Get a schedule',
    description: 'The schedule with its layers.',
    responses: { 200: { description: 'The schedule.', data: scheduleRecordSchema } },
    handler: (deps, { ctx, params }) => getSchedule(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'patch',
    path: '/schedules/{id}',
    operationId: 'updateSchedule',
    roles: 'schedules:manage',
    tag: 'On-call',
    summary: 'Update a schedule',
    description: 'Only the given fields change; `layers` replaces every layer. Overrides stay.',
    request: {
      body: { schema: updateScheduleSchema, examples: { rename: { summary: 'Rename', value: { name: 'Platform' } } } },
    },
    responses: { 200: { description: 'The updated schedule.', data: scheduleRecordSchema } },
    handler: (deps, { ctx, params, body }) => updateSchedule(deps, { ctx, input: { id: params.id, changes: body } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/schedules/{id}',
    operationId: 'deleteSchedule',
    roles: 'schedules:manage',
    tag: 'On-call',
    summary: 'Delete a schedule',
    description:
      'Its layers, overrides and calendar feed go with it. A schedule an escalation policy pages is refused (409): ' +
      'remove it from the policy first.',
    responses: {
      204: { description: 'Deleted.' },
      409: {
        description: 'an escalation policy pages the schedule.',
        example: 'The schedule is paged by escalation policies: "On call" (…); remove it from their steps first',
      },
    },
    handler: (deps, { ctx, params }) => deleteSchedule(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'get',
    path: '/schedules/{id}/overrides',
    operationId: 'listScheduleOverrides',
    roles: 'read',
    tag: 'On-call',
    summary: 'List overrides',
    description: 'The overrides that have not ended yet, soonest first.',
    request: { query: paginationQuerySchema },
    responses: { 200: { description: 'A page of overrides.', page: overrideRecordSchema } },
    handler: (deps, { ctx, params, query }) => listOverrides(deps, { ctx, input: { id: params.id, query } }),
  }),
  defineRoute({
    method: 'post',
    path: '/schedules/{id}/overrides',
    operationId: 'addScheduleOverride',
    roles: 'schedules:override',
    tag: 'On-call',
    summary: 'Add an override',
    description:
      '`userId` is on call from `startsAt` to `endsAt` (at most 90 days) whatever the layers say; where overrides overlap, ' +
      'the newest wins. Managers add them for anyone; another writer only for themselves (403). The user must be a member ' +
      '(400). Counts as a change of the schedule (its version grows; audited as `schedule.override_added`).',
    request: {
      body: {
        schema: addOverrideSchema,
        examples: {
          cover: {
            summary: 'Cover an evening',
            value: {
              userId: '6f1c8f8a-2b7d-4e0a-9c43-1f6a7f1d9e21',
              startsAt: '2026-12-10T18:00:00+01:00',
              endsAt: '2026-12-11T08:00:00+01:00',
            },
          },
        },
      },
    },
    idempotent: true,
    responses: { 201: { description: 'The override.', data: overrideRecordSchema }, 409: KEY_IN_FLIGHT },
    handler: (deps, { ctx, params, body }) => addOverride(deps, { ctx, input: { id: params.id, override: body } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/schedules/{id}/overrides/{overrideId}',
    operationId: 'removeScheduleOverride',
    roles: 'schedules:override',
    tag: 'On-call',
    summary: 'Remove an override',
    description:
      "Managers remove any override; another writer only their own (403). `If-Match` names the schedule's version.",
    responses: { 204: { description: 'Removed.' } },
    handler: (deps, { ctx, params }) => removeOverride(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'get',
    path: '/schedules/{id}/oncall',
    operationId: 'getScheduleOnCall',
    roles: 'read',
    tag: 'On-call',
    summary: 'Who is on call',
    description:
      'Who is on call at `at` (default now), through which layer or override, and the shift it is part of (`from`, `to`; ' +
      'null beyond 90 days). `user: null`: nobody (a page goes to the fallback).',
    request: { query: onCallQuerySchema },
    responses: { 200: { description: 'Who is on call.', data: onCallRecordSchema } },
    handler: (deps, { ctx, params, query }) => getOnCall(deps, { ctx, input: { id: params.id, at: query.at } }),
  }),
  defineRoute({
    method: 'get',
    path: '/schedules/{id}/shifts',
    operationId: 'listScheduleShifts',
    roles: 'read',
    tag: 'On-call',
    summary: 'Resolved shifts',
    description:
      "The shifts of [`from`, `to`) in order (default the next 14 days; at most 90 days, else 400), each one person's " +
      'stretch with its layer or override, cut to the range; times when nobody is on call are left out.',
    request: { query: shiftsQuerySchema },
    responses: { 200: { description: 'The shifts, in order.', data: z.array(shiftRecordSchema) } },
    handler: (deps, { ctx, params, query }) => listShifts(deps, { ctx, input: { id: params.id, query } }),
  }),
  defineRoute({
    method: 'get',
    path: '/oncall',
    operationId: 'listOnCall',
    roles: 'read',
    tag: 'On-call',
    summary: 'Who is on call now, everywhere',
    description: 'Who is on call now in every schedule of the workspace.',
    responses: { 200: { description: 'One entry per schedule.', data: z.array(scheduleOnCallRecordSchema) } },
    handler: (deps, { ctx }) => listOnCall(deps, { ctx, input: {} }),
  }),
  defineRoute({
    method: 'post',
    path: '/schedules/{id}/calendar-token',
    operationId: 'createScheduleCalendarToken',
    roles: 'schedules:manage',
    tag: 'On-call',
    summary: 'Create the calendar feed URL of a schedule',
    description:
      'An iCalendar feed of the next 90 days of shifts at `<PUBLIC_BASE_URL>/ical/<token>.ics`, for any calendar app. The ' +
      'URL is its secret and is shown in this answer only (a replay of the `Idempotency-Key` answers `url: null`); a new one ' +
      'replaces the previous URL, which stops working.',
    idempotent: true,
    responses: {
      201: { description: 'The feed URL, shown once.', data: calendarTokenRecordSchema },
      409: KEY_IN_FLIGHT,
    },
    handler: (deps, { ctx, params }) => createCalendarToken(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'delete',
    path: '/schedules/{id}/calendar-token',
    operationId: 'deleteScheduleCalendarToken',
    roles: 'schedules:manage',
    tag: 'On-call',
    summary: 'Revoke the calendar feed URL of a schedule',
    description: 'The feed answers 404 from now on. No feed: 404.',
    responses: { 204: { description: 'Revoked.' } },
    handler: (deps, { ctx, params }) => deleteCalendarToken(deps, { ctx, input: params }),
  }),
];
