// forms.mjs — the console's forms and infrastructure pages in headless
// Chromium, as an administrator, once at 1440x900 and once at 390x844
// (tests/web/test_console_forms.py starts cubed on executor-sim and seeds
// it). Each flow checks through the API what the console did:
//   users      a too-short password is refused on its field before any user
//              is made; a good one creates the user
//   projects   a new project lists its creator; a member is picked from the
//              users; quotas are edited in a form (a bad amount is named)
//   job form   a shell-split command line, env rows (a bad name is refused on
//              its field, scrolled into view), the YAML mode, defaults and
//              units; the job's page opens at its top; Stop is audited
//   infra      every node with capacity, the pools, a pool's queue
//   notebooks  actions by phase, a link to its page, only enabled IDEs,
//              Delete
// At phone size every page is checked to fit the viewport
// (assertFitsViewport); screenshots of each page at both sizes go to
// $CUBE_SHOTS. No console error is allowed but the 4xx answers a step
// provokes on purpose.
import { assertFitsViewport, launch, openPage, settle, shoot, signIn, SIZES } from './lib.mjs';

const URL = process.env.CUBE_URL;
const ADMIN_PASSWORD = process.env.CUBE_ADMIN_PASSWORD;
const NOTEBOOKS = JSON.parse(process.env.CUBE_NOTEBOOKS ?? '{}');

let page;
let errors;
let size;
let current = '';

function log(msg) {
  process.stderr.write(msg + '\n');
}

async function step(name, fn) {
  current = name;
  const t0 = Date.now();
  await fn();
  log(`ok   ${size.width}px ${name} (${Date.now() - t0} ms)`);
}

/** Screenshot, and at phone size the viewport check, of the page as it is. */
async function look(name) {
  await settle(page);
  await shoot(page, name);
  if (size.width < 600) await assertFitsViewport(page, { where: `${name} (${new globalThis.URL(page.url()).pathname})` });
}

/** A GET with the page's session: what the server holds after a step. */
async function api(path) {
  return page.evaluate(async (p) => {
    const r = await fetch(p, { credentials: 'same-origin' });
    return { status: r.status, body: await r.json().catch(() => null) };
  }, path);
}

async function until(what, fn, timeout = 20000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await page.waitForTimeout(200);
  }
}

async function dialog(name) {
  const d = page.getByRole('dialog', { name });
  await d.waitFor();
  await settle(page);
  return d;
}

function fieldError(scope, text) {
  return scope.locator('.ant-form-item-explain-error').filter({ hasText: text });
}

async function inViewport(locator) {
  const box = await locator.boundingBox();
  const vp = page.viewportSize();
  return box && box.y >= 0 && box.y + box.height <= vp.height;
}

async function users(sfx) {
  const name = `carl-${sfx}`;
  errors.allow(/\/api\/v1\/auth\/password\/check/);
  errors.allow(new RegExp(`/api/v1/users/${name}`));
  await page.goto(`${URL}/users`);
  await page.getByRole('button', { name: 'New user' }).click();
  const d = await dialog('New user');
  await d.getByLabel('Name', { exact: true }).fill(name);
  await d.getByLabel('Password').fill('short');
  await d.getByRole('button', { name: 'Create' }).click();
  await fieldError(d, 'at least 8 characters').waitFor();
  await look('users-new-refused');
  const none = await api(`/api/v1/users/${name}`);
  if (none.status !== 404) throw new Error(`a refused password made the user: ${none.status}`);
  await d.getByLabel('Password').fill('long-enough-password-1');
  await d.getByRole('button', { name: 'Create' }).click();
  await d.waitFor({ state: 'hidden' });
  await page.getByRole('cell', { name, exact: true }).waitFor();
  const made = await api(`/api/v1/users/${name}`);
  if (made.status !== 200) throw new Error(`the user was not made: ${made.status}`);
  await look('users');
}

