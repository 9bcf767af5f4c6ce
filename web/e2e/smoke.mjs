// smoke.mjs — drives the built console in a real Chromium against a running
// cubed (started by tests/web/test_console.py). Reads CUBE_URL, the user's
// name/password and the server's wrong-password message from the
// environment; prints one JSON line of what it saw for the Python side to
// check against the API. Exits non-zero naming the step that broke.
import { chromium } from 'playwright-core';

const url = process.env.CUBE_URL;
const user = process.env.CUBE_USER;
const password = process.env.CUBE_PASSWORD;
const wrongMessage = process.env.CUBE_WRONG_MESSAGE;
const shots = process.env.CUBE_SHOTS; // optional: a folder for screenshots
const browserPath = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** The open dialog, once antd's opening animation is over: a click that
 *  lands while the dialog is still zooming in can miss its button. */
async function openedDialog() {
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  await page.waitForFunction(() => !document.querySelector('.ant-zoom-appear, .ant-zoom-enter'), null, {
    timeout: 10000,
  });
  return dialog;
}

let step = 'start';
let page;
const out = {};
const browser = await chromium.launch({ executablePath: browserPath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
const errors = [];
try {
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(30000);
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && !/401|Unauthorized|status of 4\d\d/.test(m.text()) && errors.push(`console: ${m.text()}`));
  const shot = async (name) => shots && page.screenshot({ path: `${shots}/${name}.png` });

  step = 'anonymous visit goes to /login';
  await page.goto(`${url}/projects`);
  await page.waitForURL(/\/login\?next=%2Fprojects$/);
  await page.getByLabel('User name').waitFor();
  await shot('login');

  step = 'wrong password shows the server message';
  await page.getByLabel('User name').fill(user);
  await page.getByLabel('Password').fill(password + '-wrong');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: wrongMessage }).waitFor();

  step = 'sign in lands on the page asked for';
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/projects$/);
  await page.getByRole('link', { name: 'demo' }).waitFor();

  step = 'sidebar lists the kinds of the server';
  const sidebar = page.getByTestId('sidebar');
  await sidebar.getByText('Jobs').waitFor();
  out.menu = await sidebar.locator('.ant-menu-title-content').allInnerTexts();

  step = 'home shows my projects';
  await sidebar.getByText('Home').click();
  await page.getByText(`Welcome, ${user}`).waitFor();
  await page.locator('.ant-card-head-title').filter({ hasText: 'demo' }).first().waitFor();
  await shot('home');

  step = 'language switch to 中文 is remembered';
  await page.getByLabel('Language').first().click();
  await page.locator('.ant-select-item-option').filter({ hasText: '中文' }).click();
  await page.getByText('我的项目').waitFor();
  await page.reload();
  await page.getByText('我的项目').waitFor();
  await shot('home-zh');
  await page.getByLabel('语言').first().click();
  await page.locator('.ant-select-item-option').filter({ hasText: 'English' }).click();
  await page.getByText('My projects').waitFor();

  step = 'project detail: add a member';
  await page.goto(`${url}/projects/demo`);
  // the member is picked from the users (typed to filter, then chosen)
  await page.getByRole('combobox', { name: 'Choose a user' }).fill('bob');
  await page.locator('.ant-select-item-option').filter({ hasText: 'bob' }).first().click();
  await page.getByRole('button', { name: 'Add member' }).click();
  await page.locator('tr').filter({ hasText: 'bob' }).waitFor();
  await page.getByRole('tab', { name: 'Quotas' }).click();
  await page.getByText('Pool default').waitFor();
  await shot('project');

  step = 'create an API token, shown once';
  await page.goto(`${url}/tokens`);
  await page.getByRole('button', { name: 'New token' }).click();
  await page.getByLabel('Name').fill('from-console');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  out.token = await page.getByTestId('new-token').inputValue();
  await shot('token');
  await page.getByRole('button', { name: 'OK', exact: true }).click();
  await page.locator('tr').filter({ hasText: 'from-console' }).waitFor();

  step = 'a generic kind page loads from its area (no 404)';
  await page.goto(`${url}/p/demo/k/jobs`);
  // (not networkidle: an area may hold a watch stream open)
  await page.waitForFunction(() => {
    const c = document.querySelector('.ant-layout-content');
    return c && !c.querySelector('[data-testid="page-skeleton"]') && c.textContent.trim().length > 0;
  });
  if (await page.getByText('Nothing here.').count()) throw new Error('/p/demo/k/jobs answered 404');
  await page.getByTestId('sidebar').waitFor();

  step = 'change my password';
  await page.getByRole('button', { name: user }).click();
  await page.getByText('Change password').click();
  const pw = await openedDialog();
  await pw.getByLabel('Current password').fill(password);
  await pw.getByLabel('New password', { exact: true }).fill(`${password}-new`);
  await pw.getByLabel('New password again').fill(`${password}-new`);
  await pw.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Password changed').waitFor();

  step = 'sign out';
  await page.getByRole('button', { name: user }).click();
  await page.getByText('Sign out').click();
  await page.waitForURL(/\/login/);

  step = 'admin: sign in';
  await page.getByLabel('User name').fill('admin');
  await page.getByLabel('Password').fill(process.env.CUBE_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('Welcome, ').waitFor();

  step = 'admin: create a user with a password';
  await page.getByTestId('sidebar').getByText('Users').click();
  await page.getByRole('button', { name: 'New user' }).click();
  const dialog = await openedDialog();
  await dialog.getByLabel('Name', { exact: true }).fill('carol');
  await dialog.getByLabel('Display name').fill('Carol C');
  await dialog.getByLabel('Password').fill('carol-password-123');
  await dialog.getByRole('button', { name: 'Create', exact: true }).click();
  await page.locator('tr').filter({ hasText: 'Carol C' }).waitFor();

  step = 'admin: disable a user';
  const bob = page.locator('tr').filter({ hasText: 'bob' });
  await bob.getByRole('button', { name: 'Disable' }).click();
  await page.getByRole('button', { name: 'OK', exact: true }).click();
  await bob.getByText('disabled').waitFor();
  await shot('users');

  step = 'admin: create a project';
  await page.goto(`${url}/projects`);
  await page.getByRole('button', { name: 'New project' }).click();
  const newProject = await openedDialog();
  await newProject.getByLabel('Name').fill('made-in-console');
  await newProject.getByRole('button', { name: 'Create', exact: true }).click();
  await page.getByRole('link', { name: 'made-in-console' }).waitFor();

  if (errors.length) throw new Error(errors.join('\n'));
  console.log(JSON.stringify(out));
} catch (e) {
  console.error(`console smoke test failed at step "${step}": ${e.message}`);
  if (shots && page) await page.screenshot({ path: `${shots}/failure.png` }).catch(() => {});
  if (errors.length) console.error(errors.join('\n'));
  process.exitCode = 1;
} finally {
  await browser.close();
}
