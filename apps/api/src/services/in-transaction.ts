import type { Prisma } from '@statusvane/shared';

/**
 * A write that must commit or roll back together with a service's own (the Idempotency-Key's stored answer): a
 * service that accepts one calls it inside its transaction, after its own writes, with the result it will return.
 * Throwing rolls the whole transaction back.
 */
export type InTransaction<T> = (tx: Prisma.TransactionClient, result: T) => Promise<void>;
