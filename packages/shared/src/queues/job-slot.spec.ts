import { describe, expect, it } from '@jest/globals';
import type { Job } from 'bullmq';
import { confirmationJobId, heartbeatDeadlineJobId, heartbeatDeadlineOf, slotOf } from './job-slot.js';

const job = (j: Partial<Job>) => ({ opts: {}, timestamp: 1_000, ...j }) as Job;

describe('slotOf', () => {
  it("takes a scheduler job's slot from its id, not from when it was created (one interval early)", () => {
    const slot = 1_795_315_310_700;
    const j = job({
      id: `repeat:monitor:6f1c2b9e-8d4a-4c1e-9f0b-2a3c4d5e6f70:local:${slot}`,
      repeatJobKey: 'monitor:6f1c2b9e-8d4a-4c1e-9f0b-2a3c4d5e6f70:local',
      timestamp: slot - 60_000 + 48,
    });
    expect(slotOf(j).getTime()).toBe(slot);
  });

  it("takes a re-check's slot from its id, whenever it was created", () => {
    const slot = new Date(1_795_315_325_700);
    const id = confirmationJobId('6f1c2b9e-8d4a-4c1e-9f0b-2a3c4d5e6f70', 'eu-west', slot);
    expect(slotOf(job({ id, timestamp: 1_795_315_310_000 }))).toEqual(slot);
  });

  it('tells a re-check from a heartbeat deadline job: each reads back only its own moment', () => {
    const monitorId = '6f1c2b9e-8d4a-4c1e-9f0b-2a3c4d5e6f70';
    const at = new Date(1_795_315_325_700);
    const hb = heartbeatDeadlineJobId(monitorId, 'eu-west', at);
    expect(heartbeatDeadlineOf(hb)).toEqual(at);
    expect(heartbeatDeadlineOf(confirmationJobId(monitorId, 'eu-west', at))).toBeNull();
    expect(heartbeatDeadlineOf(undefined)).toBeNull();
    // slotOf gives a deadline job its creation time; the check itself judges the deadline (its `notBefore`).
    expect(slotOf(job({ id: hb, timestamp: 1_795_315_310_000 })).getTime()).toBe(1_795_315_310_000);
  });

  it('uses the creation time of a one-off job', () => {
    expect(slotOf(job({ id: 'now-abc-local-1700000000000', timestamp: 1_700_000_000_000 })).getTime()).toBe(
      1_700_000_000_000,
    );
  });

  it('honours prevMillis when a producer sets it, and ignores repeat-like ids without a scheduler', () => {
    expect(slotOf(job({ opts: { prevMillis: 1_700_000_000_500 } as never, timestamp: 5 })).getTime()).toBe(
      1_700_000_000_500,
    );
    expect(slotOf(job({ id: 'repeat:x:123', timestamp: 7 })).getTime()).toBe(7);
  });
});
