import { describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import { answerEncoding } from './rendered-answer.js';

const withHeader = (acceptEncoding: string | undefined) =>
  ({ headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } }) as unknown as Request;

describe('answerEncoding', () => {
  it('takes brotli among encodings the client accepts alike, whatever order it lists them in', () => {
    // What browsers send over HTTPS: gzip first.
    expect(answerEncoding(withHeader('gzip, deflate, br'))).toBe('br');
    expect(answerEncoding(withHeader('gzip, deflate, br, zstd'))).toBe('br');
    expect(answerEncoding(withHeader('*'))).toBe('br');
  });

  it("follows the client's own weights, and sends gzip to clients that take only gzip", () => {
    expect(answerEncoding(withHeader('br;q=0.5, gzip'))).toBe('gzip');
    // Chromium over plain http (the tests' browser), curl --compressed without brotli, aggregators.
    expect(answerEncoding(withHeader('gzip, deflate'))).toBe('gzip');
    expect(answerEncoding(withHeader('gzip'))).toBe('gzip');
    expect(answerEncoding(withHeader('br'))).toBe('br');
  });

  it('sends the answer as it is when the client takes neither', () => {
    expect(answerEncoding(withHeader(undefined))).toBeNull();
    expect(answerEncoding(withHeader(''))).toBeNull();
    expect(answerEncoding(withHeader('identity'))).toBeNull();
    expect(answerEncoding(withHeader('deflate'))).toBeNull();
    expect(answerEncoding(withHeader('gzip;q=0, br;q=0'))).toBeNull();
    expect(answerEncoding(withHeader('*;q=0'))).toBeNull();
    expect(answerEncoding(withHeader(',,;;=q'))).toBeNull();
  });
});
