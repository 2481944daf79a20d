// Shared by the browser tests: the api under test (BASE_URL), its mail outbox (OUTBOX_DIR),
// Debian's Chromium driven by playwright-core, and set-up through the JSON API itself.
// api/tests/it/pages/browser.rs starts the api on a loopback port and runs this suite.
import { chromium } from 'playwright-core';
import AxeBuilder from '@axe-core/playwright';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const BASE = process.env.BASE_URL;
export const OUTBOX = process.env.OUTBOX_DIR;
export const SERVICE_KEY = process.env.SERVICE_KEY;
export const CRON_SECRET = process.env.CRON_SECRET;
export const PASSWORD = 'correct horse battery staple';
if (!BASE || !OUTBOX) throw new Error('BASE_URL and OUTBOX_DIR must be set (run through cargo nextest)');

let browser;
/** A fresh browser context at phone width (375 px), as a person on a phone would see it. */
export async function phone() {
  browser ??= await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    // A fake microphone (and camera) that needs no permission prompt: MediaRecorder records a
    // real stream in the review builder's test.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'],
  });
  // A zone far from UTC, so times shown in the viewer's zone are checked, not assumed.
  const ctx = await browser.newContext({ viewport: { width: 375, height: 740 }, baseURL: BASE, timezoneId: 'Pacific/Honolulu' });
  const page = await ctx.newPage();
  const problems = [];
  // Console errors show CSP violations; the document's own 4xx status is logged there too.
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));
  // A page's own error status is the page's business (also when htmx loaded the page: its
  // requests say HX-Request); a stylesheet or icon that fails is not.
  page.on('response', (r) => {
    const isPage = r.request().resourceType() === 'document' || r.request().headers()['hx-request'];
    if (!isPage && r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
  });
  page.on('requestfailed', (r) => {
    const why = r.failure()?.errorText ?? '';
    // A request the browser cancels is its choice, not a fault of the page: a media element's
    // own range reads (metadata, seek, new source), and the loads of a page left for the next
    // one (its icon, say, when a link or form navigates first). A failing answer is caught
    // above by its status; a blocked one fails with another reason.
    if (why === 'net::ERR_ABORTED' && r.resourceType() !== 'document') return;
    problems.push(`failed ${r.url()} (${why})`);
  });
  page.problems = problems;
  return { ctx, page };
}

export async function closeBrowser() {
  await browser?.close();
  browser = undefined;
}

/** Checks what every page must be: no console errors (CSP violations show there), readable at
 * phone width (no sideways scrolling), a label on every field, the security headers. */
export async function checkPage(page, response) {
  assert.deepEqual(page.problems, [], `console errors on ${page.url()}`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (overflow > 0) {
    // Name the widest elements, so the failure says what to fix.
    const wide = await page.evaluate(() => [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth)
      .slice(-3).map((el) => `${el.tagName.toLowerCase()}.${el.className} (${Math.round(el.getBoundingClientRect().right)}px)`));
    assert.fail(`${page.url()} scrolls sideways by ${overflow}px at phone width: ${wide.join(', ')}`);
  }
  const unlabelled = await page.evaluate(() =>
    [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
      .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label'))
      .map((el) => el.name));
  assert.deepEqual(unlabelled, [], `fields without a label on ${page.url()}`);
  if (response) {
    const h = await response.allHeaders();
    assert.match(h['content-security-policy'] ?? '', /frame-ancestors 'none'/);
    assert.match(h['content-security-policy'] ?? '', /script-src 'self'/);
    assert.doesNotMatch(h['content-security-policy'] ?? '', /unsafe/);
    assert.equal(h['referrer-policy'], 'no-referrer');
  }
}

/** Every check of a desk page: `checkPage` and axe-core. */
export async function check(page, response) {
  await checkPage(page, response);
  await accessible(page);
}

/** `c` (from `coach()`) signed in through the sign-in page, on their desk, in a phone-sized
 * browser; `session` is the browser's web session, for checks through the API. */
export async function onDesk(c) {
  const { ctx, page } = await phone();
  await page.goto('/signin');
  await page.getByLabel('Email').fill(c.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  return { c, ctx, page, session: await sessionOf(ctx) };
}

/** axe-core's WCAG 2.2 A and AA rules on the page as it is now: no violation. */
export async function accessible(page) {
  const r = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .analyze();
  const found = r.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  assert.deepEqual(found, [], `accessibility violations on ${page.url()}`);
}

/** With SCREENSHOTS_DIR set (scripts/web-screenshots), keeps the page at phone width and at
 * desktop width as docs/web/<name>-phone.png and <name>-desktop.png. */
export async function screenshot(page, name) {
  const dir = process.env.SCREENSHOTS_DIR;
  if (!dir) return;
  const size = page.viewportSize();
  // caret: 'initial' so playwright injects no style of its own (the CSP would refuse it).
  const opts = { fullPage: true, caret: 'initial' };
  await page.screenshot({ ...opts, path: join(dir, `${name}-phone.png`) });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ ...opts, path: join(dir, `${name}-desktop.png`) });
  await page.setViewportSize(size);
}

/** The web session of a browser context, for checking results through the JSON API. */
export async function sessionOf(ctx) {
  const cookies = Object.fromEntries((await ctx.cookies()).map((c) => [c.name, c.value]));
  return { cookie: cookies.sc_session, csrf: cookies.sc_csrf };
}

/** A JSON API call; returns { status, json, cookies }. */
export async function api(path, { method = 'GET', body, session, bearer } = {}) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (session) {
    headers.cookie = `sc_session=${session.cookie}`;
    headers['x-csrf-token'] = session.csrf;
  }
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const r = await fetch(BASE + path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), redirect: 'manual',
  });
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  const cookies = Object.fromEntries(r.headers.getSetCookie().map((c) => c.split(';')[0].split('=')));
  return { status: r.status, json, text, cookies };
}

