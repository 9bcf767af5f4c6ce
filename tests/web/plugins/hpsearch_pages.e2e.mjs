// hpsearch_pages.e2e.mjs — the hpsearch plugin's pages in headless Chromium
// against the cubed test_hpsearch_pages.py started (CUBE_URL,
// CUBE_ADMIN_PASSWORD, CUBE_CHROMIUM, CUBE_WEB_DIR, CUBE_TRIAL_CODE), with
// the finished experiment "seeded" in project public.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(path.join(process.env.CUBE_WEB_DIR, 'package.json'));
const { chromium } = require('playwright-core');
const BASE = process.env.CUBE_URL;

function fail(msg) {
  throw new Error(msg);
}

async function main() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cube-hpsearch-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CUBE_CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
    viewport: { width: 1400, height: 900 }, locale: 'en-US',
  });
  context.setDefaultTimeout(20000);
  const page = context.pages()[0] ?? (await context.newPage());
  const errors = [];
  const loaded = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('response', (r) => loaded.push(new URL(r.url()).pathname));
  try {
    await page.goto(BASE + '/login');
    await page.getByLabel('User name').fill('admin');
    await page.getByLabel('Password').fill(process.env.CUBE_ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => !u.pathname.startsWith('/login'));

    // the list: the kind's page, live
    await page.goto(BASE + '/p/public/experiments');
    await page.getByRole('button', { name: 'New experiment' }).waitFor();
    if (!loaded.includes('/ui/plugins/hpsearch/page.js')) fail('the page did not load /ui/plugins/hpsearch/page.js');
    await page.getByRole('link', { name: 'seeded' }).waitFor();
    await page.getByText('Succeeded').first().waitFor();
    console.log('ok   experiments list');

    // one experiment: trials, charts, a log
    await page.getByRole('link', { name: 'seeded' }).click();
    await page.waitForURL(/\/p\/public\/experiments\/seeded$/);
    const rows = page.locator('.ant-table-tbody tr.ant-table-row');
    await rows.nth(5).waitFor();
    if ((await rows.count()) !== 6) fail(`the trials table has ${await rows.count()} rows, not 6`);
    await page.getByRole('columnheader', { name: 'x' }).waitFor();   // a column per parameter
    await page.getByRole('tab', { name: 'Charts' }).click();
    for (const name of ['Best value so far, and each trial\'s value', 'Intermediate results', 'Parameters and value']) {
      const chart = page.getByRole('img', { name });
      await chart.locator('canvas').first().waitFor();
    }
    if (process.env.CUBE_E2E_OUT)
      await page.screenshot({ path: path.join(process.env.CUBE_E2E_OUT, 'hpsearch-charts.png'), fullPage: true });
    console.log('ok   experiment page: trials and charts');
    await page.getByRole('tab', { name: 'Trials' }).click();
    await page.getByRole('button', { name: 'Log' }).first().click();
    await page.getByText('[nni] Final result').first().waitFor();
    console.log('ok   a trial\'s log');

    // the create form: a refused row, the JSON mode, a new experiment
    await page.goto(BASE + '/p/public/experiments/_new');
    await page.getByLabel('Name', { exact: true }).first().waitFor();
    await page.locator('#name').fill('fromform');
    await page.getByLabel('low').first().fill('0.5');
    await page.getByLabel('high').first().fill('0.1');
    await page.getByText('low must be below high').waitFor();
    await page.getByLabel('high').first().fill('0.9');
    await page.getByText('JSON', { exact: true }).click();
    const json = await page.getByLabel('Search space').inputValue();
    if (!json.includes('"loguniform"')) fail('the JSON mode does not show the rows: ' + json);
    await page.getByLabel('Search space').fill(JSON.stringify({ x: { _type: 'uniform', _value: [0, 1] } }));
    await page.getByText('Parameters', { exact: true }).click();   // back to rows
    await page.getByLabel('Name', { exact: true }).nth(1).waitFor();
    await page.locator('#command').fill(`/usr/bin/python3\n-c\n${process.env.CUBE_TRIAL_CODE}`);
    await page.locator('#cpu').fill('100m');
    await page.locator('#memory').fill('128Mi');
    await page.locator('.ant-select-selector', { hasText: 'TPE' }).click();
    await page.getByTitle('Random').click();
    await page.locator('#maxTrials').fill('3');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/p\/public\/experiments\/fromform$/);
    await page.getByText('Succeeded').first().waitFor({ timeout: 60000 });
    console.log('ok   create form');

    // 中文
    await page.evaluate(() => localStorage.setItem('cube.lang', 'zh'));
    await page.goto(BASE + '/p/public/experiments');
    await page.getByRole('button', { name: '新建实验' }).waitFor();
    await page.getByText('成功').first().waitFor();
    console.log('ok   experiments in 中文');

    if (errors.length) fail('uncaught errors in the page:\n' + errors.join('\n'));
  } catch (e) {
    console.log(`     at ${page.url()}; page errors: ${errors.join('; ') || 'none'}`);
    if (process.env.CUBE_E2E_OUT)
      await page.screenshot({ path: path.join(process.env.CUBE_E2E_OUT, 'hpsearch-failure.png'), fullPage: true }).catch(() => {});
    throw e;
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (e) => {
  console.log(`FAIL ${e.message}`);
  process.exit(1);
});