async function projects(sfx) {
  const name = `forms-${sfx}`;
  await page.goto(`${URL}/projects`);
  await page.getByRole('button', { name: 'New project' }).click();
  const d = await dialog('New project');
  await d.getByLabel('Name').fill(name);
  await d.getByRole('button', { name: 'Create' }).click();
  await d.waitFor({ state: 'hidden' });
  const p = await api(`/api/v1/projects/${name}`);
  const members = JSON.stringify(p.body?.spec?.members);
  if (members !== JSON.stringify([{ user: 'admin', role: 'creator' }])) throw new Error(`members of a new project: ${members}`);

  await page.getByRole('link', { name, exact: true }).click();
  await page.waitForURL(new RegExp(`/projects/${name}$`));
  await page.getByRole('heading', { name }).waitFor();
  if (size.width >= 600) {
    // the header's project switcher shows the project being viewed
    await page.locator('.ant-layout-header').getByText(new RegExp(`^${name}( |$)`)).first().waitFor();
  }
  await page.getByRole('combobox', { name: 'Choose a user' }).fill('bob');
  await page.getByTitle('Bob Builder (bob)', { exact: true }).click();
  await page.getByRole('button', { name: 'Add member' }).click();
  await page.getByRole('combobox', { name: 'Role bob' }).waitFor();
  const after = await api(`/api/v1/projects/${name}`);
  if (!after.body?.spec?.members?.some((m) => m.user === 'bob' && m.role === 'dev')) throw new Error('bob did not join as dev');
  await look('project-members');

  await page.getByRole('tab', { name: 'Quotas' }).click();
  await page.getByRole('button', { name: 'Edit quotas' }).click();
  const q = await dialog('Edit quotas');
  await q.getByRole('button', { name: 'Add a quota' }).click();
  await q.getByRole('combobox', { name: 'Resource 1' }).fill('cpu');
  await q.getByLabel('Max 1').fill('lots');
  await q.getByRole('button', { name: 'Save' }).click();
  await fieldError(q, 'Not an amount').waitFor();
  await look('project-quota-form');
  await q.getByLabel('Max 1').fill('4');
  await q.getByRole('button', { name: 'Save' }).click();
  await q.waitFor({ state: 'hidden' });
  const quotas = (await api(`/api/v1/projects/${name}`)).body?.spec?.quotas;
  if (quotas?.default?.max?.cpu !== 4) throw new Error(`quotas on the server: ${JSON.stringify(quotas)}`);
  await page.getByText('Pool default').waitFor();
  await look('project-quotas');
  return name;
}

async function jobForm(project, sfx) {
  const job = `job-${sfx}`;
  await page.goto(`${URL}/p/${project}/jobs`);
  await page.getByRole('button', { name: 'Submit job' }).click();
  await page.waitForURL(new RegExp(`/p/${project}/jobs/new$`));
  await page.getByRole('heading', { name: 'New job' }).waitFor();
  await page.getByLabel('Name', { exact: true }).fill(job);
  await page.getByLabel('Command line', { exact: true }).fill(`/bin/sh -c "echo hello; sleep 600"`);
  await page.getByRole('button', { name: 'Add a variable' }).click();
  await page.getByLabel('Variable name 1').fill('1BAD');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  const err = fieldError(page, 'A variable name is letters');
  await err.waitFor();
  await until('the first error scrolled into view', () => inViewport(page.getByLabel('Variable name 1')), 5000);
  await look('job-form-error');
  await page.getByLabel('Variable name 1').fill('GREETING');
  await page.getByLabel('Variable value 1').fill('hello world');

  await page.getByText('YAML', { exact: true }).click();
  const yaml = page.getByLabel('Job as YAML');
  await yaml.waitFor();
  const text = await yaml.inputValue();
  if (!text.includes('GREETING: hello world') || !text.includes('memory: 2Gi')) throw new Error(`the YAML:\n${text}`);
  await look('job-form-yaml');
  await page.getByText('Form', { exact: true }).click();
  await page.getByLabel('Command line', { exact: true }).waitFor();
  await look('job-form');

  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await page.waitForURL(new RegExp(`/p/${project}/jobs/${job}$`));
  await page.getByRole('heading', { name: job }).waitFor();
  const top = await page.evaluate(() => window.scrollY);
  if (top !== 0) throw new Error(`the job's page opened scrolled to ${top}`);
  const spec = (await api(`/api/v1/projects/${project}/jobs/${job}`)).body?.spec ?? {};
  const want = { command: ['/bin/sh', '-c', 'echo hello; sleep 600'], resources: { cpu: '1', memory: '2Gi' }, env: { GREETING: 'hello world' } };
  for (const [k, v] of Object.entries(want))
    if (JSON.stringify(spec[k]) !== JSON.stringify(v)) throw new Error(`spec.${k} on the server: ${JSON.stringify(spec[k])}`);
  await page.getByText('Running', { exact: true }).first().waitFor({ timeout: 30000 });
  await look('job-detail');

  await page.getByRole('button', { name: 'Stop' }).click();
  await page.getByRole('tooltip').getByRole('button', { name: 'Stop' }).click();
  const ev = await until('a StopRequested event', async () => {
    const r = await api(`/api/v1/projects/${project}/events`);
    return (r.body?.items ?? []).find((e) => e.reason === 'StopRequested' && e.involvedObject?.name === job);
  });
  if (ev.user !== 'admin') throw new Error(`the stop names ${ev.user}`);
}

