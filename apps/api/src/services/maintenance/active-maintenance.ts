// The lookup lives in packages/shared because the worker needs it too (maintenance suppresses incidents).
export { maintenanceUntilByComponent } from '@statusvane/shared';
