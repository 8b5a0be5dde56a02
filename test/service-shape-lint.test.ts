// The local ESLint rule `statusvane/service-shape` (eslint-service-shape.js): what it lets through and what it
// refuses, on small sources under a services/<resource>/ file name. `npm run lint` runs it over the real services.
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { Linter, type Rule } from 'eslint';

// Imported by path: a JavaScript module of the repository root, outside the TypeScript program.
const rule = (
  (await import(join(import.meta.dirname, '..', 'eslint-service-shape.js'))) as { default: Rule.RuleModule }
).default;

/** The rule's message ids for `code` as the file apps/api/src/services/things/<file>. */
function lint(file: string, code: string): string[] {
  const linter = new Linter();
  const messages = linter.verify(
    code,
    [
      {
        // ESLint's own parser: the rule reads parameter patterns only, so the sources below are plain JavaScript (the
        // TypeScript parser would load the compiler into Jest's module registry).
        files: ['**/*.ts'],
        plugins: { statusvane: { rules: { 'service-shape': rule } } },
        rules: { 'statusvane/service-shape': 'error' },
      },
    ],
    `apps/api/src/services/things/${file}`,
  );
  return messages.map((m) => m.messageId ?? m.message);
}

describe('statusvane/service-shape', () => {
  it('lets a verb file export verbs and transaction steps', () => {
    expect(
      lint(
        'create-thing.ts',
        `export async function createThing(deps, { ctx, input }) {}
         export const getThing = async ({ prisma }, { input }) => {};
         export async function createThingInTx(tx, ctx, input) {}
         export const THING_LIMIT = 3;
         function helper(a, b, c) {}`,
      ),
    ).toEqual([]);
  });

  it('refuses any other exported function in a verb file', () => {
    expect(lint('update-thing.ts', `export async function updateThing(prisma, ctx, id) {}`)).toEqual(['notAVerb']);
    expect(lint('list-things.ts', `export const listThings = (deps, { ctx, query }) => {};`)).toEqual(['notAVerb']);
    expect(lint('delete-thing.ts', `export function deleteThing(deps, { ctx, input }, more) {}`)).toEqual(['notAVerb']);
    expect(lint('get-thing.ts', `export function thingOf(deps, input) {}`)).toEqual(['notAVerb']);
    expect(lint('get-thing.ts', `export default function (deps, { ...rest }) {}`)).toEqual(['notAVerb']);
  });

  it('refuses a verb in a file not named after one, and lets helpers be', () => {
    expect(lint('thing-record.ts', `export function fetchThing(deps, { ctx, input }) {}`)).toEqual(['verbElsewhere']);
    expect(
      lint(
        'thing-rules.ts',
        `export function thingIssues(prisma, workspaceId) {}
         export const toThingRecord = (row) => row;`,
      ),
    ).toEqual([]);
  });
});
