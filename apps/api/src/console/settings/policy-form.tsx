import { DELIVERY_CHANNELS, IMPACTS, type DeliveryChannel } from '@statusvane/shared';
import type { EscalationPolicyRecord } from '../../services/escalation-policies/policy-record.js';
import { CheckboxField, Field, SelectField, TextAreaField } from '../../views/components/form.js';

/** Targets per step the form offers (the API takes more; a ladder with more is edited over the API). */
export const TARGETS_PER_STEP = 3;

const CHANNEL_WORDS: Record<DeliveryChannel, string> = {
  email: 'Email',
  webhook: 'Webhook',
  slack: 'Slack',
  teams: 'Microsoft Teams',
  discord: 'Discord',
  ntfy: 'ntfy',
  pagerduty: 'PagerDuty',
  opsgenie: 'Opsgenie',
  telegram: 'Telegram',
};

/** The secret field a channel's target is written in (the API's name for it). */
const SECRET_KEY: Partial<Record<DeliveryChannel, 'routingKey' | 'apiKey' | 'botToken'>> = {
  pagerduty: 'routingKey',
  opsgenie: 'apiKey',
  telegram: 'botToken',
};

/** `steps.0.targets.1.value`: the form's name of a target's value, whatever the channel calls it. */
const targetField = (i: number, j: number, part: 'channel' | 'value' | 'chatId') => `steps.${i}.targets.${j}.${part}`;

/**
 * The form's field for an issue path of the API: `steps[0].targets[1].routingKey` is `steps.0.targets.1.value`,
 * `steps[2].targets` (none given) the step's first target, `steps[1].delayMinutes` itself with dots.
 */
export function policyFieldOf(path: string): string {
  const dotted = path.replace(/\[(\d+)\]/g, '.$1');
  const target = /^steps\.(\d+)\.targets\.(\d+)\.(target|routingKey|apiKey|botToken|chatId)$/.exec(dotted);
  if (target) return targetField(Number(target[1]), Number(target[2]), target[3] === 'chatId' ? 'chatId' : 'value');
  const none = /^steps\.(\d+)\.targets(?:\.(\d+))?$/.exec(dotted);
  if (none) return targetField(Number(none[1]), Number(none[2] ?? 0), 'value');
  return dotted;
}

/** Every field name the ladder form has, for formIssuesOf. */
export function policyFields(steps: number): string[] {
  const out = ['name', 'repeatCount', 'silent', 'runbook', 'isDefault', 'steps'];
  for (let i = 0; i < steps; i++) {
    out.push(`steps.${i}`, `steps.${i}.delayMinutes`, `steps.${i}.minImpact`);
    for (let j = 0; j < TARGETS_PER_STEP; j++)
      out.push(targetField(i, j, 'channel'), targetField(i, j, 'value'), targetField(i, j, 'chatId'));
  }
  return out;
}

/**
 * The ladder as the API takes it, from the form: a step counts when it has a delay or a target, a target when it has a
 * value (or a chat id); numbers stay strings when they are not numbers, so the API's 400 names them.
 */
export function stepsFromForm(form: Record<string, string>, steps: number) {
  const out: Array<Record<string, unknown>> = [];
  for (let i = 0; i < steps; i++) {
    const targets: Array<Record<string, unknown>> = [];
    for (let j = 0; j < TARGETS_PER_STEP; j++) {
      const channel = (form[targetField(i, j, 'channel')] ?? 'email') as DeliveryChannel;
      const value = (form[targetField(i, j, 'value')] ?? '').trim();
      const chatId = (form[targetField(i, j, 'chatId')] ?? '').trim();
      if (!value && !chatId) continue;
      const key = SECRET_KEY[channel] ?? 'target';
      targets.push({ channel, [key]: value, ...(channel === 'telegram' ? { chatId } : {}) });
    }
    const delay = (form[`steps.${i}.delayMinutes`] ?? '').trim();
    if (!delay && targets.length === 0) continue;
    out.push({
      delayMinutes: /^\d+$/.test(delay) ? Number(delay) : delay,
      minImpact: form[`steps.${i}.minImpact`] || 'none',
      targets,
    });
  }
  return out;
}

/** The policy's own settings, as the API takes them, from the form. */
export function settingsFromForm(form: Record<string, string>) {
  const repeat = (form.repeatCount ?? '0').trim() || '0';
  return {
    name: form.name ?? '',
    repeatCount: /^\d+$/.test(repeat) ? Number(repeat) : repeat,
    silent: form.silent === 'on',
    runbook: form.runbook ?? '',
    isDefault: form.isDefault === 'on',
  };
}

