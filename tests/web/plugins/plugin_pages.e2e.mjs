// plugin_pages.e2e.mjs — the notebook and pipeline pages, ES modules of
// their plugins, in headless Chromium against the cubed that
// test_plugin_pages.py started (CUBE_URL, CUBE_ADMIN_PASSWORD,
// CUBE_CHROMIUM, CUBE_WEB_DIR). Each page must load from /ui/plugins/<name>/,
// take the console's SDK from the console's own chunks (import map), render
// at its old path, and follow the console's language.
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
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cube-pages-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CUBE_CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
    viewport: { width: 1366, height: 860 },
    locale: 'en-US',
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
    await page.getByRole('heading', { name: /Administrator/ }).waitFor();

    // the sidebar's kind entry opens the plugin's page (the group "Pipelines"
    // comes first, then its kinds: Pipelines, PipelineRuns ...)
    await page.getByRole('menuitem', { name: /(^|\s)Pipelines$/ }).last().click();
    await page.waitForURL(/\/p\/public\/pipelines$/);
    await page.getByRole('button', { name: 'New pipeline' }).waitFor();
    if (!loaded.includes('/ui/plugins/pipeline/page.js')) fail('the pipeline page did not load /ui/plugins/pipeline/page.js');
    if (!loaded.some((p) => /^\/assets\/sdk-cube-console-sdk-[\w-]+\.js$/.test(p)))
      fail('the SDK did not come from the console (no /assets/sdk-cube-console-sdk-*.js)');
    console.log('ok   pipelines list');

    // a sub-path of the page's route: the editor of a new pipeline
    await page.goto(BASE + '/p/public/pipelines/_new');
    await page.getByPlaceholder('Search templates').waitFor();
    console.log('ok   pipeline editor');

    await page.goto(BASE + '/p/public/notebooks');
    await page.getByRole('button', { name: 'New notebook' }).waitFor();
    if (!loaded.includes('/ui/plugins/notebook/page.js')) fail('the notebook page did not load /ui/plugins/notebook/page.js');
    console.log('ok   notebooks list');

    // the pages' own strings follow the console's language
    await page.evaluate(() => localStorage.setItem('cube.lang', 'zh'));
    await page.reload();
    await page.getByRole('button', { name: '新建 Notebook' }).waitFor();
    console.log('ok   notebooks in 中文');

    if (errors.length) fail('uncaught errors in the page:\n' + errors.join('\n'));
  } catch (e) {
    console.log(`     at ${page.url()}; page errors: ${errors.join('; ') || 'none'}`);
    if (process.env.CUBE_E2E_OUT)
      await page.screenshot({ path: path.join(process.env.CUBE_E2E_OUT, 'failure.png'), fullPage: true }).catch(() => {});
    throw e;
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.log(`FAIL ${e.message}`);
    process.exit(1);
  },
);
