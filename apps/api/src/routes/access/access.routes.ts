import { paginationQuerySchema } from '@statusvane/shared';
import { addMember, addMemberSchema } from '../../services/members/add-member.js';
import { createInvitation } from '../../services/members/create-invitation.js';
import { listMembers } from '../../services/members/list-members.js';
import { memberRecordSchema } from '../../services/members/member-record.js';
import { removeMember } from '../../services/members/remove-member.js';
import { updateMember, updateMemberSchema } from '../../services/members/update-member.js';
import { createToken, createTokenSchema } from '../../services/tokens/create-token.js';
import { deleteToken } from '../../services/tokens/delete-token.js';
import { listTokens } from '../../services/tokens/list-tokens.js';
import { apiTokenRecordSchema, createdApiTokenSchema } from '../../services/tokens/token-record.js';
import { defineRoute, KEY_IN_FLIGHT as inFlight } from '../define-route.js';

export const accessRoutes = [
  defineRoute({
    method: 'get',
    path: '/tokens',
    operationId: 'listTokens',
    roles: 'tokens:manage',
    tag: 'Access',
    summary: 'List workspace tokens',
    description:
      "The workspace's tokens (org tokens: each acts with its own role), oldest first. Deleted tokens are not listed; a " +
      'token itself is never shown again, only its `prefix`.',
    request: { query: paginationQuerySchema },
    responses: { 200: { description: 'A page of tokens.', page: apiTokenRecordSchema } },
    handler: (deps, { ctx, query }) => listTokens(deps, { ctx, input: query }),
  }),
  defineRoute({
    method: 'post',
    path: '/tokens',
    operationId: 'createToken',
    roles: 'tokens:manage',
    tag: 'Access',
    summary: 'Create a workspace token',
    description:
      'A bearer token (`sv_…`) that acts in this workspace with `role`, shown once in `token` and stored only as a hash. ' +
      'An admin cannot mint an owner token (403). A replay with the same `Idempotency-Key` answers `token: null`.',
    request: {
      body: {
        schema: createTokenSchema,
        examples: {
          ci: { summary: 'A CI token', value: { name: 'GitHub Actions', role: 'member', expiresInDays: 90 } },
        },
      },
    },
    idempotent: true,
    responses: {
      201: { description: 'The created token, with the secret this once.', data: createdApiTokenSchema },
      409: inFlight,
    },
    handler: (deps, { ctx, body }) => createToken(deps, { ctx, input: body }),
  }),
  defineRoute({
    method: 'delete',
    path: '/tokens/{id}',
    operationId: 'deleteToken',
    roles: 'tokens:manage',
    tag: 'Access',
    summary: 'Delete a workspace token',
    description:
      'Revokes the token: its next request, and every one after, answers 401. Only an owner deletes an owner token (403).',
    responses: { 204: { description: 'Deleted; no body.' } },
    handler: (deps, { ctx, params }) => deleteToken(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'get',
    path: '/members',
    operationId: 'listMembers',
    roles: 'read',
    tag: 'Access',
    summary: 'List members',
    description: "The workspace's members and their roles, oldest membership first.",
    request: { query: paginationQuerySchema },
    responses: { 200: { description: 'A page of members.', page: memberRecordSchema } },
    handler: (deps, { ctx, query }) => listMembers(deps, { ctx, input: query }),
  }),
  defineRoute({
    method: 'post',
    path: '/members',
    operationId: 'addMember',
    roles: 'members:manage',
    tag: 'Access',
    summary: 'Add a member',
    description:
      'Makes the user with `email` a member with `role`; a user is created for an address not seen before. Only an owner ' +
      'grants `owner` (403). Already a member: 409 (change the role with PATCH).',
    request: {
      body: {
        schema: addMemberSchema,
        examples: { member: { summary: 'Invite an engineer', value: { email: 'dev@example.com', role: 'member' } } },
      },
    },
    idempotent: true,
    responses: {
      201: { description: 'The new membership.', data: memberRecordSchema },
      409: {
        description: 'the user is already a member, or a request with the same `Idempotency-Key` is still in flight.',
        example: 'dev@example.com is already a member of this workspace',
      },
    },
    handler: (deps, { ctx, body }) => addMember(deps, { ctx, input: body }),
  }),
  defineRoute({
    method: 'post',
    path: '/members/{userId}/invitation',
    operationId: 'createMemberInvitation',
    roles: 'members:manage',
    tag: 'Access',
    summary: 'Send an invitation again',
    description:
      'Mails the member a new one-time link to choose their console password (48 hours), as `POST /members` did; older ' +
      'links stop working. For a member who lost or never got the first mail.',
    responses: {
      200: { description: 'The membership (unchanged); the mail is on its way.', data: memberRecordSchema },
      409: {
        description:
          'the member has a password already (`reason: password_set`), or no mail is set up (`mail_not_configured`).',
        example: 'dev@example.com has a password already: they can reset it from the sign-in page',
      },
    },
    handler: (deps, { ctx, params }) => createInvitation(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'patch',
    path: '/members/{userId}',
    operationId: 'updateMember',
    roles: 'members:manage',
    tag: 'Access',
    summary: "Change a member's role",
    description:
      "Effective on the member's next request. Only an owner grants or removes `owner` (403); the last owner cannot be " +
      'demoted (409).',
    request: {
      body: { schema: updateMemberSchema, examples: { promote: { summary: 'Make admin', value: { role: 'admin' } } } },
    },
    responses: {
      200: { description: 'The membership.', data: memberRecordSchema },
      409: {
        description: 'the member is the last owner.',
        example: 'The last owner of a workspace can be neither demoted nor removed',
      },
    },
    handler: (deps, { ctx, params, body }) =>
      updateMember(deps, { ctx, input: { userId: params.userId, changes: body } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/members/{userId}',
    operationId: 'removeMember',
    roles: 'members:manage',
    tag: 'Access',
    summary: 'Remove a member',
    description:
      'The user leaves the workspace: their personal and OAuth tokens lose access to it on their next request. Only an owner ' +
      'removes an owner (403); the last owner stays (409).',
    responses: {
      204: { description: 'Removed; no body.' },
      409: {
        description: 'the member is the last owner.',
        example: 'The last owner of a workspace can be neither demoted nor removed',
      },
    },
    handler: (deps, { ctx, params }) => removeMember(deps, { ctx, input: params }),
  }),
];
