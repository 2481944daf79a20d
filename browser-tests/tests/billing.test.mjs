// Billing and integrations (issue 39) in a real browser: the owner subscribes from the billing
// tab (Checkout at the fake processor, which the test plays: the hosted page is answered here,
// the payment completed through the fake's test endpoint and its signed events delivered to
// the webhook), comes back through the success address and sees the plan once applied; a
// coach connects the video-review provider through the fake's authorization page and lands
// back on the integrations tab. Results checked through the JSON API; every page through
// axe-core (WCAG 2.2 AA).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  BASE, PASSWORD, closeBrowser, screenshot, api, coach, check, onDesk, phone, email, born,
} from '../lib.mjs';

after(closeBrowser);

const FAKE = process.env.PAYMENTS_FAKE_URL;

/** The processor's hosted Checkout page, answered by the test (its host does not resolve). */
async function fakeCheckoutHost(ctx) {
  await ctx.route('https://checkout.payments.test/**', (route) => route.fulfill({
    status: 200,
    contentType: 'text/html',
    body: '<!doctype html><html lang="en"><head><link rel="icon" href="data:,"><title>Checkout</title></head><body><h1>Fake checkout</h1></body></html>',
  }));
}

/** The customer pays session `id`: the fake's events, delivered signed to the webhook. */
async function pay(id) {
  const r = await fetch(`${FAKE}/test/checkout/${id}/complete`, { method: 'POST' });
  const text = await r.text();
  assert.equal(r.status, 200, text);
  for (const e of JSON.parse(text)) {
    const w = await fetch(`${BASE}/api/payments/webhook`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': e.signature }, body: e.body,
    });
    assert.equal(w.status, 200, await w.text());
  }
}

/** Waits (10 s) until `GET /api/billing` answers `plan`. */
async function planBecomes(session, plan) {
  for (let i = 0; i < 100; i += 1) {
    const b = await api('/api/billing', { session });
    assert.equal(b.status, 200, b.text);
    if (b.json.plan === plan) return b.json;
    await new Promise((r) => { setTimeout(r, 100); });
  }
  assert.fail(`the plan did not become ${plan}`);
}

