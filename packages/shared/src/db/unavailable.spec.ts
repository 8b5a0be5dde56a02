import { describe, expect, it } from '@jest/globals';
import { isUnavailableError } from './unavailable.js';

/** The shapes the drivers throw, as seen through Prisma 7 and @prisma/adapter-pg (measured through a TCP proxy). */
const prismaError = (code: string, message: string) =>
  Object.assign(new Error(message), { name: 'PrismaClientKnownRequestError', code, meta: { modelName: 'Workspace' } });

describe('isUnavailableError', () => {
  it('classifies a server that stopped answering on an open connection (pg query_timeout)', () => {
    expect(isUnavailableError(new Error('Query read timeout'))).toBe(true);
    expect(isUnavailableError(new Error('wrapped', { cause: new Error('Query read timeout') }))).toBe(true);
  });

  it('classifies P2028 "Unable to start a transaction in the given time" (interactive and batch transactions)', () => {
    expect(
      isUnavailableError(
        prismaError('P2028', 'Transaction API error: Unable to start a transaction in the given time.'),
      ),
    ).toBe(true);
    expect(
      isUnavailableError(
        prismaError(
          'P2028',
          '\nInvalid `p.$transaction([p.workspace.count()` invocation in\nfile.ts:20:51\n\nTransaction API error: Unable to start a transaction in the given time.',
        ),
      ),
    ).toBe(true);
  });

  it('keeps other P2028s and ordinary failures as bugs', () => {
    expect(
      isUnavailableError(
        prismaError(
          'P2028',
          'Transaction API error: Transaction already closed: A query cannot be executed on a committed transaction.',
        ),
      ),
    ).toBe(false);
    expect(isUnavailableError(prismaError('P2002', 'Unique constraint failed on the fields: (`slug`)'))).toBe(false);
    expect(isUnavailableError(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
    expect(isUnavailableError(null)).toBe(false);
  });

  it("classifies a raw query's P2010 by the adapter error it carries, and only by that", () => {
    const raw = (kind: string, message: string) =>
      Object.assign(
        new Error(
          `Invalid \`prisma.$queryRaw()\` invocation:\n\nRaw query failed. Code: \`N/A\`. Message: \`${message}\``,
        ),
        {
          name: 'PrismaClientKnownRequestError',
          code: 'P2010',
          meta: { driverAdapterError: { name: 'DriverAdapterError', cause: { kind } } },
        },
      );
    // As measured through the outage test's proxy: the server closed the connection mid-request.
    expect(isUnavailableError(raw('ConnectionClosed', 'Server has closed the connection.'))).toBe(true);
    expect(isUnavailableError(raw('SocketTimeout', 'Socket timeout'))).toBe(true);
    expect(isUnavailableError(raw('DatabaseNotReachable', 'unreachable'))).toBe(true);
    // A raw query that is simply wrong stays a bug.
    expect(isUnavailableError(raw('postgres', 'syntax error at or near "SELEC"'))).toBe(false);
  });

  it('still classifies connection failures', () => {
    expect(
      isUnavailableError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })),
    ).toBe(true);
    expect(isUnavailableError(new Error('timeout exceeded when trying to connect'))).toBe(true);
  });
});
