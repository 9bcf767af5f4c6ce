// shell.mjs — the console's frame and cross-cutting flows in headless
// Chromium, as the user alice (creator of project "demo"), once at 1440x900
// and once at 390x844, in the America/New_York time zone (so that local time
// and UTC differ). tests/web/test_console_shell.py starts cubed with every
// page's plugin and seeds it (tests/web/consoleseed.py). Flows:
//   login      a first visit: the favicon is served and linked, the login
//              page logs no console error (auth/me's 401 included)
//   frame      at 390 px the sidebar is a drawer (closed, opened by Menu,
//              closed by a choice) and the header one line; at 1440 px a
//              sidebar
//   tokens     the tokens page lists only alice's own token; the running
//              Job's CUBE_TOKEN is listed under the Job (no Revoke)
//   infra      nodes with capacity, the pools, the default pool's queue
//   zh         language switched to 中文; after a fresh load the sidebar's
//              groups and kinds are 中文 from the first paint (no raw
//              plural), phases, roles and the Job form too
//   dag        + adds tasks that stay on the canvas, Arrange keeps them
//              apart, the upstream output picker inserts
//              {{ tasks.x.outputs.y }}, the name banner goes once fixed
//   times      times local with UTC on hover; the pipeline list's Last run
//              and Next scheduled run (with the pipeline's zone on hover);
//              the Schedule tab's error goes after a good save
// Every page is shot at both sizes ($CUBE_SHOTS) and, at phone size, checked
// to fit the viewport (assertFitsViewport). No console error is allowed but
// the 4xx a step provokes on purpose.
import { assertFitsViewport, launch, openPage, settle, shoot, signIn, SIZES } from './lib.mjs';

const URL = process.env.CUBE_URL;
const SEED = JSON.parse(process.env.CUBE_SEED ?? '{}');
const ZONE = 'America/New_York';

let page;
let errors;
let size;
let current = '';

const log = (msg) => process.stderr.write(msg + '\n');
const phone = () => size.width < 600;

async function step(name, fn) {
  current = name;
  const t0 = Date.now();
  await fn();
  log(`ok   ${size.width}px ${name} (${Date.now() - t0} ms)`);
}

async function look(name) {
  await settle(page);
  await shoot(page, name);
  if (phone()) await assertFitsViewport(page, { where: `${name} (${new globalThis.URL(page.url()).pathname})` });
}

async function api(path) {
  return page.evaluate(async (p) => {
    const r = await fetch(p, { credentials: 'same-origin' });
    return { status: r.status, type: r.headers.get('content-type'), body: await r.text() };
  }, path);
}

async function until(what, fn, timeout = 15000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await page.waitForTimeout(100);
  }
}

function fail(msg) {
  throw new Error(msg);
}

/** The sidebar's entry texts (on a phone: opened in its drawer, then closed). */
async function sidebarTexts() {
  if (phone()) await page.getByRole('button', { name: /^(Menu|菜单)$/ }).click();
  const sidebar = page.getByTestId('sidebar');
  await sidebar.locator('.ant-menu-title-content').first().waitFor();
  const texts = await sidebar.locator('.ant-menu-title-content').allInnerTexts();
  if (phone()) {
    await page.keyboard.press('Escape');
    await sidebar.waitFor({ state: 'hidden' });
  }
  return texts.map((s) => s.trim());
}

async function login() {
  await page.goto(`${URL}/projects`);
  await page.waitForURL(/\/login\?next=/);
  await page.getByLabel('User name').waitFor();
  const icon = await page.locator('link[rel="icon"]').getAttribute('href');
  if (!icon) fail('the page links no favicon');
  const got = await api(icon);
  if (got.status !== 200 || !/svg|icon|png/.test(got.type ?? '')) fail(`the favicon ${icon}: ${got.status} ${got.type}`);
  await look('login');
  errors.check('on a first visit to the login page');
}

