import type { MemberRecord } from '../../services/members/member-record.js';
import type {
  OnCallRecord,
  OverrideRecord,
  ScheduleOnCallRecord,
  ScheduleRecord,
  ShiftRecord,
} from '../../services/schedules/schedule-record.js';
import { Button, LinkButton } from '../../views/components/button.js';
import { EmptyState } from '../../views/components/empty-state.js';
import { Field, PostForm, SelectField } from '../../views/components/form.js';
import { DataTable, type Column } from '../../views/components/table.js';
import { relativeTime } from '../../views/format.js';
import { SecretOnce } from '../settings/secret-once.js';
import { zonedFormat, type ZonedFormat } from './oncall-format.js';

type Person = { id: string; name: string | null; email: string };
const nameOf = (u: { name: string | null; email: string }) => u.name || u.email;

/** Where the person's page-to-me settings live (they are theirs in every workspace). */
export const CONTACT_METHODS_PATH = '/app/account/contact-methods';

/** "until Tue 1 Dec, 09:00 (in 2 days)", or what to say when the stretch reaches past the 90-day horizon. */
function Until({ to, now, f }: { to: string | null; now: Date; f: ZonedFormat }) {
  if (!to) return <span class="muted">for the next 90 days at least</span>;
  const at = new Date(to);
  return (
    <span>
      until{' '}
      <time datetime={to} title={to}>
        {f.when(at)}
      </time>{' '}
      <span class="muted">({relativeTime(at, now)})</span>
    </span>
  );
}

/** Who is on call now in one schedule: a person with an avatar initial, or nobody (the fallback is paged). */
function OnCallNow(props: { onCall: OnCallRecord; now: Date; timezone: string; fallback: Person | null }) {
  const { user, override, layer } = props.onCall;
  const { fallback } = props;
  const why = user
    ? override
      ? '(override)'
      : layer
        ? `(${layer.name})`
        : ''
    : fallback
      ? `(pages go to the fallback, ${nameOf(fallback)})`
      : '(no fallback: pages reach nobody)';
  return (
    <div class={user ? 'oncall-now' : 'oncall-now is-nobody'}>
      <span class="avatar" aria-hidden="true">
        {user ? nameOf(user).slice(0, 1).toUpperCase() : '–'}
      </span>
      <div>
        <strong>{user ? nameOf(user) : 'Nobody'}</strong> <span class="muted">{why}</span>
        <div>
          <Until to={props.onCall.to} now={props.now} f={zonedFormat(props.timezone)} />
        </div>
      </div>
    </div>
  );
}

/** The workspace's members by user id, as the on-call pages name them. */
function peopleOf(members: readonly MemberRecord[]): Map<string, Person> {
  return new Map(members.map((m) => [m.userId, { id: m.userId, name: m.name, email: m.email }]));
}

/** The schedules of the workspace, each with who is on call now. */
export function ScheduleList(props: {
  base: string;
  schedules: readonly ScheduleRecord[];
  onCall: readonly ScheduleOnCallRecord[];
  members: readonly MemberRecord[];
  now: Date;
}) {
  if (props.schedules.length === 0)
    return (
      <EmptyState title="No on-call schedules yet">
        Create one with the API (<code>POST /api/v1/schedules</code>) or the CLI; then point an escalation step at it (
        <code>{'{ "channel": "schedule" }'}</code>) and whoever is on call gets the page.
      </EmptyState>
    );
  const byId = new Map(props.onCall.map((o) => [o.schedule.id, o]));
  const people = peopleOf(props.members);
  return (
    <ul class="schedule-cards">
      {props.schedules.map((s) => {
        const onCall = byId.get(s.id);
        const rotating = new Set(s.layers.flatMap((l) => l.members)).size;
        return (
          <li class="card schedule-card">
            <div class="schedule-card-head">
              <h2>
                <a href={`${props.base}/oncall/${s.id}`}>{s.name}</a>
              </h2>
              <span class="chip">{s.timezone}</span>
            </div>
            <p class="label">On call now</p>
            {onCall && (
              <OnCallNow
                onCall={onCall}
                now={props.now}
                timezone={s.timezone}
                fallback={s.fallbackUserId ? (people.get(s.fallbackUserId) ?? null) : null}
              />
            )}
            <p class="muted schedule-card-foot">
              {s.layers.length} layer{s.layers.length === 1 ? '' : 's'} · {rotating}{' '}
              {rotating === 1 ? 'person' : 'people'} in rotation
            </p>
          </li>
        );
      })}
    </ul>
  );
}

