// serving_pages.e2e.mjs — the serving plugin's pages in headless Chromium
// against the cubed test_serving_pages.py started (CUBE_URL, CUBE_USER,
// CUBE_PASSWORD, CHROMIUM, CUBE_WEB_DIR, CUBE_EXPECT: what each iris
// version answers for the example request; CUBE_SHOTS: where screenshots
// go), project lab holding the Ready versions iris-1 and iris-2 and the
// Ready two-predictor service split (a 100 %, b 0 %). At 1440x900: the
// list, the zero-code form (iris-web, latest version), Ready, try it,
// charts, events, split's sliders, revisions and Rollback, 中文. At 390x844
// every page and tab again, each fitting the viewport. No console error.
// Prints {"moved": <the traffic the sliders applied>} last.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const lib = await import(pathToFileURL(path.join(process.env.CUBE_WEB_DIR, 'e2e', 'lib.mjs')).href);
const { assertFitsViewport, launch, openPage, settle, shoot, signIn, SIZES } = lib;

const URL = process.env.CUBE_URL;
const USER = process.env.CUBE_USER;
const PASSWORD = process.env.CUBE_PASSWORD;
const EXPECT = JSON.parse(process.env.CUBE_EXPECT);
const P = '/p/lab/inferenceservices';
const API = '/api/v1/projects/lab/inferenceservices';
const log = (msg) => console.log(msg);

function fail(msg) {
  throw new Error(msg);
}

async function apiJson(page, p) {
  const r = await page.request.get(URL + p);
  if (!r.ok()) fail(`GET ${p}: ${r.status()} ${await r.text()}`);
  return r.json();
}

/** Polls GET p until pred(doc) holds (30 s). */
async function until(page, p, pred, what) {
  const deadline = Date.now() + 30000;
  let doc;
  while (Date.now() < deadline) {
    doc = await apiJson(page, p);
    if (pred(doc)) return doc;
    await page.waitForTimeout(200);
  }
  fail(`${what}: not seen through the API: ${JSON.stringify(doc?.spec)} ${JSON.stringify(doc?.status)}`);
}

async function tab(page, name) {
  await page.getByRole('tab', { name, exact: true }).click();
  await settle(page);
}

const sameTraffic = (a, b) => JSON.stringify(a ?? []) === JSON.stringify(b ?? []);

/** The service list, then iris-web made with the zero-code form. */
async function listAndCreate(page, loaded) {
  await page.goto(URL + P);
  await page.getByRole('heading', { name: 'Inference services' }).waitFor();
  await page.getByRole('link', { name: 'split', exact: true }).waitFor();
  await page.locator('tr[data-row-key="split"]').getByText('Ready').waitFor();
  await page.locator('tr[data-row-key="split"] [data-predictor="a"]', { hasText: 'a 1/1' }).waitFor();
  if (!loaded.includes('/ui/plugins/serving/page.js')) fail('the list did not load /ui/plugins/serving/page.js');
  await settle(page);
  await shoot(page, 'list');
  log('ok   services list: split Ready, a 1/1');

  await page.getByRole('button', { name: 'New service' }).click();
  await page.waitForURL(/\/inferenceservices\/_new$/);
  await page.locator('#family').click();
  await page.locator('.ant-select-item-option[title="iris"]').click();
  // the latest version is picked; the runtime follows its framework
  await page.locator('.ant-select-selection-item[title="v2"]').waitFor();
  await page.getByTestId('runtime').getByText('sklearn').waitFor();
  await page.locator('#name').fill('iris-web');
  await page.locator('#cpu').fill('100m');
  await page.locator('#memory').fill('256Mi');
  await settle(page);
  // the submit button on a row of its own, under the last fields
  const stage = await page.locator('#stage').locator('xpath=ancestor::div[contains(@class,"ant-form-item")][1]').boundingBox();
  const submit = await page.getByRole('button', { name: 'Create', exact: true }).boundingBox();
  if (submit.y < stage.y + stage.height - 1) fail(`the Create button sits beside the fields (y ${submit.y}, stage ends at ${stage.y + stage.height})`);
  await shoot(page, 'create');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await page.waitForURL(/\/inferenceservices\/iris-web$/);
  await page.getByRole('heading', { name: 'iris-web' }).waitFor();
  await page.locator('.ant-tag', { hasText: /^Ready$/ }).waitFor({ timeout: 120000 });
  await page.locator('[data-replicas="default"]', { hasText: '1/1' }).waitFor();
  await settle(page);
  await shoot(page, 'service');
  log('ok   zero-code form: iris-web from iris v2 (sklearn), Ready');
}