async function frame() {
  await page.locator('.ant-layout-header').waitFor();
  const header = await page.locator('.ant-layout-header').boundingBox();
  if (header.height > 65) fail(`the header is ${header.height} px high`);
  const parts = await page.locator('.ant-layout-header > *').evaluateAll((els) =>
    els.map((e) => e.getBoundingClientRect()).filter((r) => r.width > 0).map((r) => [r.top, r.bottom]));
  for (const [top, bottom] of parts)
    if (top < header.y - 1 || bottom > header.y + header.height + 1) fail(`the header wraps: a part at ${top}..${bottom}`);
  if (phone()) {
    if (await page.locator('.ant-layout-sider').count()) fail('a sidebar beside the page at 390 px');
    if (await page.getByTestId('sidebar').isVisible()) fail('the drawer is open before Menu');
    await page.getByRole('button', { name: 'Menu' }).click();
    const sidebar = page.getByTestId('sidebar');
    await sidebar.waitFor();
    // measured once it has slid in (during the motion it starts left of 0)
    await page.waitForFunction(() => !document.querySelector('.ant-drawer-content-wrapper[class*="-motion-"]'));
    await look('drawer');
    await sidebar.getByRole('menuitem', { name: /(^|\s)Jobs$/ }).click();
    await page.waitForURL(/\/p\/demo\/jobs$/);
    await sidebar.waitFor({ state: 'hidden' });
  } else {
    await page.locator('.ant-layout-sider').getByRole('menuitem', { name: /(^|\s)Jobs$/ }).click();
    await page.waitForURL(/\/p\/demo\/jobs$/);
  }
  await page.getByRole('link', { name: SEED.job, exact: true }).waitFor();
  await look('jobs');
}

async function tokens() {
  const own = JSON.parse((await api('/api/v1/auth/tokens')).body).items;
  const work = JSON.parse((await api(`/api/v1/auth/tokens?job=demo/${SEED.job}`)).body).items;
  if (!work.length) fail('the running job holds no token');
  await page.goto(`${URL}/tokens`);
  const table = page.locator('.ant-table-tbody');
  await table.locator('tr.ant-table-row').first().waitFor();
  const rows = await table.locator('tr.ant-table-row').count();
  if (rows !== own.length) fail(`the tokens page lists ${rows} tokens, alice has ${own.length}`);
  const ids = await table.locator('tr.ant-table-row').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-row-key')));
  if (ids.some((id) => work.some((w) => w.id === id))) fail('a job token is listed among alice\'s own');
  await look('tokens');

  await page.goto(`${URL}/p/demo/jobs/${SEED.job}`);
  await page.getByRole('heading', { name: SEED.job }).waitFor();
  await page.getByRole('tab', { name: 'API tokens' }).click();
  const jt = page.getByTestId('job-tokens');
  await jt.locator('tr.ant-table-row').first().waitFor();
  if ((await jt.locator('tr.ant-table-row').count()) !== work.length) fail('the job page does not list the job\'s tokens');
  if (await jt.getByRole('button', { name: 'Revoke' }).count()) fail('a job token offers Revoke');
  await look('job-tokens');
}

async function infra() {
  await page.goto(`${URL}/nodes`);
  await page.getByRole('link', { name: 'n-0', exact: true }).waitFor();
  await page.getByRole('link', { name: 'n-1', exact: true }).waitFor();
  await page.getByText('/ 16', { exact: false }).first().waitFor();
  await look('nodes');
  await page.goto(`${URL}/pools`);
  await page.getByRole('link', { name: 'default', exact: true }).click();
  await page.waitForURL(/\/pools\/default$/);
  await page.getByRole('heading', { name: 'Queue' }).waitFor();
  await look('pool');
}

