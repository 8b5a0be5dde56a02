// The local ESLint rule `statusvane/service-shape`: every request service of the API is called one way,
// `verb(deps, { ctx, input })` (apps/api/src/services/README.md, "Telling verbs from the rest"). It applies to the files
// of apps/api/src/services/<resource>/ (eslint.config.js), and the file name says which kind a file is:
// - `<verb>-<object>.ts` (or `<verb>.ts`), the verb one of VERBS: a verb file. Each function it exports is a verb,
//   `(deps, { ctx, input })` (the second parameter destructured with ctx and/or input, nothing else), or a step of a
//   verb that other verbs run inside their own transaction, whose first parameter is that transaction, `tx`.
// - any other name (`-record.ts`, `-input.ts`, `-rules.ts`, `public-page.ts` ...): records, schemas and helpers. None
//   of their exported functions may have a verb's shape: a verb lives in a file named after it.

/** The verbs of request services. A new verb is added here and in services/README.md. */
const VERBS = [
  'acknowledge',
  'add',
  'apply',
  'check',
  'confirm',
  'count',
  'create',
  'delete',
  'export',
  'get',
  'import',
  'list',
  'plan',
  'receive',
  'remove',
  'replay',
  'resolve',
  'reveal',
  'rotate',
  'send',
  'subscribe',
  'test',
  'unsubscribe',
  'update',
];

const baseName = (filename) => filename.split(/[\\/]/).pop().replace(/\.ts$/, '');
const isVerbFile = (base) => VERBS.some((verb) => base === verb || base.startsWith(`${verb}-`));

/** `(deps, { ctx, input })`: two parameters, the second an object pattern of ctx and/or input alone. */
function hasVerbShape(params) {
  if (params.length !== 2) return false;
  const [deps, second] = params;
  if (deps.type !== 'Identifier' && deps.type !== 'ObjectPattern') return false;
  if (second.type !== 'ObjectPattern' || second.properties.length === 0) return false;
  return second.properties.every(
    (p) => p.type === 'Property' && !p.computed && p.key.type === 'Identifier' && ['ctx', 'input'].includes(p.key.name),
  );
}

/** A step of a verb for another verb's transaction: the transaction comes first. */
const takesTransaction = (params) => params[0]?.type === 'Identifier' && params[0].name === 'tx';

/** The functions a declaration exports: `export (async) function f`, `export const f = (...) => ...`. */
function exportedFunctions(declaration) {
  if (!declaration) return [];
  if (declaration.type === 'FunctionDeclaration') return [{ name: declaration.id?.name ?? 'default', fn: declaration }];
  if (declaration.type === 'ArrowFunctionExpression' || declaration.type === 'FunctionExpression')
    return [{ name: 'default', fn: declaration }];
  if (declaration.type !== 'VariableDeclaration') return [];
  return declaration.declarations
    .filter((d) => d.init && (d.init.type === 'ArrowFunctionExpression' || d.init.type === 'FunctionExpression'))
    .map((d) => ({ name: d.id.type === 'Identifier' ? d.id.name : '(destructured)', fn: d.init }));
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Request services are `verb(deps, { ctx, input })` in files named after their verb' },
    schema: [],
    messages: {
      notAVerb:
        '`{{name}}` is exported from the verb file {{file}}.ts: a verb file exports `verb(deps, { ctx, input })` and ' +
        'steps that take a transaction first (`step(tx, ...)`) only. Make it a verb, or move it to a file not named ' +
        'after a verb (services/README.md).',
      verbElsewhere:
        '`{{name}}` has the shape of a verb but {{file}}.ts is not named after one: name the file ' +
        '`<verb>-<object>.ts` (verbs: {{verbs}}) or change the shape (services/README.md).',
    },
  },
  create(context) {
    const file = baseName(context.filename);
    const verbFile = isVerbFile(file);
    const check = (declaration) => {
      for (const { name, fn } of exportedFunctions(declaration)) {
        const verbShape = hasVerbShape(fn.params);
        if (verbFile && !verbShape && !takesTransaction(fn.params))
          context.report({ node: fn, messageId: 'notAVerb', data: { name, file } });
        else if (!verbFile && verbShape)
          context.report({ node: fn, messageId: 'verbElsewhere', data: { name, file, verbs: VERBS.join(', ') } });
      }
    };
    return {
      ExportNamedDeclaration: (node) => check(node.declaration),
      ExportDefaultDeclaration: (node) => check(node.declaration),
    };
  },
};
