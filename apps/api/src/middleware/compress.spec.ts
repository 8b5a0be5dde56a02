import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { compressAnswers } from './compress.js';

let server: http.Server;
let port: number;
beforeAll(async () => {
  const app = express();
  app.use(compressAnswers(app));
  app.get('/typed', (req, res) => {
    if (req.query.vary) res.setHeader('Vary', String(req.query.vary));
    if (req.query.cache) res.setHeader('Cache-Control', String(req.query.cache));
    res.type(String(req.query.type)).send('x'.repeat(Number(req.query.size ?? 10)));
  });
  // Headers handed to writeHead itself count, as compression's own hook sees them.
  app.get('/head-object', (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('x');
  });
  app.get('/head-reason', (_req, res) => {
    res.writeHead(200, 'Fine', ['Content-Type', 'application/json', 'Cache-Control', 'no-transform']).end('{}');
  });
  server = http.createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});

/** Node's client adds no Accept-Encoding: the path most API clients take. */
const get = (query: Record<string, string>, headers: Record<string, string> = {}) =>
  new Promise<{ vary: string | undefined; encoding: string | undefined }>((resolve, reject) => {
    const path = `/typed?${new URLSearchParams(query).toString()}`;
    http
      .get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ vary: res.headers.vary, encoding: res.headers['content-encoding'] as string | undefined }),
        );
      })
      .on('error', reject);
  });

describe('compressAnswers without Accept-Encoding', () => {
  it('adds Vary: Accept-Encoding to the answers it could encode, and only to those, every time', async () => {
    const cases: Array<[Record<string, string>, string | undefined]> = [
      [{ type: 'text/plain' }, 'Accept-Encoding'],
      [{ type: 'image/png' }, undefined],
      [{ type: 'application/json' }, 'Accept-Encoding'],
      [{ type: 'text/event-stream' }, undefined],
      [{ type: 'text/plain', cache: 'public, no-transform' }, undefined],
      // Merged with what the route set, as res.vary merges.
      [{ type: 'text/plain', vary: 'Origin' }, 'Origin, Accept-Encoding'],
      [{ type: 'text/plain', vary: 'accept-encoding' }, 'accept-encoding'],
      [{ type: 'text/html', vary: '*' }, '*'],
    ];
    // Twice over: the second round answers from the verdicts kept by Content-Type.
    for (let round = 0; round < 2; round++) {
      for (const [query, vary] of cases) expect([round, query, (await get(query)).vary]).toEqual([round, query, vary]);
    }
  });

  it('judges the headers handed to writeHead too, keeping its reason phrase', async () => {
    const raw = (path: string) =>
      new Promise<[string | undefined, string | undefined]>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
            res.resume();
            res.on('end', () => resolve([res.statusMessage, res.headers.vary]));
          })
          .on('error', reject);
      });
    expect(await raw('/head-object')).toEqual(['OK', 'Accept-Encoding']);
    expect(await raw('/head-reason')).toEqual(['Fine', undefined]);
  });

  it('still encodes what a client accepts, and never an event stream', async () => {
    expect(await get({ type: 'text/plain', size: '5000' }, { 'Accept-Encoding': 'gzip' })).toEqual({
      vary: 'Accept-Encoding',
      encoding: 'gzip',
    });
    expect(await get({ type: 'text/event-stream', size: '5000' }, { 'Accept-Encoding': 'gzip' })).toEqual({
      vary: undefined,
      encoding: undefined,
    });
  });
});
