import { describe, expect, it } from '@jest/globals';
import { isLoopbackHost } from './metrics-server.js';

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.1.2.3', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST'])(
    '%s is loopback',
    (h) => {
      expect(isLoopbackHost(h)).toBe(true);
    },
  );
  it.each(['0.0.0.0', '::', '10.0.0.5', '192.168.1.10', '::ffff:10.0.0.1', 'metrics.internal', '128.0.0.1', 'fe80::1'])(
    '%s is not',
    (h) => {
      expect(isLoopbackHost(h)).toBe(false);
    },
  );
});
