import type { Prisma } from '@statusvane/shared';
import type { CreateScheduleInput } from './schedule-input.js';

/** The nested create of a schedule's layers, in order (position 0 first: a later layer wins). */
export function layersCreate(layers: CreateScheduleInput['layers']) {
  return {
    create: layers.map((l, position) => ({
      position,
      name: l.name,
      startsAt: l.startsAt,
      rotationEvery: l.rotation.every,
      rotationUnit: l.rotation.unit,
      handoffTime: l.handoffTime,
      members: l.members,
      restrictions: (l.restrictions ?? []) as Prisma.InputJsonValue,
    })),
  } satisfies Prisma.ScheduleLayerCreateNestedManyWithoutScheduleInput;
}
