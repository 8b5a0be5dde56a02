import { sealTarget, type EncryptionKey } from '@statusvane/shared';
import type { CreateEscalationPolicyInput } from './policy-input.js';

/**
 * The nested create of a ladder: steps in order, each with its targets in order, every target sealed (encrypted with
 * the deployment's current key, shown by its display form).
 */
export function stepsCreate(steps: CreateEscalationPolicyInput['steps'], key: EncryptionKey) {
  return {
    create: steps.map((s, position) => ({
      position,
      delayMinutes: s.delayMinutes,
      minImpact: s.minImpact,
      targets: {
        create: s.targets.map((t, tp) => ({ position: tp, channel: t.channel, ...sealTarget(t, key) })),
      },
    })),
  };
}
