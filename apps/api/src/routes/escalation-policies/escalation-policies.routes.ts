import { paginationQuerySchema } from '@statusvane/shared';
import { createEscalationPolicy } from '../../services/escalation-policies/create-escalation-policy.js';
import { deleteEscalationPolicy } from '../../services/escalation-policies/delete-escalation-policy.js';
import { getEscalationPolicy } from '../../services/escalation-policies/get-escalation-policy.js';
import { listEscalationPolicies } from '../../services/escalation-policies/list-escalation-policies.js';
import {
  createEscalationPolicySchema,
  updateEscalationPolicySchema,
} from '../../services/escalation-policies/policy-input.js';
import { escalationPolicyRecordSchema } from '../../services/escalation-policies/policy-record.js';
import {
  policyTestResultSchema,
  testEscalationPolicy,
} from '../../services/escalation-policies/test-escalation-policy.js';
import { revealSigningSecret } from '../../services/escalation-policies/reveal-signing-secret.js';
import { rotateSigningSecret } from '../../services/escalation-policies/rotate-signing-secret.js';
import { signingSecretRecordSchema } from '../../services/escalation-policies/signing-secret-record.js';
import { updateEscalationPolicy } from '../../services/escalation-policies/update-escalation-policy.js';
import { z } from '../../schemas/zod.js';
import { defineRoute } from '../define-route.js';

const example = {
  name: 'Primary on-call',
  repeatCount: 1,
  silent: false,
  runbook: 'https://wiki.example.com/runbooks/api',
  steps: [
    {
      delayMinutes: 0,
      minImpact: 'none',
      targets: [
        { channel: 'slack', target: 'https://hooks.slack.com/services/T000/B000/XXXX' },
        { channel: 'pagerduty', routingKey: '0123456789abcdef0123456789abcdef' },
      ],
    },
    { delayMinutes: 15, minImpact: 'major', targets: [{ channel: 'email', target: 'cto@example.com' }] },
  ],
  isDefault: true,
};

