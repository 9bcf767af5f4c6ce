// models_pages.e2e.mjs — the models plugin's pages in headless Chromium
// against the cubed test_models_pages.py started (CUBE_URL,
// CUBE_ADMIN_PASSWORD, CUBE_CHROMIUM, CUBE_WEB_DIR, CUBE_UPLOAD_FILE), with
// iris-v1 (production) and iris-v2 in project public.
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
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cube-models-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CUBE_CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
    viewport: { width: 1500, height: 900 }, locale: 'en-US',
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

    // the families, one opened to its versions
    await page.goto(BASE + '/p/public/models');
    await page.getByRole('button', { name: 'Register a model' }).waitFor();
    if (!loaded.includes('/ui/plugins/models/page.js')) fail('the page did not load /ui/plugins/models/page.js');
    await page.getByRole('link', { name: 'iris' }).waitFor();
    await page.getByRole('link', { name: 'v1' }).first().waitFor();   // in production
    await page.locator('.ant-table-row-expand-icon').first().click();
    await page.getByRole('columnheader', { name: 'accuracy' }).waitFor();
    await page.getByText('0.9600').waitFor();
    console.log('ok   families list and versions');

    // the family: metrics side by side
    await page.getByRole('link', { name: 'iris', exact: true }).click();
    await page.waitForURL(/\/p\/public\/models\/_family\/iris$/);
    await page.getByRole('img', { name: 'Metrics side by side' }).locator('canvas').first().waitFor();
    await page.waitForTimeout(1500);   // the bars' animation
    if (process.env.CUBE_E2E_OUT)
      await page.screenshot({ path: path.join(process.env.CUBE_E2E_OUT, 'models-family.png'), fullPage: true });
    console.log('ok   family page: metrics chart');

    // one version: digest, files, lineage, promote, deploy's refusal
    await page.goto(BASE + '/p/public/models/iris-v2');
    await page.getByRole('heading', { name: 'iris v2' }).waitFor();
    await page.getByRole('link', { name: 'Job train-2' }).waitFor();
    await page.getByRole('link', { name: 'model.pkl' }).waitFor();
    await page.getByRole('button', { name: 'Promote' }).click();
    await page.getByText('Move to production').click();
    await page.getByRole('button', { name: 'Yes' }).click();
    await page.locator('[data-stage="production"]').first().waitFor();
    await page.getByText('iris-v1 archived').waitFor();
    console.log('ok   promote to production (the previous version archived)');
    await page.getByRole('button', { name: 'Deploy' }).click();
    await page.locator('.ant-modal').getByRole('button', { name: 'Deploy' }).click();
    await page.getByText('the serving plugin is not loaded').waitFor();
    console.log('ok   deploy without the serving plugin: refused, named');

    // register with an upload
    await page.goto(BASE + '/p/public/models/_new');
    await page.getByLabel('Choose files').first().setInputFiles(process.env.CUBE_UPLOAD_FILE);
    await page.locator('#metrics').fill('{"top1": 0.5}');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.waitForURL(/\/p\/public\/models\/net-weights-v1$/);
    await page.getByText('Ready').first().waitFor();
    console.log('ok   register form: uploaded, Ready');

    // 中文
    await page.evaluate(() => localStorage.setItem('cube.lang', 'zh'));
    await page.goto(BASE + '/p/public/models');
    await page.getByRole('button', { name: '注册模型' }).waitFor();
    await page.getByText('模型管理').first().waitFor();
    console.log('ok   models in 中文');

    if (errors.length) fail('uncaught errors in the page:\n' + errors.join('\n'));
  } catch (e) {
    console.log(`     at ${page.url()}; page errors: ${errors.join('; ') || 'none'}`);
    if (process.env.CUBE_E2E_OUT)
      await page.screenshot({ path: path.join(process.env.CUBE_E2E_OUT, 'models-failure.png'), fullPage: true }).catch(() => {});
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
