import { z } from 'zod';
import { singleQueryValue } from '../schemas/common.js';

/**
 * A position in the event log: (txid, seq), the id of the transaction that wrote the event and the event's own
 * sequence number. Written as 32 lower-case hex digits (16 for each), so that comparing two cursors as strings
 * compares the positions: it is also each event's CloudEvents `sequence` attribute.
 */
export interface EventPosition {
  txid: bigint;
  seq: bigint;
}

const HEX16 = 16;
const CURSOR_SHAPE = /^[0-9a-f]{32}$/;

export function encodeCursor(p: EventPosition): string {
  return p.txid.toString(16).padStart(HEX16, '0') + p.seq.toString(16).padStart(HEX16, '0');
}

export function decodeCursor(cursor: string): EventPosition | null {
  if (!CURSOR_SHAPE.test(cursor)) return null;
  const txid = BigInt(`0x${cursor.slice(0, HEX16)}`);
  const seq = BigInt(`0x${cursor.slice(HEX16)}`);
  // Both are PostgreSQL bigints.
  if (txid > 0x7fffffffffffffffn || seq > 0x7fffffffffffffffn) return null;
  return { txid, seq };
}

/** A cursor in a query or a body: 400 naming the field when it is not one. */
export const cursorSchema = z
  .string()
  .transform((s, ctx) => {
    const p = decodeCursor(s);
    if (!p) {
      ctx.addIssue({
        code: 'custom',
        message: 'Not a cursor of this event log (use a nextCursor or an event sequence)',
      });
      return z.NEVER;
    }
    return p;
  })
  .meta({
    description:
      "A `nextCursor`, or an event's `sequence`: only later events count. A cursor beyond the end of the log is 400.",
    example: '000000000000a1b2000000000000003f',
  });

export const cursorQueryParam = singleQueryValue(cursorSchema);