let counter = 0;
/** A unique address for this run. */
export function email(who) {
  counter += 1;
  return `${who}-${Date.now()}-${counter}@example.com`;
}

/** A coach who signed up through the API (owner of a new workspace). */
export async function coach(name = 'Coach Kai') {
  const addr = email('coach');
  const r = await api('/api/auth/signup', { method: 'POST', body: { email: addr, password: PASSWORD, name } });
  assert.equal(r.status, 201, r.text);
  return { email: addr, cookie: r.cookies.sc_session, csrf: r.json.csrfToken, orgId: r.json.workspace.workspaceId };
}

/** The date of birth of someone `years` old today (YYYY-MM-DD). */
export function born(years) {
  const d = new Date();
  d.setUTCFullYear(d.getUTCFullYear() - years);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

function decodeQuotedPrintable(s) {
  return s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h) => String.fromCharCode(parseInt(h, 16)));
}

/** Every mail in the outbox: { to, subject, text, headers }. */
export async function outbox() {
  let names = [];
  try { names = await readdir(OUTBOX); } catch { return []; }
  const mails = [];
  for (const n of names.filter((n) => n.endsWith('.eml'))) {
    const raw = (await readFile(join(OUTBOX, n), 'utf8')).replace(/\r\n/g, '\n');
    const split = raw.indexOf('\n\n');
    const head = raw.slice(0, split).replace(/\n[ \t]+/g, ' ');
    let body = raw.slice(split + 2);
    const headers = {};
    for (const line of head.split('\n')) {
      const i = line.indexOf(':');
      if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
    }
    const cte = (headers['content-transfer-encoding'] || '').toLowerCase();
    if (cte === 'quoted-printable') body = decodeQuotedPrintable(body);
    if (cte === 'base64') body = Buffer.from(body.replace(/\s/g, ''), 'base64').toString('utf8');
    mails.push({ to: headers.to || '', subject: headers.subject || '', text: body, headers });
  }
  return mails;
}

/** The links on this service in a text. */
export function links(text) {
  const re = new RegExp(`${BASE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[^\\s<>"')]*`, 'g');
  return (text.match(re) || []).map((l) => l.replace(/[.,;:!?']+$/, ''));
}

/** Waits (5 s at most) for a mail to `to` whose subject contains `subject`. */
export async function mailTo(to, subject) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const m = (await outbox()).find((m) => m.to.includes(to) && m.subject.includes(subject));
    if (m) return m;
    if (Date.now() > deadline) throw new Error(`no mail "${subject}" to ${to}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The first link in a mail whose URL contains `part`. */
export function linkIn(mail, part) {
  const l = links(mail.text).find((u) => u.includes(part));
  assert.ok(l, `no ${part} link in: ${mail.text}`);
  return l;
}
