// console.e2e.mjs — the web console's end-to-end scenario in headless
// Chromium (playwright-core), against the cubed that test_console.py
// started. Environment: CUBE_URL, CUBE_ADMIN_PASSWORD, CUBE_E2E_OUT (the
// screenshots), CUBE_CHROMIUM, CUBE_WEB_DIR (where playwright-core is
// installed). Steps run in order and stop at the first failure, which
// leaves failure-<step>.png and the page's URL and console errors.
//
// Selectors are what a user sees: roles, labels and texts, never test ids.
// Waits are on visible elements or server state, never fixed sleeps.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(path.join(process.env.CUBE_WEB_DIR, 'package.json'));
const { chromium } = require('playwright-core');

const BASE = process.env.CUBE_URL;
const OUT = process.env.CUBE_E2E_OUT;
const ADMIN_PASSWORD = process.env.CUBE_ADMIN_PASSWORD;
const PROJECT = 'e2e-proj';
const JOB = 'e2e-hello';
const SLEEPER = 'e2e-sleeper'; // running since the test started (test_console.py)
const JOB_OUTPUT = 'hello from the console e2e test';
const TOKEN = 'e2e-token';

const consoleErrors = [];
const pageErrors = [];
let page;

function log(msg) {
  process.stdout.write(msg + '\n');
}

/** Waits until no skeleton or spinner is on screen (data loaded). */
async function settled() {
  await page.waitForFunction(
    () => !document.querySelector('.ant-skeleton, .ant-spin-spinning, .ant-table-placeholder .ant-spin'),
    null,
    { timeout: 20000 },
  );
}

/** The dialog named `name`, once antd's opening animation is over: a click
 *  that lands while the dialog is still zooming in can miss its button. */
async function openedDialog(name) {
  const dialog = page.getByRole('dialog', { name });
  await dialog.waitFor();
  await page.waitForFunction(() => !document.querySelector('.ant-zoom-appear, .ant-zoom-enter'), null, {
    timeout: 10000,
  });
  return dialog;
}

async function shot(name) {
  await settled();
  await page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });
}

