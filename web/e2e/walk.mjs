// walk.mjs — every page of the console at 390x844, as an administrator, with
// a real object of each kind present (tests/web/test_console_walk.py seeds
// them, tests/web/consoleseed.py): the shell's pages (web/src/routes.tsx and
// App.tsx), the areas' (jobs, infra, events, the generic kind pages of every
// kind of GET /api/v1/kinds: list, an object, its edit form, the create
// form) and the plugins' pages (notebook, pipeline, hpsearch, models: list,
// detail, create). Each page must render without a console error and fit
// the viewport (assertFitsViewport); each is shot into $CUBE_SHOTS. Prints
// {"pages": n} when every page passed, else every page that failed.
import fs from 'node:fs';
import { assertFitsViewport, launch, openPage, settle, shoot, signIn, SIZES } from './lib.mjs';

const URL = process.env.CUBE_URL;
const SEED = JSON.parse(process.env.CUBE_SEED ?? '{}');
const P = '/p/demo';
const log = (msg) => process.stderr.write(msg + '\n');

/** Kinds whose pages a plugin or an area draws (their own paths). */
const OWN_PAGES = {
  jobs: { list: `${P}/jobs`, detail: `${P}/jobs/${SEED.job}`, create: `${P}/jobs/new` },
  notebooks: { list: `${P}/notebooks`, detail: `${P}/notebooks/${SEED.notebook}` },
  pipelines: { list: `${P}/pipelines`, detail: `${P}/pipelines/${SEED.pipeline}`, create: `${P}/pipelines/_new`,
    more: [`${P}/pipelines/${SEED.pipeline}?tab=runs`, `${P}/pipelines/${SEED.pipeline}?tab=schedule`,
      `${P}/pipelines/${SEED.pipeline}/runs/${SEED.run}`] },
  experiments: { list: `${P}/experiments`, detail: `${P}/experiments/${SEED.experiment}`, create: `${P}/experiments/_new` },
  models: { list: `${P}/models`, detail: `${P}/models/${SEED.model}`, create: `${P}/models/_new`,
    more: [`${P}/models/_family/${SEED.family}`] },
};

/** List pages whose create form is a dialog: the button that opens it. */
const DIALOGS = { [`${P}/notebooks`]: 'New notebook', '/projects': 'New project', '/users': 'New user', '/tokens': 'New token' };

const SHELL = ['/', '/projects', '/projects/demo', '/users', '/tokens', '/events',
  '/nodes', '/nodes/n-0', '/pools', '/pools/default'];

async function apiJson(page, path) {
  return page.evaluate(async (p) => {
    const r = await fetch(p, { credentials: 'same-origin' });
    return r.ok ? r.json() : null;
  }, path);
}

/** Every path to visit: the shell's, then per kind its list, first object,
 *  edit and create pages. */
async function paths(page) {
  const out = [...SHELL];
  const kinds = (await apiJson(page, '/api/v1/kinds'))?.items ?? [];
  for (const k of kinds) {
    const own = OWN_PAGES[k.plural];
    if (own) {
      out.push(own.list, own.detail, ...(own.create ? [own.create] : []), ...(own.more ?? []));
      continue;
    }
    const project = k.scope === 'project';
    const base = project ? `${P}/k/${k.plural}` : `/k/${k.plural}`;
    const api = project ? `/api/v1/projects/demo/${k.plural}` : `/api/v1/${k.plural}`;
    out.push(base);
    const first = (await apiJson(page, api))?.items?.[0]?.metadata?.name;
    if (first) out.push(`${base}/${encodeURIComponent(first)}`, `${base}/${encodeURIComponent(first)}/edit`);
    if (!k.readOnly) out.push(`${base}/new`);
  }
  return [...new Set(out)];
}

/** Waits for the page to have drawn its content: no skeleton or spinner in
 *  the content area and something in it. */
async function drawn(page) {
  await page.waitForFunction(() => {
    const c = document.querySelector('.ant-layout-content');
    return c && c.textContent.trim().length > 0 &&
      !c.querySelector('.ant-skeleton, [data-testid="page-skeleton"], .ant-spin-spinning');
  }, null, { timeout: 15000 });
  await settle(page);
}

const name = (p) => p.replace(/[^a-z0-9]+/gi, '_').replace(/^_|_$/g, '') || 'home';

const browser = await launch();
const failed = [];
let n = 0;
try {
  const { page, errors } = await openPage(browser, SIZES.phone);
  await signIn(page, URL, 'admin', process.env.CUBE_ADMIN_PASSWORD);
  // CUBE_ONLY (a regular expression) walks only the paths it matches
  const only = process.env.CUBE_ONLY ? new RegExp(process.env.CUBE_ONLY) : null;
  const all = (await paths(page)).filter((p) => !only || only.test(p));
  log(`walking ${all.length} pages`);
  for (const p of all) {
    const t0 = Date.now();
    errors.clear();
    try {
      await page.goto(URL + p);
      await drawn(page);
      if (/^Nothing here\.$|^页面不存在。$/m.test(await page.locator('.ant-layout-content').innerText())) throw new Error('404 page');
      await shoot(page, `walk-${name(p)}`);
      await assertFitsViewport(page, { where: p });
      if (DIALOGS[p]) {
        // a create form that is a dialog of the list page
        await page.getByRole('button', { name: DIALOGS[p] }).click();
        await page.getByRole('dialog', { name: DIALOGS[p] }).waitFor();
        await settle(page);
        await shoot(page, `walk-${name(p)}-new`);
        await assertFitsViewport(page, { where: `${p}, ${DIALOGS[p]}` });
      }
      errors.check(`on ${p}`);
      n++;
      log(`ok   ${p} (${Date.now() - t0} ms)`);
    } catch (e) {
      await shoot(page, `walk-failure-${name(p)}`).catch(() => undefined);
      failed.push(`${p}: ${e.message.split('\n').slice(0, 16).join('\n    ')}`);
      log(`FAIL ${p}`);
    }
  }
} finally {
  await browser.close();
}
if (failed.length) {
  const report = `${failed.length} pages failed:\n` + failed.join('\n');
  if (process.env.CUBE_SHOTS) fs.writeFileSync(`${process.env.CUBE_SHOTS}/walk-failures.txt`, report + '\n');
  log(report);
  process.exit(1);
}
console.log(JSON.stringify({ pages: n }));
