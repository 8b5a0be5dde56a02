/** A valid http monitor create body; override any field. Public IP literal: no DNS, never probed in API tests. */
export function makeMonitorInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'Homepage', target: 'https://93.184.215.14/health', ...overrides };
}