/** Try it (the model's example request), the charts, the events. */
async function tryChartsEvents(page) {
  await tab(page, 'Try it');
  const body = page.getByLabel('Request body');
  await page.waitForFunction((el) => el.value.includes('"inputs"'), await body.elementHandle());
  await page.getByRole('button', { name: 'Send' }).click();
  const answer = page.getByTestId('try-answer');
  await answer.getByText('HTTP 200').waitFor();
  await answer.getByText(/^default · /).waitFor();
  const doc = JSON.parse(await answer.locator('pre').innerText());
  const got = doc.outputs?.[0]?.data;
  if (!sameTraffic(got, EXPECT['iris-2'])) fail(`try it answered ${JSON.stringify(doc)}, not ${JSON.stringify(EXPECT['iris-2'])}`);
  await shoot(page, 'try');
  log(`ok   try it: the example request answered ${JSON.stringify(got)}, as sklearn does`);

  await tab(page, 'Charts');
  for (const name of ['Requests and errors per second', 'Latency (ms)', 'In flight', 'Replicas'])
    await page.getByRole('img', { name, exact: true }).locator('canvas').first().waitFor();
  await page.waitForTimeout(500);
  await shoot(page, 'charts');
  log('ok   charts: four drawn');

  await tab(page, 'Events');
  await page.getByRole('cell', { name: 'ReplicaReady' }).first().waitFor();
  await shoot(page, 'events');
  log('ok   events: ReplicaReady');
}

/** split: the sliders move traffic from a to b; returns what was applied. */
async function moveTraffic(page) {
  await page.goto(URL + `${P}/split`);
  await page.getByRole('heading', { name: 'split' }).waitFor();
  const first = await apiJson(page, `${API}/split`);
  const before = first.spec.traffic;
  const rail = page.locator('[data-traffic="a"] .ant-slider');
  const box = await rail.boundingBox();
  await page.mouse.click(box.x + box.width * 0.7, box.y + box.height / 2);
  const a = Number(await page.locator('[data-traffic="a"] [role="slider"]').getAttribute('aria-valuenow'));
  const b = Number(await page.locator('[data-traffic="b"] [role="slider"]').getAttribute('aria-valuenow'));
  if (!(a > 50 && a < 90) || a + b !== 100) fail(`the sliders show a ${a}, b ${b}`);
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByText('Applied: a new revision rolls out').waitFor();
  const moved = [{ predictor: 'a', percent: a }, { predictor: 'b', percent: b }];
  const svc = await until(page, `${API}/split`, (d) => sameTraffic(d.spec.traffic, moved), 'the new split');
  if (sameTraffic(svc.spec.traffic, before)) fail('spec.traffic did not change');
  const applied = await until(page, `${API}/split`,
    (d) => sameTraffic(d.status?.traffic, moved) && d.status?.revision > first.status.revision,
    'the new split applied as a new revision');
  await page.locator('tr[data-row-key="a"]').getByText(`${a}%`).waitFor();
  await page.getByText(`#${applied.status.revision}`).first().waitFor();
  await settle(page);
  await shoot(page, 'traffic');
  log(`ok   traffic sliders: a ${a} %, b ${b} % in spec.traffic and applied`);
  return moved;
}

/** split's revisions: Rollback to #1 brings its traffic back. */
async function rollBack(page) {
  await tab(page, 'Revisions');
  const row = (n) => page.locator(`.ant-tabs-tabpane-active tr[data-row-key="${n}"]`);
  const now = (await apiJson(page, `${API}/split`)).status.revision;
  await row(now).getByText('current').waitFor();
  await shoot(page, 'revisions');
  await row(1).getByRole('button', { name: 'Rollback' }).click();
  await page.locator('.ant-popconfirm').getByText('Roll the spec of revision 1 out again?').waitFor();
  await page.locator('.ant-popconfirm .ant-btn-primary').click();
  await page.getByText('Revision 1 is rolling out again').waitFor();
  const back = [{ predictor: 'a', percent: 100 }, { predictor: 'b', percent: 0 }];
  const after = await until(page, `${API}/split`,
    (d) => sameTraffic(d.spec.traffic, back) && sameTraffic(d.status?.traffic, back) && d.status?.revision > now,
    'the rolled-back split');
  await row(after.status.revision).getByText('current').waitFor();
  await shoot(page, 'rolled-back');
  log(`ok   revisions: Rollback to #1, traffic a 100 % again as revision ${after.status.revision}`);

  await tab(page, 'Events');
  await page.getByRole('cell', { name: 'RolledBack' }).first().waitFor();
  log('ok   events: RolledBack');
}

async function chinese(page) {
  await page.evaluate(() => localStorage.setItem('cube.lang', 'zh'));
  await page.goto(URL + P);
  await page.getByRole('heading', { name: '推理服务' }).waitFor();
  await page.getByRole('button', { name: '新建服务' }).waitFor();
  await page.getByRole('columnheader', { name: '服务名' }).waitFor();
  await page.locator('tr[data-row-key="iris-web"]').getByText('就绪').waitFor();
  await page.goto(URL + `${P}/iris-web`);
  for (const name of ['流量', '图表', '试用', '版本历史', '事件', '规格'])
    await page.getByRole('tab', { name, exact: true }).waitFor();
  await page.getByText('流量分配').waitFor();
  await tab(page, '试用');
  await page.getByRole('button', { name: '发 送' }).or(page.getByRole('button', { name: '发送' })).waitFor();
  await shoot(page, 'zh');
  log('ok   中文: list, tabs, labels');
}

