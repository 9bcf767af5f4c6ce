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

const closure = (key, into = new Set()) => {
  const c = manifest[key];
  if (!c || into.has(c.file)) return into;
  into.add(c.file);
  for (const i of c.imports ?? []) closure(i, into);
  return into;
};
const sizes = new Map();
const sizeOf = (f) => {
  if (!sizes.has(f)) sizes.set(f, size(f));
  return sizes.get(f);
};
const gzOf = (files) => [...files].filter((f) => f.endsWith('.js')).reduce((n, f) => n + sizeOf(f).gz, 0);

// the shell = the entry and its static imports, on every page
// (the other entries are the modules shared with plugin pages, sdk-*)
const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry && k.endsWith('index.html'));
const first = closure(entryKey);

const files = [...new Set(Object.values(manifest).flatMap((c) => [c.file, ...(c.css ?? [])]))].sort();
const total = { raw: 0, gz: 0 };
console.log(`${'chunk (* = in the shell, loaded by every page)'.padEnd(52)}     raw KiB  gzip KiB`);
for (const f of files) {
  const s = sizeOf(f);
  total.raw += s.raw;
  total.gz += s.gz;
  console.log(`${(f + (first.has(f) ? ' *' : '')).padEnd(52)} ${kib(s.raw)}  ${kib(s.gz)}`);
}
console.log(`${'all chunks'.padEnd(52)} ${kib(total.raw)}  ${kib(total.gz)}`);

// a page's JS = the shell + the lazily loaded page chunk and its imports
console.log(`\n${'page (shell + its lazy chunks)'.padEnd(52)}           gzip KiB`);
const pages = Object.keys(manifest).filter((k) => manifest[k].isDynamicEntry).sort();
let over = [];
for (const k of pages) {
  const gz = gzOf(closure(k, new Set(first)));
  console.log(`${k.replace(/^src\//, '').padEnd(52)}           ${kib(gz)}`);
  // the first page a visitor sees: the login page, then home
  if (/pages\/(auth\/Login|home\/Home)\.tsx$/.test(k) && gz > BUDGET_KIB * 1024) over.push(`${k}: ${(gz / 1024).toFixed(1)} KiB`);
}
console.log(`${'shell alone'.padEnd(52)}           ${kib(gzOf(first))}   budget for login/home ${BUDGET_KIB} KiB gzip`);
if (over.length) {
  console.error(`bundle-report: over the ${BUDGET_KIB} KiB gzip budget: ${over.join(', ')}: split it (React.lazy per route)`);
  process.exit(1);
}