async function times() {
  // a Job's times: local, the UTC value on hover
  await page.goto(`${URL}/p/demo/jobs/${SEED.job}`);
  const started = page.locator('time').first();
  await started.waitFor();
  const title = await started.getAttribute('title');
  const utc = await started.getAttribute('data-utc');
  const shown = (await started.innerText()).trim();
  if (!/ UTC$/.test(title ?? '') || !utc) fail(`a job's time has no UTC on hover: ${title}`);
  if (utc.startsWith(shown)) fail(`a job's time is shown in UTC (${shown}) in ${ZONE}`);

  // the pipeline list: Last run filled, the next run with its zone on hover
  await page.goto(`${URL}/p/demo/pipelines`);
  const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: SEED.pipeline, exact: true }) });
  await row.getByRole('link', { name: SEED.run, exact: true }).waitFor();
  const next = row.locator('time[title*="Asia/Shanghai"]');
  await next.waitFor();
  if (!/ 02:30 Asia\/Shanghai/.test(await next.getAttribute('title'))) fail(`next run: ${await next.getAttribute('title')}`);
  await look('pipelines');

  // the Schedule tab: a refused save names the field, a good one clears it
  errors.allow(/\/api\/v1\/projects\/demo\/pipelines\/etl/);
  await page.goto(`${URL}/p/demo/pipelines/${SEED.pipeline}?tab=schedule`);
  const zone = page.getByLabel('Time zone');
  await zone.waitFor();
  const save = page.locator('.ant-card').filter({ has: zone }).locator('button[type="submit"]');
  await zone.fill('Mars/Olympus');
  await save.click();
  await page.locator('.ant-form-item-explain-error, [role="alert"]').first().waitFor();
  await look('schedule-refused');
  await zone.fill('Asia/Shanghai');
  await save.click();
  await page.getByText('Schedule saved').first().waitFor();
  await until('the old errors gone', async () =>
    (await page.locator('.ant-form-item-explain-error').count()) === 0 &&
    (await page.locator('.ant-tabs-tabpane-active .ant-alert-error').count()) === 0);
  await look('schedule');
}

/** The canvas' nodes, each {id, box}, and the canvas' box. */
async function canvas() {
  const c = page.getByTestId('dag-canvas');
  const cb = await c.boundingBox();
  const nodes = await c.locator('.react-flow__node').evaluateAll((els) =>
    els.map((e) => {
      const r = e.getBoundingClientRect();
      return { id: e.getAttribute('data-id'), x: r.left, y: r.top, r: r.right, b: r.bottom };
    }));
  return { cb, nodes };
}

function inside({ cb, nodes }, what) {
  for (const n of nodes)
    if (n.x < cb.x - 1 || n.y < cb.y - 1 || n.r > cb.x + cb.width + 1 || n.b > cb.y + cb.height + 1)
      fail(`${what}: task ${n.id} is off the canvas (${Math.round(n.x)},${Math.round(n.y)}..${Math.round(n.r)},${Math.round(n.b)} in ${JSON.stringify(cb)})`);
}

