// The dashboard's end-to-end test in a real browser: headless Chromium (Debian's package)
// driven by playwright-core, which never downloads a browser. browser_test.go starts the local
// server and runs this script with:
//
//   SLUICE_BASE     the server's base URL (http://127.0.0.1:PORT), where the API is called
//   SLUICE_LINK     a sign-in link of the demo account, printed by the server on the
//                   dashboard's own host (http://sluice-PORT.localhost:PORT), where the
//                   browser goes
//   SLUICE_CHROMIUM the browser executable
//   SLUICE_SHOTS    a directory for screenshots
//
// It prints one JSON object on its last line: the checks it made and the figures it measured.
// Any failed check throws, and the script exits non-zero with the reason on stderr.
import { chromium } from 'playwright-core';
import { strict as assert } from 'node:assert';
import { join } from 'node:path';

const apiBase = process.env.SLUICE_BASE;
const link = process.env.SLUICE_LINK;
const base = new URL(link).origin; // the dashboard's host; Chromium resolves *.localhost itself
const shots = process.env.SLUICE_SHOTS;
const text = 'Hi, I am Jane Doe, mail me at jane@example.com';
const checks = [];
// The desktop widths the layout is checked at: 801 px is the first above the narrow layout of
// cards (800 px and below).
const widths = [801, 1280, 1920];
const figures = { pages: {} };

function check(name, ok, detail = '') {
  assert.ok(ok, `${name}${detail ? ': ' + detail : ''}`);
  checks.push(name);
}

async function api(key, value = 'Call me at home, Jane Doe.') {
  const res = await fetch(`${apiBase}/v1/run`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ input: { type: 'text', value }, pipeline: [{ id: 'pii', service: 'governance.pii.redact' }] }),
  });
  return { status: res.status, body: await res.json() };
}

// headingSizes returns the body's font size and the headings of the page smaller than it.
async function headingSizes(page) {
  return page.evaluate(() => {
    const px = (el) => parseFloat(getComputedStyle(el).fontSize);
    const body = px(document.body);
    const headings = [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].map((h) => ({ text: h.textContent.trim(), px: px(h) }));
    return { body, headings, smaller: headings.filter((h) => h.px < body) };
  });
}

// chartLabels returns the body's font size and, for each text of the overview's chart, the
// size it is drawn at (its font size scaled by the SVG's transform) and its contrast with the
// page's background (WCAG 2 ratio).
async function chartLabels(page) {
  return page.evaluate(() => {
    const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
    const luminance = (c) => {
      const [r, g, b] = rgb(c).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const background = (el) => {
      for (; el; el = el.parentElement) {
        const c = getComputedStyle(el).backgroundColor;
        if (c && !/rgba\(.*, 0\)$/.test(c) && c !== 'transparent') return c;
      }
      return 'rgb(255, 255, 255)';
    };
    const body = parseFloat(getComputedStyle(document.body).fontSize);
    const labels = [...document.querySelectorAll('figure.chart svg text')].map((t) => {
      const [a, b] = [luminance(getComputedStyle(t).fill), luminance(background(t))];
      return { text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a,
        contrast: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) };
    });
    return { body, labels };
  });
}

async function shot(page, name) {
  await page.screenshot({ path: join(shots, name + '.png'), fullPage: true });
}

// watch collects console errors and failed requests of a page (a CSP violation is a console
// error).
function watch(page, errors) {
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('requestfailed', (r) => {
    // A navigation cancels what the page was still loading (often the icon): not a failure.
    if (r.failure()?.errorText !== 'net::ERR_ABORTED') errors.push('failed ' + r.url() + ' ' + r.failure()?.errorText);
  });
}

