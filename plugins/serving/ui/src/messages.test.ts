import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import messages from './messages';

describe('serving messages', () => {
  it('has every key in both languages', () => {
    expect(Object.keys(messages.zh).sort()).toEqual(Object.keys(messages.en).sort());
  });

  it('has every literal key the pages use', () => {
    const dir = __dirname;
    const used = new Set<string>();
    for (const f of readdirSync(dir).filter((n) => /\.tsx?$/.test(n) && !n.includes('.test.'))) {
      for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/'(serving\.[A-Za-z.]+)'/g)) used.add(m[1]);
    }
    expect([...used].filter((k) => !(k in messages.en))).toEqual([]);
  });
});