/** Width of the timeline's drawing, and of its column of names (SVG user units). */
const TL = { width: 1000, names: 150, head: 28, lane: 30 };

/**
 * The next two weeks as lanes, one per person, drawn in SVG (sizes as attributes: the CSP allows no inline style).
 * A picture for sighted readers: the table that follows says the same to everyone, so the drawing is hidden from
 * assistive technology.
 */
function Timeline(props: { shifts: readonly ShiftRecord[]; midnights: readonly Date[]; now: Date; f: ZonedFormat }) {
  const start = props.midnights[0]!.getTime();
  const end = props.midnights.at(-1)!.getTime();
  const x = (t: number) =>
    TL.names + ((Math.min(Math.max(t, start), end) - start) / (end - start)) * (TL.width - TL.names);
  const people: Person[] = [];
  for (const s of props.shifts) if (!people.some((p) => p.id === s.user.id)) people.push(s.user);
  const height = TL.head + Math.max(people.length, 1) * TL.lane + 4;
  const nowX = x(props.now.getTime());
  return (
    <svg class="timeline" viewBox={`0 0 ${TL.width} ${height}`} aria-hidden="true" focusable="false">
      {props.midnights.slice(0, -1).map((m, i) => {
        const left = x(m.getTime());
        const right = x(props.midnights[i + 1]!.getTime());
        const weekend = /^(Sat|Sun)/.test(props.f.day(m));
        return (
          <g>
            {weekend && (
              <rect class="tl-weekend" x={left} y={TL.head - 4} width={right - left} height={height - TL.head + 4} />
            )}
            <line class="tl-grid" x1={left} x2={left} y1={TL.head - 4} y2={height} />
            <text class="tl-day" x={(left + right) / 2} y={16} text-anchor="middle">
              {props.f.day(m).replace(/ \w+$/, '')}
            </text>
          </g>
        );
      })}
      {people.map((p, lane) => {
        const y = TL.head + lane * TL.lane;
        return (
          <g class={`tl-lane person-${lane % 6}`}>
            <text class="tl-name" x={0} y={y + TL.lane / 2 + 5}>
              {nameOf(p).length > 18 ? `${nameOf(p).slice(0, 17)}…` : nameOf(p)}
            </text>
            {props.shifts
              .filter((s) => s.user.id === p.id)
              .map((s) => {
                const left = x(Date.parse(s.from));
                const width = Math.max(x(Date.parse(s.to)) - left, 2);
                return (
                  <rect
                    class={s.override ? 'tl-shift is-override' : 'tl-shift'}
                    x={left}
                    y={y + 5}
                    width={width}
                    height={TL.lane - 10}
                    rx={4}
                  />
                );
              })}
          </g>
        );
      })}
      {nowX > TL.names && <line class="tl-now" x1={nowX} x2={nowX} y1={TL.head - 6} y2={height} />}
    </svg>
  );
}

/** The shifts of the next two weeks as a table: who, from, to, and what put them there. */
function ShiftTable(props: { shifts: readonly ShiftRecord[]; f: ZonedFormat; start: Date }) {
  const when = (iso: string, edge: Date | null) =>
    edge && Date.parse(iso) === edge.getTime() ? null : <time datetime={iso}>{props.f.when(new Date(iso))}</time>;
  const columns: Array<Column<ShiftRecord>> = [
    { header: 'Who', class: 'name', cell: (s) => nameOf(s.user) },
    { header: 'From', class: 'when', cell: (s) => when(s.from, props.start) ?? <span class="muted">earlier</span> },
    { header: 'To', class: 'when', cell: (s) => when(s.to, null) },
    {
      header: 'Because of',
      class: 'source',
      cell: (s) => (s.override ? <span class="chip chip-override">Override</span> : (s.layer?.name ?? '—')),
    },
  ];
  return (
    <DataTable
      caption="Shifts of the next two weeks"
      captionHidden
      class="shifts"
      columns={columns}
      rows={props.shifts}
      rowId={(s) => `shift-${Date.parse(s.from)}-${s.user.id}`}
    />
  );
}