const browser = await chromium.launch({
  executablePath: process.env.SLUICE_CHROMIUM,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--no-first-run'],
});
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const page = await context.newPage();
  const errors = [];
  watch(page, errors);

  // Sign in: the link, on the server's own host, shows a confirmation; the button uses the link up.
  const port = new URL(apiBase).port;
  check('the link is on the host sluice-PORT.localhost', new URL(link).host === `sluice-${port}.localhost:${port}`, link);
  await page.goto(link);
  check('sign-in page names the account', await page.getByText(/signs you in to the Sluice dashboard of account acct_/).isVisible());
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/dashboard/`);
  check('signed in to the overview', await page.getByRole('heading', { level: 1, name: 'Overview' }).isVisible());
  const cookies = await context.cookies();
  // Locally the cookie is named after the server's port and kept by the port's own host, so no
  // other port of 127.0.0.1 receives it.
  const session = cookies.find((c) => c.name === `sluice_session_${port}`);
  check('session cookie is HttpOnly and SameSite=Strict', session && session.httpOnly && session.sameSite === 'Strict',
    JSON.stringify(cookies));
  check('session cookie belongs to sluice-PORT.localhost only', session.domain === `sluice-${port}.localhost` &&
    (await context.cookies(`http://127.0.0.1:${port}/dashboard/`)).length === 0, JSON.stringify(cookies));
  await shot(page, '01-overview-empty');

  // Create a key: shown once, with a copy button and a warning, focus on it.
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByRole('heading', { name: 'Your new key' }).waitFor();
  check('focus moves to the new key', await page.evaluate(() => document.activeElement.id) === 'newkey-h');
  const key = await page.getByLabel(/^API key key_/).inputValue();
  check('the new key is shown whole', /^sluice_live_[0-9A-Za-z]{32}$/.test(key), key.slice(0, 16));
  check('a warning says it is shown once', await page.getByText('This is the only time the whole key is shown.').isVisible());
  await page.getByRole('button', { name: 'Copy key' }).click();
  await page.getByText('Copied.').waitFor();
  check('the copy button copies the key', await page.evaluate(() => navigator.clipboard.readText()) === key);
  await shot(page, '02-key-created');

  // The key works on the API at once.
  let r = await api(key);
  check('the new key runs a pipeline', r.status === 200 && r.body.status === 'completed', JSON.stringify(r));

  // Rotate it: a dialog warns; Escape cancels and gives focus back; confirming rotates.
  await page.goto(`${base}/dashboard/keys`); // the key list without the one-time display
  const last4 = key.slice(-4);
  const row = page.getByRole('row').filter({ hasText: '…' + last4 });
  const rotate = row.getByRole('button', { name: 'Rotate key' });
  await rotate.click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  check('the rotate dialog says the old key stops at once', await dialog.getByText('The old key stops working immediately.').isVisible());
  check('the rotate dialog says to deploy the new key first', await dialog.getByText(/Deploy it first/).isVisible());
  check('focus is in the dialog', await page.evaluate(() => document.activeElement.closest('dialog') !== null));
  await shot(page, '03-rotate-dialog');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  check('focus returns to the Rotate key button', await rotate.evaluate((b) => b === document.activeElement));
  await rotate.click();
  await dialog.getByRole('button', { name: 'Rotate key' }).click();
  await page.getByRole('heading', { name: /Your new key \(it replaces/ }).waitFor();
  const rotated = await page.getByLabel(/^API key key_/).inputValue();
  check('rotation shows the new key', /^sluice_live_/.test(rotated) && rotated !== key);
  // The very next request with the old key is refused; the new one works.
  r = await api(key);
  check('the old key gets 401 on the very next request', r.status === 401 && r.body.error.code === 'invalid_api_key', JSON.stringify(r));
  r = await api(rotated);
  check('the rotated key works', r.status === 200, JSON.stringify(r));
  await shot(page, '04-key-rotated');

  // The key list: the old key revoked; its last-used day recorded (written in the background).
  let lastUsed = '';
  for (let i = 0; i < 20 && !/\d{4}-\d{2}-\d{2}/.test(lastUsed); i++) {
    await page.goto(`${base}/dashboard/keys`);
    lastUsed = await page.getByRole('row').filter({ hasText: '…' + last4 }).locator('td[data-label="Last used"]').innerText();
    if (!/\d{4}-\d{2}-\d{2}/.test(lastUsed)) await page.waitForTimeout(100);
  }
  check('the used key shows its last-used day', /^\d{4}-\d{2}-\d{2}$/.test(lastUsed), lastUsed);
  check('the rotated key is listed as revoked', /Revoked/.test(await page.getByRole('row').filter({ hasText: '…' + last4 }).innerText()));

  // The key list fits its container at desktop widths, with its widest cells present: several
  // keys, some revoked (a date in Status), some used (a date in Last used). Two more keys, one
  // of them revoked through the dialog.
  for (let i = 0; i < 2; i++) {
    await page.goto(`${base}/dashboard/keys`);
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'Your new key' }).waitFor();
  }
  const extra = (await page.getByLabel(/^API key key_/).inputValue()).slice(-4);
  await page.goto(`${base}/dashboard/keys`);
  await page.getByRole('row').filter({ hasText: '…' + extra }).getByRole('button', { name: 'Revoke key' }).click();
  await dialog.getByRole('button', { name: 'Revoke key' }).click();
  await page.getByText(/was revoked: requests with it now get 401/).waitFor();
  check('the key list counts its keys', /^5 keys, 3 active/.test(await page.locator('table.keys caption').innerText()));
  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${base}/dashboard/keys`);
    const fit = await page.getByRole('region', { name: 'Keys', exact: true }).evaluate((box) => {
      // The lines an element's text is laid out on: the distinct tops of its text's boxes.
      const lines = (el) => {
        const range = document.createRange();
        range.selectNodeContents(el);
        return new Set([...range.getClientRects()].map((q) => Math.round(q.top))).size;
      };
      const buttons = [...box.querySelectorAll('td.actions button')].map((el) => {
        // Scrolled into view vertically only (scrolling sideways would hide the fault).
        window.scrollTo(0, window.scrollY + el.getBoundingClientRect().top - window.innerHeight / 2);
        const b = box.getBoundingClientRect();
        const r = el.getBoundingClientRect();
        // Fully visible: inside the container and the window, and on top at its left and right
        // edges (mid-height: hit testing follows the rounded corners).
        const top = (x) => el.contains(document.elementFromPoint(x, (r.top + r.bottom) / 2));
        return { name: el.textContent.trim(), lines: lines(el), visible: r.width > 0 && r.left >= b.left && r.right <= b.right && r.right <= window.innerWidth &&
          top(r.left + 1) && top(r.right - 1) };
      });
      return { scroll: box.scrollWidth, client: box.clientWidth, buttons };
    });
    check(`the key list fits its container at ${width} px`, fit.scroll <= fit.client, JSON.stringify(fit));
    const names = fit.buttons.map((x) => x.name);
    check(`every Rotate key and Revoke key button is fully visible at ${width} px`,
      names.filter((n) => n === 'Rotate key').length === 3 && names.filter((n) => n === 'Revoke key').length === 3 &&
      fit.buttons.every((x) => x.visible), JSON.stringify(fit.buttons));
    check(`no Rotate key or Revoke key label wraps at ${width} px`, fit.buttons.every((x) => x.lines === 1), JSON.stringify(fit.buttons));
    await shot(page, `04b-keys-${width}px`);

    // The overview's chart fills its column.
    await page.goto(`${base}/dashboard/`);
    const chart = await page.locator('figure.chart').evaluate((fig) => ({
      svg: fig.querySelector('svg').getBoundingClientRect().width,
      figure: fig.getBoundingClientRect().width,
      column: fig.closest('section').getBoundingClientRect().width,
    }));
    check(`the overview's chart fills its column at ${width} px`,
      Math.abs(chart.svg - chart.column) <= 1 && Math.abs(chart.figure - chart.column) <= 1, JSON.stringify(chart));

    // A service's model and licence read as a paragraph, not a column a few words wide.
    await page.goto(`${base}/dashboard/services`);
    const model = await page.locator('#svc-routing-intent-map dl.facts > div')
      .filter({ has: page.getByRole('term').getByText('Model', { exact: true }) }).locator('dd')
      .evaluate((dd) => ({ height: dd.getBoundingClientRect().height, width: dd.getBoundingClientRect().width,
        line: parseFloat(getComputedStyle(dd).lineHeight) }));
    check(`the intent.map card's model and licence take at most 3 lines at ${width} px`,
      model.height <= 3.5 * model.line, JSON.stringify(model));
    await page.locator('#svc-routing-intent-map').screenshot({ path: join(shots, `05b-services-intent-map-${width}px.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 900 });

  // The catalog: no heading smaller than body text; the 82 codes of the language detector
  // folded away, so that they do not stretch their row.
  await page.getByRole('link', { name: 'Services' }).click();
  await page.waitForLoadState('load'); // a click waits for the navigation to start, not to finish
  let sizes = await headingSizes(page);
  check('no heading of the services page is smaller than body text', sizes.headings.length >= 7 && sizes.smaller.length === 0,
    JSON.stringify(sizes));
  const langid = page.locator('#svc-routing-language-detect');
  const languages = langid.locator('dl.facts > div').filter({ has: page.getByRole('term').getByText('Languages', { exact: true }) });
  const facts = await languages.locator('dd').evaluate((dd) => ({ height: dd.getBoundingClientRect().height, line: parseFloat(getComputedStyle(dd).lineHeight) }));
  check('the language detector\'s languages take one line, not a stretched row', facts.height <= 1.5 * facts.line, JSON.stringify(facts));
  await languages.getByText('82 languages').click();
  check('its 82 language codes open on request', await languages.getByText(/^af, am, ar, .*, zu$/).isVisible());
  await langid.screenshot({ path: join(shots, '05a-services-language-detect.png') });

  // Playground: defaults from the descriptor, a two-step pipeline, the bill, the trace, curl.
  await page.getByRole('link', { name: 'Playground' }).click();
  await page.waitForLoadState('load'); // a click waits for the navigation to start, not to finish
  await page.getByLabel('Text', { exact: true }).fill(text);
  await page.locator('#service2').selectOption('security.toxicity.flag');
  const params2 = await page.locator('#params2').inputValue();
  check('choosing a service fills its default params', JSON.parse(params2).threshold === 0.5, params2);
  await page.locator('#stop2').selectOption('verdict:flag');
  await page.getByRole('button', { name: 'Run pipeline' }).click();
  await page.getByRole('heading', { name: /^Result: / }).waitFor();
  const heading = await page.getByRole('heading', { name: /^Result: / }).innerText();
  check('the playground run completes', /completed \(HTTP 200\)/.test(heading), heading);
  const output = await page.locator('#output').innerText();
  check('the output is redacted', output.includes('[REDACTED]') && !output.includes('jane@example.com'), output);
  check('each result is shown', await page.getByRole('heading', { name: 'step1' }).isVisible() && await page.getByRole('heading', { name: 'step2' }).isVisible());
  check('the bill is shown', await page.getByText(/Characters billed by this run: \d+/).isVisible());
  sizes = await headingSizes(page);
  check('no heading of the playground\'s result is smaller than body text', sizes.smaller.length === 0, JSON.stringify(sizes));
  check('the audit trace is shown', (await page.locator('pre').filter({ hasText: '"retention": "none"' }).count()) === 1);
  const curl = await page.locator('#curl').innerText();
  check('the curl command uses $SLUICE_KEY, never a key', curl.includes('Bearer $SLUICE_KEY') && !curl.includes('sluice_live_'), curl);
  check('the page says playground runs are billed like API runs', await page.getByText(/same engine, rate window, allowance and billing/).isVisible());
  await shot(page, '05-playground');

  // The overview counts what was billed, per day too.
  await page.getByRole('link', { name: 'Overview' }).click();
  await page.waitForLoadState('load'); // a click waits for the navigation to start, not to finish
  const chars = await page.locator('dl.stats div').filter({ has: page.getByRole('term').getByText('Characters', { exact: true }) }).locator('dd').innerText();
  check('the overview shows this month\'s characters', Number(chars.replace(/,/g, '')) > 0, chars);
  check('the chart has a bar for today', (await page.locator('figure.chart rect.day').count()) >= 1);
  let axis = await chartLabels(page);
  check('the chart\'s axis labels are smaller than body text but readable, at 1280 px',
    axis.labels.length >= 5 && axis.labels.every((l) => l.px < axis.body && l.px >= 12), JSON.stringify(axis));
  check('the chart\'s axis labels have a contrast of at least 4.5:1', axis.labels.every((l) => l.contrast >= 4.5), JSON.stringify(axis));
  await shot(page, '06-overview-usage');

  // Readable at 400 px: no page-wide horizontal scrolling on any page.
  const narrow = await context.newPage();
  watch(narrow, errors);
  await narrow.setViewportSize({ width: 400, height: 860 });
  for (const p of ['', 'keys', 'services', 'playground']) {
    await narrow.goto(`${base}/dashboard/${p}`);
    const width = await narrow.evaluate(() => document.documentElement.scrollWidth);
    check(`/dashboard/${p} fits 400 px`, width <= 400, String(width));
  }
  await narrow.goto(`${base}/dashboard/`);
  axis = await chartLabels(narrow);
  check('the chart\'s axis labels are smaller than body text but readable, at 400 px',
    axis.labels.length >= 5 && axis.labels.every((l) => l.px < axis.body && l.px >= 12), JSON.stringify(axis));
  await shot(narrow, '07-overview-400px');
  await narrow.goto(`${base}/dashboard/keys`);
  await shot(narrow, '08-keys-400px');
  await narrow.close();

  // In the dark colour scheme the chart's labels keep their contrast too.
  const dark = await browser.newContext({ colorScheme: 'dark', viewport: { width: 1280, height: 900 } });
  await dark.addCookies(await context.cookies());
  const night = await dark.newPage();
  await night.goto(`${base}/dashboard/`);
  axis = await chartLabels(night);
  check('in the dark scheme the chart\'s axis labels have a contrast of at least 4.5:1',
    axis.labels.length >= 5 && axis.labels.every((l) => l.contrast >= 4.5), JSON.stringify(axis));
  await dark.close();

  // Without JavaScript every action is a plain form.
  const nojs = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1000, height: 900 } });
  await nojs.addCookies(await context.cookies());
  const plain = await nojs.newPage();
  await plain.goto(`${base}/dashboard/keys`);
  check('without JavaScript the copy button stays hidden', !(await plain.getByRole('button', { name: 'Copy key' }).count()));
  await plain.getByRole('button', { name: 'Create key' }).click();
  const plainKey = await plain.getByLabel(/^API key key_/).inputValue();
  check('without JavaScript a key is created', /^sluice_live_/.test(plainKey));
  await plain.goto(`${base}/dashboard/keys`);
  await plain.getByRole('row').filter({ hasText: '…' + plainKey.slice(-4) }).getByRole('button', { name: 'Revoke key' }).click();
  check('without JavaScript Revoke key opens a confirmation page', await plain.getByRole('heading', { level: 1, name: /^Revoke key/ }).isVisible());
  await shot(plain, '09-nojs-revoke-confirm');
  await plain.getByRole('button', { name: 'Revoke key' }).click();
  check('without JavaScript the key is revoked', await plain.getByText(/was revoked: requests with it now get 401/).isVisible());
  r = await api(plainKey);
  check('the revoked key gets 401', r.status === 401, JSON.stringify(r));
  await plain.goto(`${base}/dashboard/playground`);
  await plain.getByLabel('Text', { exact: true }).fill(text);
  await plain.getByRole('button', { name: 'Run pipeline' }).click();
  check('without JavaScript the playground runs', /completed/.test(await plain.getByRole('heading', { name: /^Result: / }).innerText()));
  await nojs.close();

  // Page weight and time to first render, each page loaded with an empty cache.
  for (const p of ['', 'keys', 'services', 'playground']) {
    const fresh = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await fresh.addCookies(await context.cookies());
    const tab = await fresh.newPage();
    const sizes = [];
    tab.on('response', async (res) => {
      try { sizes.push((await res.body()).length); } catch { /* redirects have no body */ }
    });
    await tab.goto(`${base}/dashboard/${p}`, { waitUntil: 'load' });
    const t = await tab.evaluate(() => new Promise((resolve) => {
      const nav = performance.getEntriesByType('navigation')[0];
      const done = (fcp) => resolve({ fcp, dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd, html: nav.decodedBodySize });
      // The first contentful paint may be reported after the load event: wait for it.
      new PerformanceObserver((list) => {
        const e = list.getEntriesByName('first-contentful-paint')[0];
        if (e) done(e.startTime);
      }).observe({ type: 'paint', buffered: true });
      setTimeout(() => done(null), 5000);
    }));
    await tab.waitForLoadState('networkidle');
    figures.pages['/dashboard/' + p] = { bytes: sizes.reduce((a, b) => a + b, 0), requests: sizes.length, html: t.html,
      fcp_ms: t.fcp, dom_content_loaded_ms: t.dcl, load_ms: t.load };
    await fresh.close();
  }

  // A page that does not exist keeps the signed-in navigation (in a tab of its own: the console
  // reports the 404).
  const saved = await context.cookies();
  const lost = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await lost.addCookies(saved);
  const missing = await lost.newPage();
  const notFound = await missing.goto(`${base}/dashboard/no-such-page`);
  check('a missing page answers 404 with the signed-in navigation', notFound.status() === 404 &&
    await missing.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'API keys' }).isVisible() &&
    await missing.getByRole('button', { name: 'Sign out' }).isVisible());
  await shot(missing, '09b-not-found-signed-in');
  await lost.close();

  // Sign out: the session ends on the server, so a copy of the cookie no longer works either.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
  await shot(page, '10-signed-out');
  const replay = await browser.newContext();
  await replay.addCookies(saved);
  const stale = await replay.newPage();
  await stale.goto(`${base}/dashboard/keys`);
  check('a copy of the old session cookie is signed out', stale.url().endsWith('/dashboard/sign-in'), stale.url());
  await replay.close();
  check('no console errors, CSP violations or failed requests', errors.length === 0, errors.join(' | '));
  await page.goto(link); // answered 404, which the console reports
  check('a used sign-in link never works again', await page.getByText('This sign-in link does not work').isVisible());
  await shot(page, '11-used-link');

  console.log(JSON.stringify({ checks, figures }));
} finally {
  await browser.close();
}