async function step(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    log(`ok   ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    log(`FAIL ${name}: ${e.message.split('\n').slice(0, 6).join('\n     ')}`);
    log(`     at ${page.url()}`);
    for (const m of consoleErrors.slice(-10)) log(`     console: ${m}`);
    await page
      .screenshot({ path: path.join(OUT, `failure-${name}.png`), fullPage: true })
      .catch(() => undefined);
    throw e;
  }
}

/** A same-origin GET with the browser's session cookie: checks what the
 *  server holds after a step. */
async function apiGet(p) {
  return page.evaluate(async (url) => {
    const r = await fetch(url, { credentials: 'same-origin' });
    return { status: r.status, body: await r.json().catch(() => null) };
  }, p);
}

/** A sidebar entry by its label (its icon's name may come first). */
function menuItem(label) {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return page.getByRole('menuitem', { name: new RegExp(`(^|\\s)${escaped}$`) });
}

async function goto(p) {
  await page.goto(BASE + p);
}

async function main() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cube-e2e-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CUBE_CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
    viewport: { width: 1366, height: 860 },
    locale: 'en-US',
  });
  context.setDefaultTimeout(15000);
  page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  try {
    await scenario();
    if (pageErrors.length) throw new Error('uncaught errors in the page:\n' + pageErrors.join('\n'));
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

async function scenario() {
  await step('login-page', loginPage);
  await step('wrong-password', wrongPassword);
  await step('login', login);
  await step('language', language);
  await step('projects', projects);
  await step('project-member', projectMember);
  await step('users', users);
  await step('tokens', tokens);
  await step('kind-list', kindList);
  await step('jobs-list', jobsList);
  await step('job-submit', jobSubmit);
  await step('job-succeeds', jobSucceeds);
  await step('nodes', nodes);
  await step('job-stop', jobStop);
  await step('events', events);
  await step('plugin-page', pluginPage);
  await step('logout', logout);
}

async function loginPage() {
  await goto('/');
  await page.waitForURL(/\/login/);
  await page.getByLabel('User name').waitFor();
  await shot('login');
}

/** The server's refusal is shown as it is, and the form stays. */
async function wrongPassword() {
  await page.getByLabel('User name').fill('admin');
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'invalid user name or password' }).waitFor();
  if (!page.url().includes('/login')) throw new Error(`left the login page: ${page.url()}`);
}

async function login() {
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
  await page.getByRole('heading', { name: /Administrator/ }).waitFor();
  await shot('home');
}

/** Chooses an option of a select box by its accessible name, with the
 *  keyboard as a user can (the combobox opens on ArrowDown). */
async function choose(comboboxName, option) {
  const box = page.getByRole('combobox', { name: comboboxName });
  await box.focus();
  await box.press('ArrowDown');
  await page.getByTitle(option, { exact: true }).click();
}

/** 中文 and back; the choice survives a reload. */
async function language() {
  await choose('Language', '中文');
  await menuItem('首页').waitFor();
  await page.reload();
  await menuItem('首页').waitFor();
  await page.getByRole('combobox', { name: '语言' }).waitFor();
  await choose('语言', 'English');
  await menuItem('Home').waitFor();
  await page.reload();
  await menuItem('Home').waitFor();
}

async function projects() {
  await menuItem('Projects').click();
  await page.waitForURL(/\/projects$/);
  await page.getByRole('cell', { name: 'public' }).waitFor();
  await page.getByRole('button', { name: 'New project' }).click();
  const dialog = await openedDialog('New project');
  await dialog.getByLabel('Name').fill(PROJECT);
  await dialog.getByRole('button', { name: 'Create' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByRole('link', { name: PROJECT, exact: true }).waitFor();
  await shot('projects');
}

/** bob (seeded) joins the new project as a dev. */
async function projectMember() {
  await page.getByRole('link', { name: PROJECT, exact: true }).click();
  await page.waitForURL(new RegExp(`/projects/${PROJECT}$`));
  await page.getByRole('heading', { name: PROJECT }).waitFor();
  await page.getByRole('combobox', { name: 'Choose a user' }).fill('bob');
  await page.getByTitle('Bob Builder (bob)', { exact: true }).click();
  await page.getByRole('button', { name: 'Add member' }).click();
  await page.getByRole('row').filter({ hasText: 'bob' }).waitFor();
  await page.getByRole('combobox', { name: 'Role bob' }).waitFor();
  const p = await apiGet(`/api/v1/projects/${PROJECT}`);
  const members = (p.body?.spec?.members ?? []).map((m) => `${m.user}:${m.role}`);
  if (!members.includes('bob:dev')) throw new Error(`members on the server: ${members.join(', ')}`);
  await shot('project-detail');
}

async function users() {
  await menuItem('Users').click();
  await page.waitForURL(/\/users$/);
  await page.getByRole('row').filter({ hasText: 'Bob Builder' }).waitFor();
  await page.getByRole('row').filter({ hasText: 'admin' }).first().waitFor();
  await shot('users');
}

/** A new token is shown once, works as a Bearer token, and is not shown
 *  again once its dialog is closed. */
async function tokens() {
  await menuItem('API tokens').click();
  await page.waitForURL(/\/tokens$/);
  await page.getByRole('button', { name: 'New token' }).click();
  const form = await openedDialog('New token');
  await form.getByLabel('Name').fill(TOKEN);
  await form.getByRole('button', { name: 'Create' }).click();
  const shown = await openedDialog('Your new token');   /* a click in its zoom-in can be lost */
  await shown.getByText('it is shown only once').waitFor();
  const secret = await shown.getByRole('textbox').inputValue();
  if (secret.length < 20) throw new Error(`the token shown is "${secret}"`);
  const me = await page.evaluate(async (tok) => {
    const r = await fetch('/api/v1/auth/me', { credentials: 'omit', headers: { Authorization: `Bearer ${tok}` } });
    return { status: r.status, body: await r.json() };
  }, secret);
  if (me.status !== 200 || me.body.user?.name !== 'admin')
    throw new Error(`the new token does not sign in as admin: ${me.status} ${JSON.stringify(me.body)}`);
  await shown.getByRole('button', { name: 'OK' }).click();
  await shown.waitFor({ state: 'hidden' });
  await page.getByRole('cell', { name: TOKEN, exact: true }).waitFor();
  if ((await page.content()).includes(secret)) throw new Error('the token is still on the page after closing');
  await shot('tokens');
}

/** The generic pages of a kind without a page of its own (testkinds'
 *  Widget; the test seeded "sprocket" in the public project). */
async function kindList() {
  await goto('/p/public/k/widgets');
  await page.getByRole('button', { name: 'Create Widget' }).waitFor();
  await page.getByRole('cell', { name: 'sprocket' }).waitFor();
  await shot('kind-list');
}

async function jobsList() {
  await goto('/');
  await menuItem('Jobs').click();
  await page.waitForURL(/\/p\/public\/jobs$/);
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  await page.getByRole('button', { name: 'Submit job' }).waitFor();
  await shot('jobs');
}

/** A Job from the Job form: a name and a command line, split as a shell
 *  splits it (the quoted words stay one). */
async function jobSubmit() {
  await page.getByRole('button', { name: 'Submit job' }).click();
  await page.getByRole('heading', { name: 'New job' }).waitFor();
  await page.getByLabel('Name', { exact: true }).fill(JOB);
  await page.getByLabel('Command line', { exact: true }).fill(`/bin/sh -c "echo ${JOB_OUTPUT}"`);
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await page.waitForURL(new RegExp(`/p/public/jobs/${JOB}$`));
  const job = await apiGet(`/api/v1/projects/public/jobs/${JOB}`);
  const cmd = JSON.stringify(job.body?.spec?.command);
  if (cmd !== JSON.stringify(['/bin/sh', '-c', `echo ${JOB_OUTPUT}`])) throw new Error(`the job's command: ${cmd}`);
}

/** The job page follows the job to Succeeded and shows its output. */
async function jobSucceeds() {
  await page.getByText('Succeeded', { exact: true }).first().waitFor({ timeout: 120000 });
  await page.getByRole('log', { name: 'Log' }).filter({ hasText: JOB_OUTPUT }).waitFor();
  await shot('job-detail');
  await menuItem('Jobs').click();
  await page.waitForURL(/\/p\/public\/jobs$/);
  await page.getByRole('row').filter({ hasText: JOB }).filter({ hasText: 'Succeeded' }).waitFor();
}

/** The local executor's node in the nodes table, where the seeded
 *  e2e-sleeper job runs. */
async function nodes() {
  const running = await page.waitForFunction(
    async (url) => {
      const job = await (await fetch(url)).json();
      return job.status?.phase === 'Running' && job.status.replicas?.[0]?.node;
    },
    `/api/v1/projects/public/jobs/${SLEEPER}`,
    { polling: 250, timeout: 60000 },
  );
  const node = await running.jsonValue();
  if (!node) throw new Error(`${SLEEPER} is not running`);
  await menuItem('Nodes').click();
  await page.waitForURL(/\/nodes$/);
  await page.getByRole('heading', { name: 'Nodes' }).waitFor();
  await page.getByRole('link', { name: node, exact: true }).waitFor();
  await shot('nodes');
}

/** Stop from the job page: confirm, then the job ends Cancelled. */
async function jobStop() {
  await goto(`/p/public/jobs/${SLEEPER}`);
  await page.getByRole('heading', { name: SLEEPER }).waitFor();
  await page.getByRole('button', { name: 'Stop' }).click();
  await page.getByRole('tooltip').getByRole('button', { name: 'Stop' }).click();
  await page.getByText('Cancelled', { exact: true }).first().waitFor({ timeout: 60000 });
}

/** The public project's events include the job created above. */
async function events() {
  await menuItem('Events').click();
  await page.waitForURL(/\/events/);
  await page.getByRole('heading', { name: 'Events' }).waitFor();
  await page.getByRole('row').filter({ hasText: JOB }).first().waitFor();
  await shot('events');
}

/** The hello plugin's page, opened from its menu entry (Examples → Hello):
 *  its module calls the plugin's route through the console's API client. */
async function pluginPage() {
  await menuItem('Hello').click();
  await page.waitForURL(/\/x\/hello\/hello$/);
  await page.getByRole('heading', { name: 'Hello from a plugin' }).waitFor();
  await page.getByRole('status').filter({ hasText: /^Hello, admin!$/ }).waitFor();
  await shot('plugin-page');
  // The page gets the console's language (context.lang).
  await choose('Language', '中文');
  await page.reload();
  await page.getByRole('heading', { name: '来自插件的问候' }).waitFor();
  await choose('语言', 'English');
  await page.reload();
  await page.getByRole('heading', { name: 'Hello from a plugin' }).waitFor();
}

async function logout() {
  await page.getByRole('button', { name: 'Administrator' }).click();
  await menuItem('Sign out').click();
  await page.waitForURL(/\/login/);
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  const me = await apiGet('/api/v1/auth/me');
  if (me.status !== 401) throw new Error(`after signing out /api/v1/auth/me answers ${me.status}`);
}

main().then(
  () => {
    log(`all steps passed; screenshots in ${OUT}`);
    process.exit(0);
  },
  (e) => {
    log(`scenario failed: ${e.message.split('\n')[0]}`);
    process.exit(1);
  },
);
