// The slot logic lives in packages/shared (the API's queue metrics need it too); re-exported for the worker.
export { slotOf } from '@statusvane/shared';