async function infra() {
  await page.goto(`${URL}/nodes`);
  await page.getByRole('heading', { name: 'Nodes' }).waitFor();
  await page.getByRole('link', { name: 'n-0', exact: true }).waitFor();
  await page.getByRole('link', { name: 'n-1', exact: true }).waitFor();
  await page.getByText('/ 16', { exact: false }).first().waitFor();
  await look('nodes');
  await page.getByRole('link', { name: 'n-0', exact: true }).click();
  await page.getByRole('heading', { name: 'n-0' }).waitFor();
  await look('node-detail');
  await page.goto(`${URL}/pools`);
  await page.getByRole('link', { name: 'default', exact: true }).click();
  await page.waitForURL(/\/pools\/default$/);
  await page.getByRole('heading', { name: 'Queue' }).waitFor();
  await page.getByRole('link', { name: 'queue/waiting', exact: true }).waitFor();
  await page.getByRole('table', { name: 'Queue' }).getByText('quota', { exact: false }).first().waitFor();
  await look('pool-detail');
}

async function notebooks(sfx) {
  const nb = NOTEBOOKS[sfx];
  errors.allow(new RegExp(`/notebooks/${nb}`));
  await page.goto(`${URL}/p/public/notebooks`);
  const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: nb, exact: true }) });
  await row.waitFor();
  await row.getByText('Stopped', { exact: true }).waitFor();
  await row.getByRole('button', { name: 'Start' }).waitFor();
  for (const absent of ['Open', 'Stop', 'Renew'])
    if (await row.getByRole('button', { name: absent, exact: true }).count()) throw new Error(`a stopped notebook offers ${absent}`);
  await look('notebooks');

  await row.getByRole('link', { name: nb, exact: true }).click();
  await page.waitForURL(new RegExp(`/p/public/notebooks/${nb}$`));
  await page.getByRole('heading', { name: nb }).waitFor();
  await page.getByRole('button', { name: 'Start' }).waitFor();
  if (await page.getByText(/launch/i).count()) throw new Error('the notebook page offers the launcher\'s action');
  await look('notebook-detail');

  await page.getByRole('link', { name: 'Notebooks' }).first().click();
  await page.getByRole('button', { name: 'New notebook' }).click();
  const d = await dialog('New notebook');
  await d.locator('.ant-form-item').filter({ hasText: 'IDE' }).locator('.ant-select-selector').first().click();
  await page.locator('.ant-select-item-option').filter({ hasText: 'Jupyter' }).first().waitFor();
  if (await page.locator('.ant-select-item-option').filter({ hasText: 'VS Code' }).count()) throw new Error('VS Code is offered while disabled');
  await look('notebook-new');
  await page.keyboard.press('Escape');
  await d.getByRole('button', { name: 'Cancel' }).click();
  await d.waitFor({ state: 'hidden' });

  const again = page.getByRole('row').filter({ has: page.getByRole('link', { name: nb, exact: true }) });
  await again.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('tooltip').getByRole('button', { name: 'Delete' }).click();
  await again.waitFor({ state: 'detached' });
  await until('the notebook gone', async () => (await api(`/api/v1/projects/public/notebooks/${nb}`)).status === 404);
}

async function run(which) {
  size = SIZES[which];
  const sfx = which === 'desktop' ? 'd' : 'p';
  const browser = await launch();
  try {
    ({ page, errors } = await openPage(browser, size));
    await signIn(page, URL, 'admin', ADMIN_PASSWORD);
    await step('users', () => users(sfx));
    await step('projects', () => projects(sfx));
    await step('job form', () => jobForm(`forms-${sfx}`, sfx));
    await step('nodes and pools', infra);
    await step('notebooks', () => notebooks(sfx));
    errors.check(`at ${size.width}px`);
  } catch (e) {
    await shoot(page, `failure-${sfx}`).catch(() => undefined);
    throw new Error(`${size.width}px, ${current}: ${e.message}\n  at ${page.url()}\n` +
      errors.list().map((x) => `  ${x.text} ${x.url}`).join('\n'));
  } finally {
    await browser.close();
  }
}

try {
  await run('desktop');
  await run('phone');
  console.log(JSON.stringify({ ok: true }));
} catch (e) {
  log(`FAIL ${e.message}`);
  process.exit(1);
}