/** The form's values drawn from a policy: settings, step delays and impacts, channels, and email addresses (never a secret). */
export function formValuesOf(p: EscalationPolicyRecord): Record<string, string> {
  const v: Record<string, string> = {
    name: p.name,
    repeatCount: String(p.repeatCount),
    runbook: p.runbook,
    ...(p.silent ? { silent: 'on' } : {}),
    ...(p.isDefault ? { isDefault: 'on' } : {}),
  };
  p.steps.forEach((s, i) => {
    v[`steps.${i}.delayMinutes`] = String(s.delayMinutes);
    v[`steps.${i}.minImpact`] = s.minImpact;
    s.targets.slice(0, TARGETS_PER_STEP).forEach((t, j) => {
      v[targetField(i, j, 'channel')] = t.channel;
      if (t.channel === 'email') v[targetField(i, j, 'value')] = t.display;
    });
  });
  return v;
}

/** The settings fields (name, repeats, silent, runbook, default). */
export function PolicySettingsFields(props: { values: Record<string, string>; errors: Record<string, string> }) {
  const { values: v, errors: e } = props;
  return (
    <>
      <Field name="name" label="Name" required maxLength={200} value={v.name} error={e.name} />
      <Field
        name="repeatCount"
        label="Repeat the ladder"
        type="number"
        min={0}
        max={10}
        hint="How many more times the whole ladder runs after its last step while nobody acknowledges (0: once)."
        value={v.repeatCount ?? '0'}
        error={e.repeatCount}
      />
      <TextAreaField
        name="runbook"
        label="Runbook"
        rows={2}
        hint="A link or a sentence, sent with every page."
        value={v.runbook}
        error={e.runbook}
      />
      <CheckboxField
        name="silent"
        label="Silent: record every page as skipped instead of sending it"
        checked={v.silent === 'on'}
      />
      <CheckboxField
        name="isDefault"
        label="The workspace's default policy (for monitors without their own)"
        checked={v.isDefault === 'on'}
      />
    </>
  );
}

/** The ladder: each step's delay and minimum impact, and its targets (channel and value; secrets are never shown). */
export function LadderFields(props: { steps: number; values: Record<string, string>; errors: Record<string, string> }) {
  const { values: v, errors: e } = props;
  return (
    <>
      {e.steps && <p class="field-error">{e.steps}</p>}
      {Array.from({ length: props.steps }, (_, i) => (
        <fieldset class="step-fieldset">
          <legend>Step {i + 1}</legend>
          <div class="row-form">
            <Field
              name={`steps.${i}.delayMinutes`}
              label="After (minutes)"
              type="number"
              min={0}
              hint="From the incident's start."
              value={v[`steps.${i}.delayMinutes`]}
              error={e[`steps.${i}.delayMinutes`] ?? e[`steps.${i}`]}
            />
            <SelectField
              name={`steps.${i}.minImpact`}
              label="For impact"
              value={v[`steps.${i}.minImpact`] ?? 'none'}
              error={e[`steps.${i}.minImpact`]}
              options={IMPACTS.map((x) => ({ value: x, label: x === 'none' ? 'Any impact' : `${x} and above` }))}
            />
          </div>
          {Array.from({ length: TARGETS_PER_STEP }, (_, j) => (
            <div class="row-form target-row">
              <SelectField
                name={targetField(i, j, 'channel')}
                label={`Target ${j + 1}: channel`}
                value={v[targetField(i, j, 'channel')] ?? 'email'}
                options={DELIVERY_CHANNELS.map((c) => ({ value: c, label: CHANNEL_WORDS[c] }))}
              />
              <div class="grow">
                <Field
                  name={targetField(i, j, 'value')}
                  label={`Target ${j + 1}: address, URL or key`}
                  autocomplete="off"
                  value={v[targetField(i, j, 'value')]}
                  error={e[targetField(i, j, 'value')]}
                />
              </div>
              <Field
                name={targetField(i, j, 'chatId')}
                label={`Target ${j + 1}: Telegram chat`}
                autocomplete="off"
                value={v[targetField(i, j, 'chatId')]}
                error={e[targetField(i, j, 'chatId')]}
              />
            </div>
          ))}
        </fieldset>
      ))}
    </>
  );
}