test('billing: subscribe through Checkout and come back to the plan and seats', { skip: !FAKE && 'no fake processor' }, async () => {
  const { c, ctx, page, session } = await onDesk(await coach('Coach Kai'));
  await fakeCheckoutHost(ctx);
  // The dashboard finishes loading first (leaving it mid-load cancels its script).
  await page.waitForLoadState('load');
  const tab = `/w/${c.orgId}/settings/billing`;
  const resp = await page.goto(tab);
  await check(page, resp);
  await page.getByText('1 of 3 seats used').waitFor();
  await screenshot(page, 'settings-billing');

  // Bad input first: said beside the field, nothing started.
  await page.getByLabel('Seats to pay for').fill('0');
  await page.getByLabel('Seats to pay for').evaluate((el) => el.removeAttribute('min'));
  await page.getByRole('button', { name: 'Continue to payment' }).click();
  await page.locator('#e-seats').waitFor();
  await check(page);

  await page.getByLabel('Monthly plan').selectOption('price_team_monthly');
  await page.getByLabel('Seats to pay for').fill('5');
  await page.getByRole('button', { name: 'Continue to payment' }).click();
  await page.waitForURL(/checkout\.payments\.test\/c\/pay\//);
  const id = page.url().split('/').pop();
  // Nothing is granted by leaving for Checkout.
  assert.equal((await api('/api/billing', { session })).json.plan, 'free');

  await pay(id);
  // The processor's events are applied by a job (the return address grants nothing); then
  // the browser comes back through the success address.
  const st = await planBecomes(session, 'team');
  assert.equal(st.seats, 5);
  await page.goto(`${BASE}/billing?checkout=success&session_id=${id}`);
  await page.waitForURL(new RegExp(`${tab}\\?checkout=success`));
  await page.getByText('1 of 5 seats used').waitFor();
  await page.getByRole('heading', { name: 'Change plan' }).waitFor();
  await check(page);
  await screenshot(page, 'settings-billing-paid');
  await ctx.close();
});

test('integrations: connect the video-review provider and land back on the tab', async () => {
  const { c, ctx, page } = await onDesk(await coach('Coach Lani'));
  await page.waitForLoadState('load');
  const tab = `/w/${c.orgId}/settings/integrations`;
  const resp = await page.goto(tab);
  await check(page, resp);
  await page.locator('#rv-state').getByText('Not connected').waitFor();
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await page.waitForURL(/\/oauth\/authorize\?/);
  await page.getByRole('link', { name: 'Approve' }).click();
  await page.waitForURL(new RegExp(`${tab}\\?reviewvideo=connected`));
  await page.locator('#rv-state').getByText('Connected').waitFor();
  await page.getByText('your account at the video-review provider is linked').waitFor();
  await check(page);
  await screenshot(page, 'settings-integrations');
  await ctx.close();
});

test('lessons: a coach offers a lesson and starts payout onboarding', { skip: !FAKE && 'no fake processor' }, async () => {
  const { c, ctx, page, session } = await onDesk(await coach('Coach Makoa'));
  // The processor's onboarding page, answered by the test (its host does not resolve).
  await ctx.route('https://connect.payments.test/**', (route) => route.fulfill({
    status: 200,
    contentType: 'text/html',
    body: '<!doctype html><html lang="en"><head><link rel="icon" href="data:,"><title>Onboarding</title></head><body><h1>Fake onboarding</h1></body></html>',
  }));
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Lessons' }).click();
  await page.getByRole('heading', { name: 'Lessons for sale', level: 1 }).waitFor();
  await check(page);

  // A price below the minimum: said beside the field.
  await page.getByLabel('Name').fill('Monthly coaching');
  await page.getByLabel('Price in cents (2500 is 25.00)').fill('50');
  await page.getByLabel('Every month').check();
  await page.getByRole('button', { name: 'Offer it' }).click();
  await page.locator('#e-amount').waitFor();
  await check(page);
  await page.getByLabel('Price in cents (2500 is 25.00)').fill('4900');
  await page.getByRole('button', { name: 'Offer it' }).click();
  await page.locator('#offerings').getByText('49.00 EUR').waitFor();
  const list = await api('/api/payments/offerings', { session });
  assert.equal(list.status, 200, list.text);
  assert.equal(list.json.items.length, 1);
  assert.equal(list.json.items[0].name, 'Monthly coaching');
  assert.equal(list.json.items[0].interval, 'monthly');
  await check(page);
  await screenshot(page, 'lessons');

  await page.getByRole('button', { name: 'Connect a payout account' }).click();
  await page.waitForURL(/connect\.payments\.test\/setup\//);
  await page.goto(`${BASE}/payments/connect?done=1`);
  await page.waitForURL(new RegExp(`/w/${c.orgId}/lessons\\?onboarding=done`));
  await page.getByText('Back from onboarding').waitFor();
  await page.getByRole('button', { name: 'Continue onboarding' }).waitFor();
  await check(page);
  await ctx.close();
});

test('payments: a student pays their coach from their own payments page and comes back', { skip: !FAKE && 'no fake processor' }, async () => {
  const c = await coach('Coach Mia');
  // The coach is ready to be paid: payout onboarding finished at the fake, an offering.
  const conn = await api('/api/payments/connect', { method: 'POST', session: c });
  assert.equal(conn.status, 200, conn.text);
  const r = await fetch(`${FAKE}/test/accounts/${conn.json.accountId}/enable`, { method: 'POST' });
  for (const e of await r.json()) {
    const w = await fetch(`${BASE}/api/payments/webhook`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': e.signature }, body: e.body,
    });
    assert.equal(w.status, 200, await w.text());
  }
  for (let i = 0; ; i += 1) {
    const a = await api('/api/payments/connect', { method: 'POST', session: c });
    if (a.json.chargesEnabled) break;
    assert.ok(i < 100, 'the onboarding event was not applied');
    await new Promise((res) => { setTimeout(res, 100); });
  }
  const o = await api('/api/payments/offerings', {
    method: 'POST', session: c, body: { name: 'Monthly video review', amount: 4000, currency: 'eur', interval: 'monthly' },
  });
  assert.equal(o.status, 201, o.text);
  // An adult athlete of the coach's roster claims their login.
  const a = await api('/api/athletes', { method: 'POST', session: c, body: { firstName: 'Nia', lastName: 'Kea' } });
  const inv = await api('/api/invite', { method: 'POST', session: c, body: { athleteId: a.json.id } });
  const nia = email('nia');
  const claim = await api('/api/invite/claim', {
    method: 'POST', body: { token: inv.json.token, email: nia, password: PASSWORD, birthDate: born(24) },
  });
  assert.equal(claim.status, 201, claim.text);

  const { ctx, page } = await phone();
  await fakeCheckoutHost(ctx);
  await page.goto('/signin');
  await page.getByLabel('Email').fill(nia);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Payments' }).first().click();
  await page.getByRole('heading', { name: 'My payments to coaches', level: 1 }).waitFor();
  await page.getByText('Monthly video review').waitFor();
  await check(page);
  await screenshot(page, 'payments');
  await page.getByRole('button', { name: 'Pay: Monthly video review, Nia Kea' }).click();
  await page.waitForURL(/checkout\.payments\.test\/c\/pay\//);
  // Back through the success address: the payments page says what happened.
  const back = await page.goto('/payments?checkout=success&session_id=cs_x');
  await page.getByText('Payment received by the processor').waitFor();
  assert.ok(page.url().endsWith('/me/payments?checkout=success'), page.url());
  await check(page, back);
  await ctx.close();
});
