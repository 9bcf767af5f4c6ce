// lib.mjs — what every browser test of the console shares (playwright-core):
//   launch()                       Chromium, as the tests run it
//   openPage(browser, size)        a page at SIZES.desktop (1440x900) or
//                                  SIZES.phone (390x844) whose console errors
//                                  and page errors are collected (errors.js)
//   signIn(page, url, user, pw)    through the login form
//   shoot(page, name)              a screenshot into $CUBE_SHOTS, named
//                                  <name>-<width>x<height>.png (test artefact)
//   assertFitsViewport(page, opt)  throws naming every visible element that
//                                  lies outside the viewport's width
//   settle(page)                   waits for antd's animations and skeletons
// Tests call assertFitsViewport on every page they visit at phone size: the
// console's bar is that nothing sticks out at 390 px (checked by script).
import { chromium } from 'playwright-core';

export const SIZES = {
  desktop: { width: 1440, height: 900 },
  phone: { width: 390, height: 844 },
};

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
}

/** A page of its own context (own cookies) at `size`; `errors` collects every
 *  console error and uncaught exception. `allow(re)` admits console errors
 *  whose text or URL matches re (for a step that provokes a 4xx on purpose);
 *  `check()` throws listing what was collected and not admitted. */
export async function openPage(browser, size = SIZES.desktop, { locale = 'en-US', timezoneId = 'UTC' } = {}) {
  const context = await browser.newContext({ viewport: size, locale, timezoneId });
  const page = await context.newPage();
  page.setDefaultTimeout(30000);
  // Chromium's own word that the machine's network changed under it (a
  // fetch it retries), not the console's doing
  const allowed = [/net::ERR_NETWORK_CHANGED/];
  const seen = [];
  page.on('pageerror', (e) => seen.push({ text: `page error: ${e.message}`, url: '' }));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    seen.push({ text: `console: ${m.text()}`, url: m.location()?.url ?? '' });
  });
  const errors = {
    allow: (re) => allowed.push(re),
    list: () => seen.filter((e) => !allowed.some((re) => re.test(e.text) || re.test(e.url))),
    check: (where = '') => {
      const bad = errors.list();
      if (bad.length) throw new Error(`console errors${where ? ' ' + where : ''}:\n` + bad.map((e) => `${e.text} ${e.url}`).join('\n'));
    },
    clear: () => seen.splice(0),
  };
  return { context, page, errors };
}

export async function signIn(page, url, user, password, next = '/') {
  await page.goto(`${url}/login?next=${encodeURIComponent(next)}`);
  await page.locator('#username, input[autocomplete="username"]').first().fill(user);
  await page.locator('input[type="password"]').first().fill(password);
  await page.locator('button[type="submit"]').first().click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
  await page.locator('.ant-layout-header').first().waitFor();
}

/** Waits until antd's enter/leave animations are over and no page skeleton
 *  shows, so a screenshot or a geometry check sees the settled page. */
export async function settle(page) {
  await page.waitForFunction(
    () =>
      !document.querySelector(
        '.ant-zoom-appear, .ant-zoom-enter, .ant-zoom-leave, .ant-slide-up-enter, .ant-slide-up-leave, ' +
          '.ant-drawer-content-wrapper-motion, .ant-motion-collapse, [data-testid="page-skeleton"]',
      ),
    null,
    { timeout: 10000 },
  );
  await page.waitForTimeout(150);
}

export async function shoot(page, name) {
  const dir = process.env.CUBE_SHOTS;
  if (!dir) return;
  const { width, height } = page.viewportSize();
  await page.screenshot({ path: `${dir}/${name}-${width}x${height}.png` });
}

/** The visible elements of the page that reach past the viewport's left or
 *  right edge, and whether the document itself scrolls sideways. An element
 *  inside boxes that clip or scroll sideways (overflow-x not visible: a
 *  table's scroll area, a code block, an svg) counts only by the part of it
 *  they all let show; each such box is checked as an element of its own. Hidden things (display none, visibility hidden, zero
 *  size, opacity 0, aria-hidden closed popups) do not count. `ignore` is a
 *  list of CSS selectors whose elements (and their insides) are skipped. */
export async function overflowing(page, { ignore = [], tolerance = 1 } = {}) {
  return page.evaluate(
    ({ ignore, tolerance }) => {
      const vw = document.documentElement.clientWidth;
      const describe = (el) => {
        const parts = [];
        for (let e = el; e && e !== document.body && parts.length < 4; e = e.parentElement) {
          let p = e.tagName.toLowerCase();
          if (e.id) p += '#' + e.id;
          const tid = e.getAttribute('data-testid');
          if (tid) p += `[data-testid="${tid}"]`;
          const cls = [...e.classList].filter((c) => !/^css-/.test(c)).slice(0, 2);
          if (cls.length) p += '.' + cls.join('.');
          parts.unshift(p);
        }
        return parts.join(' > ');
      };
      const hidden = (el) => {
        for (let e = el; e && e !== document.body; e = e.parentElement) {
          const s = getComputedStyle(e);
          if (s.display === 'none' || s.visibility === 'hidden' || Number(s.opacity) === 0) return true;
          if (ignore.some((sel) => e.matches(sel))) return true;
        }
        return false;
      };
      /** The part of [left, right] that the boxes around el which clip
       *  sideways leave painted; null when nothing is. */
      const painted = (el, left, right) => {
        for (let e = el.parentElement; e && e !== document.body && e !== document.documentElement; e = e.parentElement) {
          if (getComputedStyle(e).overflowX === 'visible') continue;
          const cr = e.getBoundingClientRect();
          left = Math.max(left, cr.left);
          right = Math.min(right, cr.right);
          if (right <= left) return null;
        }
        return [left, right];
      };
      const out = [];
      for (const el of document.body.querySelectorAll('*')) {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) continue;
        if (r.right <= vw + tolerance && r.left >= -tolerance) continue;
        // a clipping box is checked as an element of its own; what it clips
        // counts only by the part it lets show
        const seen = painted(el, r.left, r.right);
        if (!seen) continue;
        if (seen[1] <= vw + tolerance && seen[0] >= -tolerance) continue;
        if (hidden(el)) continue;
        out.push({ element: describe(el), left: Math.round(r.left), right: Math.round(r.right), text: (el.textContent || '').trim().slice(0, 40) });
      }
      // keep the outermost offenders: their insides say nothing new
      const outer = out.filter((o, i) => !out.some((p, j) => j < i && o.element.startsWith(p.element + ' > ')));
      const sw = document.documentElement.scrollWidth;
      return { viewport: vw, scrollWidth: sw, elements: outer.slice(0, 15), count: out.length };
    },
    { ignore, tolerance },
  );
}

export async function assertFitsViewport(page, opts = {}) {
  const r = await overflowing(page, opts);
  const where = opts.where ?? new URL(page.url()).pathname;
  if (r.scrollWidth > r.viewport + (opts.tolerance ?? 1) || r.elements.length) {
    const lines = r.elements.map((e) => `  ${e.element} [${e.left}..${e.right}] "${e.text}"`);
    throw new Error(
      `${where} does not fit the ${r.viewport} px viewport (document ${r.scrollWidth} px wide, ` +
        `${r.count} elements outside):\n${lines.join('\n')}`,
    );
  }
}
