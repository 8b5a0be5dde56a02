import { describe, expect, it } from '@jest/globals';
import { changesBetween } from './record-write.js';

describe('changesBetween', () => {
  const settings = { id: 'm', version: 1, name: 'API', keyword: null, regions: ['eu'], metadata: { team: 'ops' } };

  it('a create: every field set, from null, in the order of the record; identity and version left out', () => {
    expect(changesBetween(null, settings)).toEqual({
      name: { from: null, to: 'API' },
      regions: { from: null, to: ['eu'] },
      metadata: { from: null, to: { team: 'ops' } },
    });
    expect(Object.keys(changesBetween(null, settings))).toEqual(['name', 'regions', 'metadata']);
  });

  it('a delete: every field set, to null', () => {
    expect(changesBetween(settings, null)).toEqual({
      name: { from: 'API', to: null },
      regions: { from: ['eu'], to: null },
      metadata: { from: { team: 'ops' }, to: null },
    });
  });

  it('an update: only the fields whose value differs, deep; secrets by whether one was set', () => {
    const after = { ...settings, version: 2, keyword: 'ok', regions: ['eu'], metadata: { team: 'web' } };
    expect(changesBetween(settings, after, { headers: [false, true] })).toEqual({
      keyword: { from: null, to: 'ok' },
      metadata: { from: { team: 'ops' }, to: { team: 'web' } },
      headers: { from: null, to: '<redacted>' },
    });
  });
});