async function dag() {
  await page.goto(`${URL}/p/demo/pipelines/_new`);
  await page.getByPlaceholder('Search templates').fill('python');
  const add = page.getByRole('button', { name: 'Add python-script' });
  for (let i = 1; i <= 4; i++) {
    await add.click();
    await until(`task ${i} on the canvas`, async () => (await canvas()).nodes.length === i);
    await page.waitForTimeout(400); // the view follows in 200 ms
    inside(await canvas(), `after + number ${i}`);
  }
  await page.getByRole('button', { name: 'Arrange' }).click();
  await page.waitForTimeout(500);
  const arranged = await canvas();
  inside(arranged, 'after Arrange');
  for (const a of arranged.nodes)
    for (const b of arranged.nodes)
      if (a.id < b.id && a.x < b.r && b.x < a.r && a.y < b.b && b.y < a.b) fail(`Arrange leaves ${a.id} over ${b.id}`);
  await look('dag');

  // the last task added is selected; each + hung the new task below the
  // selected one, so its upstream is the one added before it
  const ids = arranged.nodes.map((n) => n.id); // in the order they were added
  const first = ids[ids.length - 2];
  await page.getByRole('button', { name: 'Insert an upstream output into --code' }).click();
  const picker = page.getByTestId('output-picker---code');
  await picker.waitFor();
  await picker.locator('.ant-select-selector').first().click();
  await page.locator('.ant-select-item-option').filter({ hasText: new RegExp(`^${first}$`) }).click();
  await picker.getByRole('combobox', { name: 'Output' }).fill('path');
  await picker.getByRole('button', { name: 'Insert' }).click();
  const want = `{{ tasks.${first}.outputs.path }}`;
  await until(`${want} in --code`, async () =>
    (await page.locator('textarea, input').evaluateAll((els) => els.map((e) => e.value))).some((v) => v.includes(want)));
  await look('dag-output-picker');

  // a bad name: the banner says so, and goes once the name is fixed
  const name = page.getByRole('textbox', { name: 'Name', exact: true });
  await name.fill('Bad Name!');
  await page.getByRole('button', { name: /(^|\s)Save$/ }).click();
  const banner = page.getByRole('alert').filter({ hasText: 'Names are lower-case' });
  await banner.waitFor();
  await look('dag-banner');
  await name.fill(`dag-${size.width}`);
  await banner.waitFor({ state: 'detached' });
  await page.getByRole('button', { name: /(^|\s)Save$/ }).click();
  await until('the pipeline saved', async () => (await api(`/api/v1/projects/demo/pipelines/dag-${size.width}`)).status === 200);
  const saved = JSON.parse((await api(`/api/v1/projects/demo/pipelines/dag-${size.width}`)).body);
  if (saved.spec.tasks.length !== 4 || !JSON.stringify(saved.spec.tasks).includes(want.replace(/"/g, '\\"')))
    fail(`the saved pipeline: ${JSON.stringify(saved.spec.tasks)}`);
}

async function zh() {
  await page.goto(`${URL}/`);
  await page.getByLabel('Language').first().click();
  await page.locator('.ant-select-item-option').filter({ hasText: '中文' }).click();
  await page.getByText('我的项目').first().waitFor();
  // a fresh load: no pipeline page has run, the labels are 中文 already
  await page.reload();
  await page.locator('.ant-layout-header').waitFor();
  const texts = await sidebarTexts();
  for (const group of ['训练', '平台', '流水线', '基础设施'])
    if (!texts.includes(group)) fail(`the sidebar lacks the group ${group}: ${texts.join(', ')}`);
  for (const kind of ['任务模板', '任务'])
    if (!texts.includes(kind)) fail(`the sidebar lacks ${kind}: ${texts.join(', ')}`);
  const kinds = JSON.parse((await api('/api/v1/kinds')).body).items ?? [];
  const raw = new Set(kinds.map((k) => k.plural[0].toUpperCase() + k.plural.slice(1)));
  const bad = texts.filter((s) => raw.has(s) || /^[A-Z][a-z]+s$/.test(s));
  if (bad.length) fail(`raw names in the sidebar: ${bad.join(', ')}`);
  await look('home-zh');
  await page.goto(`${URL}/p/demo/jobs`);
  const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: SEED.job, exact: true }) });
  await row.getByText('运行中', { exact: true }).waitFor();
  await page.locator('.ant-layout-header').getByText('demo (创建者)').waitFor();
  await look('jobs-zh');
  await page.goto(`${URL}/p/demo/jobs/new`);
  await page.getByRole('heading', { name: '新建任务' }).waitFor();
  await look('job-form-zh');
  await page.getByLabel('语言').first().click();
  await page.locator('.ant-select-item-option').filter({ hasText: 'English' }).click();
  await page.getByRole('heading', { name: 'New job' }).waitFor();
}

async function run(which) {
  size = SIZES[which];
  const browser = await launch();
  try {
    ({ page, errors } = await openPage(browser, size, { timezoneId: ZONE }));
    await step('login', login);
    await signIn(page, URL, 'alice', SEED.alicePassword, '/');
    await step('frame', frame);
    await step('tokens', tokens);
    await step('nodes and pools', infra);
    await step('times and schedules', times);
    await step('dag editor', dag);
    await step('zh', zh);
    errors.check(`at ${size.width}px`);
  } catch (e) {
    await shoot(page, `failure-${which}`).catch(() => undefined);
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