export const escalationPolicyRoutes = [
  defineRoute({
    method: 'get',
    path: '/escalation-policies',
    operationId: 'listEscalationPolicies',
    roles: 'read',
    tag: 'Escalation policies',
    summary: 'List escalation policies',
    description: "A page of the workspace's escalation policies, oldest first. Targets show their `display` form only.",
    request: { query: paginationQuerySchema },
    responses: { 200: { description: 'A page of policies.', page: escalationPolicyRecordSchema } },
    handler: (deps, { ctx, query }) => listEscalationPolicies(deps, { ctx, input: query }),
  }),
  defineRoute({
    method: 'post',
    path: '/escalation-policies',
    operationId: 'createEscalationPolicy',
    roles: 'escalationPolicies:manage',
    tag: 'Escalation policies',
    summary: 'Create an escalation policy',
    description:
      "The admin CLI's `policy create --json` body. Steps are in ladder order: each `delayMinutes` (from the incident's start) " +
      'at least the previous one. URL targets resolving to a private or internal address are 400. Every target is stored ' +
      'encrypted and the record shows only its `display` form. `isDefault: true` makes it the workspace default.',
    request: {
      body: {
        schema: createEscalationPolicySchema,
        examples: { policy: { summary: 'Chat first, then email the CTO', value: example } },
      },
    },
    idempotent: true,
    responses: {
      201: { description: 'The created policy.', data: escalationPolicyRecordSchema },
      409: {
        description: 'a request with the same `Idempotency-Key` is still in flight.',
        example: 'A request with this Idempotency-Key is in progress',
      },
    },
    handler: (deps, { ctx, body }) => createEscalationPolicy(deps, { ctx, input: body }),
  }),
  defineRoute({
    method: 'get',
    path: '/escalation-policies/{id}',
    operationId: 'getEscalationPolicy',
    roles: 'read',
    tag: 'Escalation policies',
    summary: 'Get an escalation policy',
    description: 'The policy with its steps in ladder order; targets show their `display` form only.',
    responses: { 200: { description: 'The policy.', data: escalationPolicyRecordSchema } },
    handler: (deps, { ctx, params }) => getEscalationPolicy(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'patch',
    path: '/escalation-policies/{id}',
    operationId: 'updateEscalationPolicy',
    roles: 'escalationPolicies:manage',
    tag: 'Escalation policies',
    summary: 'Update an escalation policy',
    description:
      'Only the provided fields change, in one transaction (same rules as on create). `steps` replaces every step and ' +
      'target: incidents already open keep paging with the ladder they opened with, and the new steps apply from the next ' +
      'incident. `isDefault: false` on the default policy leaves the workspace without one.',
    request: {
      body: {
        schema: updateEscalationPolicySchema,
        examples: {
          rename: { summary: 'Rename', value: { name: 'Secondary on-call' } },
          steps: {
            summary: 'Replace the ladder',
            value: { steps: [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'oncall@example.com' }] }] },
          },
        },
      },
    },
    responses: { 200: { description: 'The updated policy.', data: escalationPolicyRecordSchema } },
    handler: (deps, { ctx, params, body }) =>
      updateEscalationPolicy(deps, { ctx, input: { id: params.id, changes: body } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/escalation-policies/{id}',
    operationId: 'deleteEscalationPolicy',
    roles: 'escalationPolicies:manage',
    tag: 'Escalation policies',
    summary: 'Delete an escalation policy',
    description:
      "Monitors that used it fall back to the workspace's default policy (none, when it was the default). Incidents already " +
      'open keep paging with the ladder they opened with, and their escalation history stays.',
    responses: { 204: { description: 'Deleted; no body.' } },
    handler: (deps, { ctx, params }) => deleteEscalationPolicy(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'post',
    path: '/escalation-policies/{id}/test',
    operationId: 'testEscalationPolicy',
    roles: 'escalationPolicies:manage',
    tag: 'Escalation policies',
    summary: 'Send a test message to every target',
    description:
      "One test message to every target of every step, at once, in each channel's own format (a webhook gets the signed " +
      'page body with `"test": true`; PagerDuty and Opsgenie get their lowest severity), one attempt each. Answers when ' +
      'every target has answered (at most 10 seconds), one entry per target in ladder order: whether it was accepted, ' +
      "the provider's HTTP status, and why not. No incident is involved and nothing is recorded as a page.",
    responses: {
      200: { description: 'One result per target.', data: z.array(policyTestResultSchema) },
    },
    handler: (deps, { ctx, params }) => testEscalationPolicy(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'post',
    path: '/escalation-policies/signing-secret/reveal',
    operationId: 'revealSigningSecret',
    roles: 'escalationPolicies:manage',
    tag: 'Escalation policies',
    summary: 'Show the webhook signing secret once',
    description:
      "The workspace's escalation webhook signing secret, which every webhook page and notice is signed with " +
      "(`Statusvane-Signature`). Shown once: the first call answers it, later ones 409 until a rotation (the admin CLI's " +
      '`policy signing-secret` still prints it). Recorded as `workspace.signing_secret_revealed`.',
    responses: {
      200: { description: 'The secret, shown this once.', data: signingSecretRecordSchema },
      409: {
        description: 'the current secret was already shown: rotate it for a new one.',
        example: 'The signing secret was shown on 2026-03-01T10:00:00.000Z and is shown once: rotate it',
      },
    },
    handler: (deps, { ctx }) => revealSigningSecret(deps, { ctx }),
  }),
  defineRoute({
    method: 'post',
    path: '/escalation-policies/signing-secret/rotate',
    operationId: 'rotateSigningSecret',
    roles: 'escalationPolicies:manage',
    tag: 'Escalation policies',
    summary: 'Rotate the webhook signing secret',
    description:
      'A new signing secret, shown in this answer only. Every webhook page and notice sent from now on is signed with it, ' +
      'never with the old one. Moving a receiver over: give it the new secret at once, accepting either secret for a ' +
      'while (a page it refuses meanwhile is retried, then shows `failed` in the escalation state), then drop the old one. ' +
      'Recorded as `workspace.signing_secret_rotated`.',
    idempotent: true,
    responses: {
      201: { description: 'The new secret, shown this once.', data: signingSecretRecordSchema },
      409: {
        description: 'a request with the same `Idempotency-Key` is still in flight.',
        example: 'A request with this Idempotency-Key is still in progress; retry shortly',
      },
    },
    handler: (deps, { ctx }) => rotateSigningSecret(deps, { ctx }),
  }),
];
