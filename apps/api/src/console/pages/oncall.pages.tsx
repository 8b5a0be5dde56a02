import { z } from 'zod';
import {
  AppError,
  channelTargetSchema,
  DELIVERY_CHANNELS,
  instantOfWallClock,
  issuesFromZod,
  ValidationError,
  type DeliveryChannel,
  type Issue,
} from '@statusvane/shared';
import { can } from '../../services/auth/permissions.js';
import { sessionUserContext } from '../../services/auth/session-context.js';
import { listMembers } from '../../services/members/list-members.js';
import { addOverride } from '../../services/schedules/add-override.js';
import { createCalendarToken } from '../../services/schedules/create-calendar-token.js';
import { deleteCalendarToken } from '../../services/schedules/delete-calendar-token.js';
import { getOnCall } from '../../services/schedules/get-oncall.js';
import { getSchedule } from '../../services/schedules/get-schedule.js';
import { listOnCall } from '../../services/schedules/list-oncall.js';
import { listOverrides } from '../../services/schedules/list-overrides.js';
import { listSchedules } from '../../services/schedules/list-schedules.js';
import { listShifts } from '../../services/schedules/list-shifts.js';
import { removeOverride } from '../../services/schedules/remove-override.js';
import { addOverrideSchema } from '../../services/schedules/schedule-input.js';
import { CONTACT_METHODS_MAX } from '../../services/users/contact-method-record.js';
import { listContactMethods } from '../../services/users/list-contact-methods.js';
import { addContactMethod, removeContactMethod } from '../../services/users/update-contact-methods.js';
import { LinkButton } from '../../views/components/button.js';
import { ConsoleLayout, type FlashMessage } from '../../views/layout.js';
import { isStaleVersion, staleFlash, withFormVersion } from '../page-forms.js';
import { definePage, type PageAnswer, type PageDef, type UserRequest, type WorkspaceRequest } from '../define-page.js';
import { ContactMethodsView, type MethodFormState } from '../oncall/contact-method-views.js';
import { localMidnights } from '../oncall/oncall-format.js';
import { CONTACT_METHODS_PATH, ScheduleList, ScheduleView, type OverrideFormState } from '../oncall/schedule-views.js';

/** The on-call pages show this many days ahead (beyond-the-seed §10: "a schedule's next two weeks"). */
const DAYS_AHEAD = 14;
/** Lists read in one page: a workspace has a handful of schedules and members, and never more than this shows. */
const ALL = { page: 1, perPage: 250 };

const NOTICES: Record<string, FlashMessage> = {
  'override-added': { kind: 'notice', text: 'Override added.' },
  'override-removed': { kind: 'notice', text: 'Override removed.' },
  'method-added': { kind: 'notice', text: 'Contact method added: pages reach you there from now on.' },
  'method-removed': { kind: 'notice', text: 'Contact method removed.' },
  'feed-revoked': { kind: 'notice', text: 'Calendar feed revoked: its URL no longer answers.' },
};

/** A page's query: strict like the API's (an unknown parameter is a 400 page). */
function pageQuery<S extends z.ZodRawShape>(shape: S, query: Record<string, unknown>): z.output<z.ZodObject<S>> {
  const parsed = z.object(shape).strict().safeParse(query);
  if (!parsed.success)
    throw new ValidationError('This address has a parameter the page does not know.', issuesFromZod(parsed.error));
  return parsed.data;
}
const doneParam = (...allowed: [string, ...string[]]) => z.enum(allowed).optional();

/**
 * Each field's first issue, by the field's name (with prefix `method.`, `method.target` is `target`); an issue of the
 * whole (`method` itself, or no path) is the form's.
 */
function fieldErrors(issues: readonly Issue[], prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of issues) {
    const path = i.path === prefix.slice(0, -1) ? '' : i.path.startsWith(prefix) ? i.path.slice(prefix.length) : i.path;
    const field = path.split(/[.[]/)[0] || 'form';
    out[field] ??= i.message;
  }
  return out;
}

const issuesOf = (err: unknown): Issue[] | null =>
  err instanceof ValidationError ? ((err.details?.issues as Issue[] | undefined) ?? []) : null;