/** What the override form was sent with, and its issues (a 400 shows them beside the fields, values kept). */
export interface OverrideFormState {
  values: { userId?: string; startsAt?: string; endsAt?: string };
  errors: Record<string, string>;
}

export interface ScheduleViewProps {
  base: string;
  csrf: string;
  now: Date;
  schedule: ScheduleRecord;
  onCall: OnCallRecord;
  shifts: readonly ShiftRecord[];
  midnights: readonly Date[];
  overrides: readonly OverrideRecord[];
  members: readonly MemberRecord[];
  /** The signed-in user. */
  selfId: string;
  /** Whether the user may override for anyone (managers), for themselves (writers), or not at all (viewers). */
  override: 'anyone' | 'self' | 'none';
  form?: OverrideFormState | undefined;
  /** Whether the user may create and revoke the schedule's calendar feed (managers). */
  manageFeed: boolean;
  /** A feed URL just created: shown this once. */
  feedUrl?: string | undefined;
}

/** One schedule: who is on call now, the next two weeks, the overrides to come and a form to add one. */
export function ScheduleView(props: ScheduleViewProps) {
  const { schedule, now } = props;
  const f = zonedFormat(schedule.timezone);
  const people = peopleOf(props.members);
  const fallback = schedule.fallbackUserId ? (people.get(schedule.fallbackUserId) ?? null) : null;
  const who = (id: string) => {
    const p = people.get(id);
    return p ? nameOf(p) : 'A former member';
  };
  const overrideColumns: Array<Column<OverrideRecord>> = [
    { header: 'Who', class: 'name', cell: (o) => who(o.userId) },
    { header: 'From', class: 'when', cell: (o) => <time datetime={o.startsAt}>{f.when(new Date(o.startsAt))}</time> },
    { header: 'To', class: 'when', cell: (o) => <time datetime={o.endsAt}>{f.when(new Date(o.endsAt))}</time> },
  ];
  const mayRemove = (o: OverrideRecord) =>
    props.override === 'anyone' || (props.override === 'self' && o.userId === props.selfId);
  if (props.overrides.some(mayRemove))
    overrideColumns.push({
      header: 'Actions',
      hiddenHeader: true,
      class: 'actions',
      cell: (o) =>
        mayRemove(o) && (
          <PostForm action={`${props.base}/oncall/${schedule.id}/overrides/${o.id}/remove`} csrf={props.csrf}>
            <input type="hidden" name="version" value={String(schedule.version)} />
            <Button
              variant="secondary"
              small
              label={`Remove the override of ${who(o.userId)} from ${f.when(new Date(o.startsAt))}`}
              confirm="Remove this override?"
            >
              Remove
            </Button>
          </PostForm>
        ),
    });
  return (
    <>
      <div class="page-header">
        <div>
          <p class="crumbs">
            <a href={`${props.base}/oncall`}>On call</a>
          </p>
          <h1>{schedule.name}</h1>
          <p>
            Times in {schedule.timezone} · fallback {fallback ? nameOf(fallback) : 'none'}
          </p>
        </div>
        <LinkButton href={CONTACT_METHODS_PATH}>Your contact methods</LinkButton>
      </div>
      <section class="card" aria-labelledby="now-title">
        <h2 id="now-title">On call now</h2>
        <OnCallNow onCall={props.onCall} now={now} timezone={schedule.timezone} fallback={fallback} />
      </section>
      <section class="card" aria-labelledby="weeks-title">
        <h2 id="weeks-title">The next two weeks</h2>
        {props.shifts.length === 0 ? (
          <EmptyState title="Nobody is on call in the next two weeks">
            {fallback ? `Pages go to the fallback, ${nameOf(fallback)}.` : 'Pages to this schedule reach nobody.'}
          </EmptyState>
        ) : (
          <>
            <Timeline shifts={props.shifts} midnights={props.midnights} now={now} f={f} />
            <ShiftTable shifts={props.shifts} f={f} start={props.midnights[0]!} />
          </>
        )}
      </section>
      <section class="card" aria-labelledby="overrides-title" id="overrides">
        <h2 id="overrides-title">Overrides</h2>
        <p class="muted">
          An override puts someone on call whatever the rotation says; where overrides overlap, the newest wins.
        </p>
        {props.overrides.length === 0 ? (
          <p class="none">No override to come.</p>
        ) : (
          <DataTable
            caption="Overrides to come"
            captionHidden
            class="overrides"
            columns={overrideColumns}
            rows={props.overrides}
            rowId={(o) => `override-${o.id}`}
          />
        )}
        {props.override !== 'none' && <OverrideForm {...props} f={f} people={people} />}
      </section>
      <CalendarFeed {...props} />
    </>
  );
}

