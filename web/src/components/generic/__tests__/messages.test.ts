// Every string of these areas exists in English and 中文, under the area's prefix.
import generic from '../messages';
import kinds from '../../../pages/kinds/messages';
import jobs from '../../../pages/jobs/messages';
import infra from '../../../pages/infra/messages';
import events from '../../../pages/events/messages';
import plugin from '../../../pages/plugin/messages';

const bundles = { generic, kinds, jobs, infra, events, plugin };

describe('messages', () => {
  for (const [area, b] of Object.entries(bundles))
    it(`${area}: same keys in en and zh, all prefixed`, () => {
      expect(Object.keys(b.zh).sort()).toEqual(Object.keys(b.en).sort());
      for (const k of Object.keys(b.en)) expect(k.startsWith(`${area}.`)).toBe(true);
      for (const [k, v] of Object.entries(b.en)) {
        const vars = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort().join();
        expect(vars((b.zh as Record<string, string>)[k]), k).toBe(vars(v));
      }
    });
});