// --- The workspace's schedules -------------------------------------------------------------------------------------

async function scheduleListPage(req: WorkspaceRequest): Promise<PageAnswer> {
  pageQuery({}, req.query);
  const [schedules, onCall, members, methods] = await Promise.all([
    listSchedules(req.deps, { ctx: req.ctx, input: ALL }),
    listOnCall(req.deps, { ctx: req.ctx, input: {} }),
    listMembers(req.deps, { ctx: req.ctx, input: ALL }),
    listContactMethods(req.deps, { ctx: sessionUserContext(req.session, req.now), input: {} }),
  ]);
  return {
    view: (
      <ConsoleLayout chrome={req.chrome} title="On call" section="oncall">
        <div class="page-header">
          <div>
            <h1>On call</h1>
            <p>Who gets paged now, schedule by schedule.</p>
          </div>
          <LinkButton href={CONTACT_METHODS_PATH}>Your contact methods</LinkButton>
        </div>
        {methods.length === 0 && (
          <p class="callout" role="note">
            You have no contact method: a page meant for you is skipped. <a href={CONTACT_METHODS_PATH}>Add one</a>.
          </p>
        )}
        <ScheduleList base={req.base} schedules={schedules.data} onCall={onCall} members={members.data} now={req.now} />
      </ConsoleLayout>
    ),
  };
}

/** What one schedule's page shows besides the form: read through the API's verbs with the member's ctx. */
async function scheduleState(req: WorkspaceRequest) {
  const id = req.params.id!;
  const schedule = await getSchedule(req.deps, { ctx: req.ctx, input: { id } });
  const midnights = localMidnights(schedule.timezone, req.now, DAYS_AHEAD);
  const [onCall, shifts, overrides, members] = await Promise.all([
    getOnCall(req.deps, { ctx: req.ctx, input: { id } }),
    listShifts(req.deps, { ctx: req.ctx, input: { id, query: { from: midnights[0]!, to: midnights.at(-1)! } } }),
    listOverrides(req.deps, { ctx: req.ctx, input: { id, query: ALL } }),
    listMembers(req.deps, { ctx: req.ctx, input: ALL }),
  ]);
  return { schedule, midnights, onCall, shifts, overrides: overrides.data, members: members.data };
}

async function schedulePage(
  req: WorkspaceRequest,
  opts: { status?: number; flash?: FlashMessage | null; form?: OverrideFormState; feedUrl?: string } = {},
): Promise<PageAnswer> {
  const state = await scheduleState(req);
  const role = req.ctx.role;
  return {
    ...(opts.status ? { status: opts.status } : {}),
    view: (
      <ConsoleLayout chrome={req.chrome} title={state.schedule.name} section="oncall" flash={opts.flash}>
        <ScheduleView
          base={req.base}
          csrf={req.csrf}
          now={req.now}
          {...state}
          selfId={req.session.user.id}
          override={can(role, 'schedules:manage') ? 'anyone' : can(role, 'schedules:override') ? 'self' : 'none'}
          form={opts.form}
          manageFeed={can(role, 'schedules:manage')}
          feedUrl={opts.feedUrl}
        />
      </ConsoleLayout>
    ),
  };
}

/**
 * Adds an override as POST /schedules/{id}/overrides does, the times read on the schedule's wall clock. A 400 comes
 * back to the page with each issue beside its field and the typed values kept.
 */