/**
 * The schedule's iCalendar feed (`POST/DELETE /schedules/{id}/calendar-token`): whether one is live, the URL once when
 * it is made, and for managers the buttons to make (or replace) and revoke it. The URL is its secret: never stored.
 */
function CalendarFeed(props: ScheduleViewProps) {
  const { schedule } = props;
  const live = schedule.calendarFeed;
  const action = `${props.base}/oncall/${schedule.id}/calendar-feed`;
  return (
    <section class="card calendar-feed" aria-labelledby="feed-title" id="calendar-feed">
      <h2 id="feed-title">Calendar feed</h2>
      <p class="muted">
        The next 90 days of shifts as an iCalendar feed, for any calendar app that subscribes by URL. Anyone with the
        URL can read the shifts.
      </p>
      {props.feedUrl && (
        <SecretOnce
          id="feed-url"
          label="The feed URL"
          value={props.feedUrl}
          note="Copy it now: it is shown only this once. Making a new one stops this one."
        />
      )}
      <p class="feed-state">
        <span class={live ? 'tag tag-ok' : 'tag'}>{live ? 'Live' : 'No feed'}</span>{' '}
        {live ? 'A feed URL works for this schedule.' : 'No feed URL works for this schedule.'}
        {!props.manageFeed && ' An owner or admin can make or revoke it.'}
      </p>
      {props.manageFeed && (
        <div class="form-actions">
          <PostForm action={action} csrf={props.csrf}>
            <Button
              variant={live ? 'secondary' : 'primary'}
              confirm={live ? 'Make a new feed URL? The current one stops working.' : undefined}
            >
              {live ? 'Replace the feed URL' : 'Make a feed URL'}
            </Button>
          </PostForm>
          {live && (
            <PostForm action={`${action}/revoke`} csrf={props.csrf}>
              <input type="hidden" name="version" value={String(schedule.version)} />
              <Button variant="danger" confirm="Revoke the feed URL? Calendars subscribed to it stop updating.">
                Revoke the feed URL
              </Button>
            </PostForm>
          )}
        </div>
      )}
    </section>
  );
}

/** Add an override: a manager for any member, a writer for themselves; times on the schedule's wall clock. */
function OverrideForm(props: ScheduleViewProps & { f: ZonedFormat; people: Map<string, Person> }) {
  const errors = props.form?.errors ?? {};
  const values = props.form?.values ?? {};
  const hour = Math.ceil(props.now.getTime() / 3_600_000) * 3_600_000;
  const options =
    props.override === 'anyone'
      ? [...props.people.values()].sort((a, b) => nameOf(a).localeCompare(nameOf(b)))
      : [...props.people.values()].filter((p) => p.id === props.selfId);
  return (
    <PostForm
      action={`${props.base}/oncall/${props.schedule.id}/overrides`}
      csrf={props.csrf}
      class="override-form"
      label="Add an override"
    >
      <h3>Add an override</h3>
      <p class="muted">
        Times on the schedule&rsquo;s clock, {props.schedule.timezone}.
        {props.override === 'self' && ' Your role may add overrides for yourself.'}
      </p>
      {errors.form && <p class="field-error">{errors.form}</p>}
      <div class="override-fields">
        <SelectField
          name="userId"
          label="Who"
          value={values.userId ?? props.selfId}
          options={options.map((p) => ({ value: p.id, label: nameOf(p) }))}
          error={errors.userId}
        />
        <Field
          type="datetime-local"
          name="startsAt"
          label="From"
          value={values.startsAt ?? props.f.field(new Date(hour))}
          error={errors.startsAt}
        />
        <Field
          type="datetime-local"
          name="endsAt"
          label="To"
          value={values.endsAt ?? props.f.field(new Date(hour + 8 * 3_600_000))}
          error={errors.endsAt}
        />
      </div>
      <div class="form-actions">
        <Button>Add override</Button>
      </div>
    </PostForm>
  );
}
