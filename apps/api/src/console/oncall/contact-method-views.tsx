import type { DeliveryChannel } from '@statusvane/shared';
import type { ContactMethodRecord } from '../../services/users/contact-method-record.js';
import { Button } from '../../views/components/button.js';
import { EmptyState } from '../../views/components/empty-state.js';
import { Field, PostForm } from '../../views/components/form.js';
import { DataTable, type Column } from '../../views/components/table.js';
import { CONTACT_METHODS_PATH } from './schedule-views.js';

/** The form's fields of each channel, in the order shown, with what to type. */
export const CHANNEL_FORMS: Record<
  DeliveryChannel,
  { label: string; fields: ReadonlyArray<{ name: string; label: string; hint?: string; type?: 'email' }> }
> = {
  email: { label: 'Email', fields: [{ name: 'target', label: 'Email address', type: 'email' }] },
  ntfy: {
    label: 'ntfy (phone push)',
    fields: [{ name: 'target', label: 'Topic URL', hint: 'Such as https://ntfy.sh/your-secret-topic' }],
  },
  slack: { label: 'Slack', fields: [{ name: 'target', label: 'Incoming webhook URL' }] },
  teams: { label: 'Microsoft Teams', fields: [{ name: 'target', label: 'Workflow webhook URL' }] },
  discord: { label: 'Discord', fields: [{ name: 'target', label: 'Webhook URL' }] },
  telegram: {
    label: 'Telegram',
    fields: [
      { name: 'botToken', label: 'Bot token', hint: 'As BotFather gives it: <digits>:<secret>' },
      { name: 'chatId', label: 'Chat id', hint: 'Your numeric chat id, or an @channelusername' },
    ],
  },
  pagerduty: {
    label: 'PagerDuty',
    fields: [{ name: 'routingKey', label: 'Integration key', hint: 'The 32-character Events API v2 key' }],
  },
  opsgenie: { label: 'Opsgenie', fields: [{ name: 'apiKey', label: 'API integration key' }] },
  webhook: { label: 'Webhook', fields: [{ name: 'target', label: 'URL', hint: 'Receives the page as JSON' }] },
};

/** The add form as sent (kept on a 400), and its issues by field. */
export interface MethodFormState {
  values: Record<string, string>;
  errors: Record<string, string>;
}

/** The signed-in person's contact methods: the list in paging order, removal, and a form to add one. */
export function ContactMethodsView(props: {
  csrf: string;
  methods: readonly ContactMethodRecord[];
  channel: DeliveryChannel;
  form?: MethodFormState | undefined;
  max: number;
}) {
  const columns: Array<Column<ContactMethodRecord>> = [
    { header: 'Channel', class: 'channel', cell: (m) => CHANNEL_FORMS[m.channel].label },
    { header: 'Where', class: 'target', cell: (m) => <span class="mono">{m.display}</span> },
    {
      header: 'Actions',
      hiddenHeader: true,
      class: 'actions',
      cell: (m) => (
        <PostForm action={`${CONTACT_METHODS_PATH}/${m.id}/remove`} csrf={props.csrf}>
          <Button
            variant="secondary"
            small
            label={`Remove ${CHANNEL_FORMS[m.channel].label} ${m.display}`}
            confirm="Remove this contact method?"
          >
            Remove
          </Button>
        </PostForm>
      ),
    },
  ];
  const errors = props.form?.errors ?? {};
  const values = props.form?.values ?? {};
  const chosen = CHANNEL_FORMS[props.channel];
  return (
    <>
      <div class="page-header">
        <div>
          <h1>Your contact methods</h1>
          <p>Where pages reach you when you are on call or an escalation names you, in every workspace.</p>
        </div>
      </div>
      <div class="narrow">
        <section class="card" aria-labelledby="methods-title">
          <h2 id="methods-title">Methods</h2>
          {props.methods.length === 0 ? (
            <EmptyState title="No contact method yet">
              Until you add one, a page meant for you is skipped and goes to the schedule&rsquo;s fallback.
            </EmptyState>
          ) : (
            <>
              <p class="muted">Every page goes to each of them.</p>
              <DataTable
                caption="Your contact methods"
                captionHidden
                class="methods"
                columns={columns}
                rows={props.methods}
                rowId={(m) => `method-${m.id}`}
              />
            </>
          )}
        </section>
        <section class="card" aria-labelledby="add-title" id="add">
          <h2 id="add-title">Add a contact method</h2>
          {props.methods.length >= props.max ? (
            <p>You have {props.max} contact methods, the most there can be: remove one to add another.</p>
          ) : (
            <>
              <form
                method="get"
                action={`${CONTACT_METHODS_PATH}#add`}
                class="channel-choice"
                aria-label="Choose a channel"
              >
                <div class="field">
                  <label htmlFor="f-channel">Channel</label>
                  <select id="f-channel" name="channel" data-autosubmit>
                    {Object.entries(CHANNEL_FORMS).map(([value, c]) => (
                      <option value={value} selected={value === props.channel}>
                        {c.label}
                      </option>
                    ))}
                  </select>
                </div>
                <Button variant="secondary">Choose</Button>
              </form>
              <PostForm action={CONTACT_METHODS_PATH} csrf={props.csrf} label={`Add ${chosen.label}`}>
                <input type="hidden" name="channel" value={props.channel} />
                {errors.form && <p class="field-error">{errors.form}</p>}
                {chosen.fields.map((field) => (
                  <Field
                    name={field.name}
                    label={field.label}
                    type={field.type ?? 'text'}
                    hint={field.hint}
                    value={values[field.name]}
                    error={errors[field.name]}
                    required
                    maxLength={2048}
                    autocomplete="off"
                  />
                ))}
                <div class="form-actions">
                  <Button>Add {chosen.label}</Button>
                </div>
              </PostForm>
            </>
          )}
        </section>
      </div>
    </>
  );
}