async function addOverrideForm(req: WorkspaceRequest): Promise<PageAnswer> {
  const id = req.params.id!;
  const values = { userId: req.form.userId ?? '', startsAt: req.form.startsAt ?? '', endsAt: req.form.endsAt ?? '' };
  const { timezone } = await getSchedule(req.deps, { ctx: req.ctx, input: { id } });
  const issues: Issue[] = [];
  const instant = (field: 'startsAt' | 'endsAt') => {
    const at = instantOfWallClock(timezone, values[field]);
    if (!at) issues.push({ path: field, message: 'must be a date and time' });
    return at?.toISOString();
  };
  const raw = { userId: values.userId, startsAt: instant('startsAt'), endsAt: instant('endsAt') };
  const parsed = addOverrideSchema.safeParse(raw);
  if (!parsed.success)
    issues.push(...issuesFromZod(parsed.error).filter((i) => !issues.some((j) => j.path === i.path)));
  try {
    if (issues.length === 0 && parsed.success)
      await addOverride(req.deps, { ctx: req.ctx, input: { id, override: parsed.data } });
  } catch (err) {
    const found = issuesOf(err);
    if (!found) throw err;
    issues.push(...found);
  }
  if (issues.length)
    return schedulePage(req, {
      status: 400,
      flash: { kind: 'error', text: 'The override was not added: see below.' },
      // The API's words name its fields; the form's are "From" and "To".
      form: {
        values,
        errors: fieldErrors(issues.map((i) => ({ ...i, message: i.message.replace('startsAt', 'the start') }))),
      },
    });
  return { redirect: `${req.base}/oncall/${id}?done=override-added#overrides` };
}

/**
 * Removes an override, the form's `version` of the schedule as If-Match: when the schedule changed since the page
 * was drawn, 409 and the page as it is now.
 */
async function removeOverrideForm(req: WorkspaceRequest): Promise<PageAnswer> {
  const id = req.params.id!;
  const version = Number(req.form.version);
  try {
    await removeOverride(req.deps, {
      ctx: { ...req.ctx, ifMatch: Number.isSafeInteger(version) && version > 0 ? [version] : [] },
      input: { id, overrideId: req.params.overrideId! },
    });
  } catch (err) {
    if (err instanceof AppError && err.code === 'precondition_failed')
      return schedulePage(req, {
        status: 409,
        flash: {
          kind: 'error',
          text: 'The schedule changed since the page was shown, so nothing was removed. Here it is as it is now.',
        },
      });
    throw err;
  }
  return { redirect: `${req.base}/oncall/${id}?done=override-removed#overrides` };
}

/** Makes (or replaces) the schedule's calendar feed as POST /schedules/{id}/calendar-token does: the URL shown once. */
async function createFeedForm(req: WorkspaceRequest): Promise<PageAnswer> {
  const { url } = await createCalendarToken(req.deps, { ctx: req.ctx, input: { id: req.params.id! } });
  return schedulePage(req, {
    flash: { kind: 'notice', text: 'Calendar feed made: copy its URL below. Any older URL of this schedule stopped.' },
    ...(url ? { feedUrl: url } : {}),
  });
}

/**
 * Revokes the feed as DELETE /schedules/{id}/calendar-token does, the form's `version` of the schedule as If-Match
 * (a stale one: 409 and the page as it is now). A feed already gone is what was asked: done.
 */
async function revokeFeedForm(req: WorkspaceRequest): Promise<PageAnswer> {
  const id = req.params.id!;
  try {
    await deleteCalendarToken(req.deps, { ctx: withFormVersion(req.ctx, req.form), input: { id } });
  } catch (err) {
    if (isStaleVersion(err)) return schedulePage(req, { status: 409, flash: staleFlash('The schedule') });
    if (!(err instanceof AppError && err.code === 'not_found' && /calendar feed/.test(err.message))) throw err;
  }
  return { redirect: `${req.base}/oncall/${id}?done=feed-revoked#calendar-feed` };
}

/** The workspace's on-call pages: the schedules with who is on call, and one schedule's two weeks and overrides. */
export function oncallPages(): PageDef[] {
  return [
    definePage({ method: 'get', path: '/oncall', access: 'workspace', handler: scheduleListPage }),
    definePage({
      method: 'get',
      path: '/oncall/:id',
      access: 'workspace',
      handler: async (req) => {
        const { done } = pageQuery(
          { done: doneParam('override-added', 'override-removed', 'feed-revoked') },
          req.query,
        );
        return schedulePage(req, { flash: done ? NOTICES[done] : null });
      },
    }),
    definePage({
      method: 'post',
      path: '/oncall/:id/overrides',
      access: 'workspace',
      permission: 'schedules:override',
      handler: addOverrideForm,
    }),
    definePage({
      method: 'post',
      path: '/oncall/:id/overrides/:overrideId/remove',
      access: 'workspace',
      permission: 'schedules:override',
      handler: removeOverrideForm,
    }),
    definePage({
      method: 'post',
      path: '/oncall/:id/calendar-feed',
      access: 'workspace',
      permission: 'schedules:manage',
      handler: createFeedForm,
    }),
    definePage({
      method: 'post',
      path: '/oncall/:id/calendar-feed/revoke',
      access: 'workspace',
      permission: 'schedules:manage',
      handler: revokeFeedForm,
    }),
  ];
}

