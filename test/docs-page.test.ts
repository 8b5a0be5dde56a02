// The API reference page (/docs): what it documents is true.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { makeHarness, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

describe('GET /docs', () => {
  it('prints no limit that is not one (the safe-integer bounds of an integer schema)', async () => {
    const res = await request(h.app).get('/docs');
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('9007199254740991');
    // Real limits stay.
    expect(res.text).toMatch(/max 250/);
  });
});
