import { describe, expect, it } from '@jest/globals';
import { kebab, OpenApiDocumentError, openApiMonitors } from './openapi-monitors.js';

const options = { name: 'shop', baseUrl: 'https://shop.example/v1/' };
const doc = (paths: Record<string, unknown>, schemas: Record<string, unknown> = {}, openapi = '3.0.3') => ({
  openapi,
  info: { title: 't', version: '1' },
  paths,
  components: { schemas },
});
const ok = (schema: unknown) => ({ '200': { description: 'ok', content: { 'application/json': { schema } } } });

describe('kebab', () => {
  it.each([
    ['getPetById', 'get-pet-by-id'],
    ['listHTTPRoutes', 'list-http-routes'],
    ['/pets/{id}/photos', 'pets-id-photos'],
    ['get_user.v2', 'get-user-v2'],
  ])('%s -> %s', (text, expected) => expect(kebab(text)).toBe(expected));
});

describe('openApiMonitors', () => {
  it('rewrites 3.0 nullable and boolean exclusive bounds, without touching properties named like keywords', () => {
    const { operations } = openApiMonitors(
      doc(
        { '/a': { get: { operationId: 'getA', responses: ok({ $ref: '#/components/schemas/A' }) } } },
        {
          A: {
            type: 'object',
            properties: {
              nullable: { type: 'boolean' },
              n: { type: 'integer', minimum: 0, exclusiveMinimum: true },
              e: { type: 'string', enum: ['x'], nullable: true },
              s: { type: 'string', nullable: true },
            },
          },
        },
      ),
      options,
    );
    expect(operations[0]!.monitor).toMatchObject({
      ref: 'openapi.shop.get-a',
      target: 'https://shop.example/v1/a',
      expectedStatusCodes: [200],
      responseSchema: {
        $ref: '#/$defs/A',
        $defs: {
          A: {
            properties: {
              nullable: { type: 'boolean' },
              n: { type: 'integer', exclusiveMinimum: 0 },
              e: { type: ['string', 'null'], enum: ['x', null] },
              s: { type: ['string', 'null'] },
            },
          },
        },
      },
    });
  });

  it('leaves out a schema with a $ref it cannot resolve, and keeps the monitor', () => {
    const { operations } = openApiMonitors(
      doc({ '/b': { get: { responses: ok({ $ref: 'https://elsewhere.example/schema.json' }) } } }),
      options,
    );
    expect(operations[0]!.monitor).toMatchObject({ ref: 'openapi.shop.get-b', metadata: { openapi: 'GET /b' } });
    expect(operations[0]!.monitor).not.toHaveProperty('responseSchema');
  });

  it('fills required parameters from their examples, skips what it cannot call, and keeps what `include` names', () => {
    const paths = {
      '/items/{id}': {
        get: {
          operationId: 'getItem',
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' }, example: 'a b' },
            { name: 'v', in: 'query', required: true, schema: { type: 'integer', example: 2 } },
            { name: 'opt', in: 'query', schema: { type: 'string' } },
          ],
          responses: {},
        },
      },
      '/users/{id}': { get: { operationId: 'getUser', parameters: [{ name: 'id', in: 'path', required: true }] } },
      '/other': { get: { operationId: 'other', responses: {} } },
    };
    const all = openApiMonitors(doc(paths), options).operations;
    expect(all.find((o) => o.key === 'getItem')!.monitor).toMatchObject({
      target: 'https://shop.example/v1/items/a%20b?v=2',
    });
    expect(all.find((o) => o.key === 'getUser')!.skipped).toBe('parameter id (path) is required and has no example');
    const some = openApiMonitors(doc(paths), { ...options, include: ['GET /other'] }).operations;
    expect(some.map((o) => o.key)).toEqual(['other']);
  });

  it('refuses what is not OpenAPI 3.0 or 3.1', () => {
    expect(() => openApiMonitors({ swagger: '2.0' }, options)).toThrow(OpenApiDocumentError);
    expect(() => openApiMonitors({ openapi: '4.0.0' }, options)).toThrow(/3\.0\.x or 3\.1\.x/);
    expect(() => openApiMonitors('x', options)).toThrow(OpenApiDocumentError);
  });
});