// --- The person's contact methods ----------------------------------------------------------------------------------

const channelParam = z.enum(DELIVERY_CHANNELS).optional();

async function contactMethodsPage(
  req: UserRequest,
  opts: { status?: number; channel?: DeliveryChannel; flash?: FlashMessage | null; form?: MethodFormState } = {},
): Promise<PageAnswer> {
  const methods = await listContactMethods(req.deps, { ctx: sessionUserContext(req.session, req.now), input: {} });
  return {
    ...(opts.status ? { status: opts.status } : {}),
    view: (
      <ConsoleLayout chrome={req.chrome} title="Your contact methods" section="account" flash={opts.flash}>
        <ContactMethodsView
          csrf={req.csrf}
          methods={methods}
          channel={opts.channel ?? 'email'}
          form={opts.form}
          max={CONTACT_METHODS_MAX}
        />
      </ConsoleLayout>
    ),
  };
}

/** The fields of the chosen channel's form as the target the API takes (`PUT /me/contact-methods`). */
function methodOf(form: Record<string, string>): Record<string, string> {
  const channel = form.channel ?? '';
  const pick = (...names: string[]) => Object.fromEntries(names.map((n) => [n, (form[n] ?? '').trim()]));
  if (channel === 'pagerduty') return { channel, ...pick('routingKey') };
  if (channel === 'opsgenie') return { channel, ...pick('apiKey') };
  if (channel === 'telegram') return { channel, ...pick('botToken', 'chatId') };
  return { channel, ...pick('target') };
}

/** A person's contact methods (`/app/account/contact-methods`): theirs in every workspace, as `/me/*` is. */
export function contactMethodPages(): PageDef[] {
  return [
    definePage({
      method: 'get',
      path: '/account/contact-methods',
      access: 'user',
      handler: async (req) => {
        const { channel, done } = pageQuery(
          { channel: channelParam, done: doneParam('method-added', 'method-removed') },
          req.query,
        );
        return contactMethodsPage(req, { ...(channel ? { channel } : {}), flash: done ? NOTICES[done] : null });
      },
    }),
    definePage({
      method: 'post',
      path: '/account/contact-methods',
      access: 'user',
      handler: async (req) => {
        const raw = methodOf(req.form);
        const channel = channelParam.safeParse(raw.channel).data ?? 'email';
        const parsed = channelTargetSchema.safeParse(raw);
        let issues: Issue[] = parsed.success ? [] : issuesFromZod(parsed.error);
        if (parsed.success) {
          try {
            await addContactMethod(
              { ...req.deps, keyring: req.deps.config.encryption },
              { ctx: sessionUserContext(req.session, req.now), input: { method: parsed.data } },
            );
          } catch (err) {
            issues = issuesOf(err) ?? [];
            if (!issues.length) throw err;
          }
        }
        if (issues.length)
          return contactMethodsPage(req, {
            status: 400,
            channel,
            flash: { kind: 'error', text: 'The contact method was not added: see below.' },
            form: { values: raw, errors: fieldErrors(issues, 'method.') },
          });
        return { redirect: `${CONTACT_METHODS_PATH}?done=method-added` };
      },
    }),
    definePage({
      method: 'post',
      path: '/account/contact-methods/:id/remove',
      access: 'user',
      handler: async (req) => {
        await removeContactMethod(
          { ...req.deps, keyring: req.deps.config.encryption },
          { ctx: sessionUserContext(req.session, req.now), input: { id: req.params.id! } },
        );
        return { redirect: `${CONTACT_METHODS_PATH}?done=method-removed` };
      },
    }),
  ];
}