const TABS = ['traffic', 'charts', 'try', 'revisions', 'events', 'spec'];   // in the page's order
/** What each tab's pane shows once it is open. */
const PANE = ['[data-traffic]', 'canvas', 'textarea', 'tr[data-row-key="1"]', '.ant-table', 'pre'];

/** Opens the service page's i-th tab as a phone user does: by its title
 *  when the tab bar shows it, else from the bar's "more" menu; then waits
 *  until it is the active tab and its pane drawn. */
async function openTab(page, i) {
  const tab = page.getByRole('tab').nth(i);
  const name = (await tab.innerText()).trim();
  await page.waitForTimeout(400);   // the bar's scroll motion after the last change
  const bar = await page.locator('.ant-tabs-nav-wrap').first().boundingBox();
  const box = await tab.boundingBox();
  if (box && box.x >= bar.x - 1 && box.x + box.width <= bar.x + bar.width + 1) {
    await tab.click();
  } else {
    await page.locator('.ant-tabs-nav-more').first().click();
    await page.locator('.ant-tabs-dropdown-menu-item', { hasText: name }).click();
  }
  await page.locator('.ant-tabs-tab-active', { hasText: name }).waitFor();
  await page.locator(`.ant-tabs-tabpane-active ${PANE[i]}`).first().waitFor();
}

/** Every page and tab at the current (phone) size: each fits. */
async function walk(page, where, prefix) {
  const fits = async (name) => {
    await settle(page);
    await assertFitsViewport(page, { where: `${where}: ${name}` });
    await shoot(page, `${prefix}${name}`);
  };
  await page.goto(URL + P);
  await page.getByRole('link', { name: 'iris-web', exact: true }).waitFor();
  await fits('list');
  await page.goto(URL + `${P}/_new`);
  await page.locator('#family').click();
  await page.locator('.ant-select-item-option[title="iris"]').click();
  await page.getByTestId('runtime').getByText('sklearn').waitFor();
  await fits('create');
  for (const svc of ['iris-web', 'split']) {
    await page.goto(URL + `${P}/${svc}`);
    await page.getByRole('heading', { name: svc }).waitFor();
    await page.getByRole('tab').first().waitFor();
    const tabs = await page.getByRole('tab').count();
    if (tabs !== TABS.length) fail(`${svc}: ${tabs} tabs, not ${TABS.length}`);
    for (let i = 0; i < tabs; i++) {
      await openTab(page, i);
      if (i === 2) {   // try it, sent
        await page.waitForFunction(() => document.querySelector('textarea')?.value.includes('"inputs"'));
        await page.locator('.ant-tabs-tabpane-active .ant-btn-primary').click();
        await page.getByTestId('try-answer').getByText('HTTP 200').waitFor();
      }
      await fits(`${svc}-${TABS[i] ?? i}`);
    }
  }
  log(`ok   ${where}: list, form, both services' tabs fit the viewport`);
}

async function main() {
  const browser = await launch();
  let moved;
  try {
    const desk = await openPage(browser, SIZES.desktop);
    try {
      const loaded = [];
      desk.page.on('response', (r) => loaded.push(new globalThis.URL(r.url()).pathname));
      await signIn(desk.page, URL, USER, PASSWORD, P);
      await listAndCreate(desk.page, loaded);
      await tryChartsEvents(desk.page);
      moved = await moveTraffic(desk.page);
      await rollBack(desk.page);
      await chinese(desk.page);
      desk.errors.check('at 1440x900');
    } catch (e) {
      log(`     at ${desk.page.url()}`);
      await shoot(desk.page, 'failure').catch(() => {});
      throw e;
    } finally {
      await desk.context.close();
    }
    for (const lang of ['en', 'zh']) {
      const phone = await openPage(browser, SIZES.phone, lang === 'zh' ? { locale: 'zh-CN' } : {});
      try {
        await signIn(phone.page, URL, USER, PASSWORD, P);
        await phone.page.evaluate((l) => localStorage.setItem('cube.lang', l), lang);
        await walk(phone.page, `390x844 (${lang})`, lang === 'zh' ? 'zh-' : '');
        phone.errors.check(`at 390x844 (${lang})`);
      } catch (e) {
        log(`     at ${phone.page.url()}`);
        await shoot(phone.page, 'failure').catch(() => {});
        throw e;
      } finally {
        await phone.context.close();
      }
    }
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify({ moved }));
}

main().then(() => process.exit(0), (e) => {
  console.log(`FAIL ${e.stack ?? e.message}`);
  process.exit(1);
});
