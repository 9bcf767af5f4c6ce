// bundle-report.mjs — prints every chunk of dist/ (raw and gzip) and fails
// when the first page's JavaScript (the entry chunk and everything it
// imports statically) is over the budget gzipped. Run by `npm run build`.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

const BUDGET_KIB = Number(process.env.CUBE_WEB_BUDGET_KIB ?? 500);
const dist = new URL('../dist/', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8'));

const size = (file) => {
  const buf = readFileSync(join(dist, file));
  return { raw: buf.length, gz: gzipSync(buf, { level: 9 }).length };
};
const kib = (n) => (n / 1024).toFixed(1).padStart(8);

// first page = the entry and its static imports, recursively
const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry);
const first = new Set();
(function walk(key) {
  const c = manifest[key];
  if (!c || first.has(c.file)) return;
  first.add(c.file);
  for (const i of c.imports ?? []) walk(i);
})(entryKey);

const files = [...new Set(Object.values(manifest).flatMap((c) => [c.file, ...(c.css ?? [])]))].sort();
let total = { raw: 0, gz: 0 };
let initial = { raw: 0, gz: 0 };
console.log(`${'chunk'.padEnd(52)}     raw KiB  gzip KiB`);
for (const f of files) {
  const s = size(f);
  total.raw += s.raw;
  total.gz += s.gz;
  const mark = first.has(f) ? ' *' : '';
  if (first.has(f) && f.endsWith('.js')) {
    initial.raw += s.raw;
    initial.gz += s.gz;
  }
  console.log(`${(f + mark).padEnd(52)} ${kib(s.raw)}  ${kib(s.gz)}`);
}
console.log(`${'all chunks'.padEnd(52)} ${kib(total.raw)}  ${kib(total.gz)}`);
console.log(`${'first page JS (* above)'.padEnd(52)} ${kib(initial.raw)}  ${kib(initial.gz)}   budget ${BUDGET_KIB} KiB gzip`);
if (initial.gz > BUDGET_KIB * 1024) {
  console.error(`bundle-report: the first page's JS is ${(initial.gz / 1024).toFixed(1)} KiB gzipped, over the ${BUDGET_KIB} KiB budget: split it (React.lazy per route)`);
  process.exit(1);
}
