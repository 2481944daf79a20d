// A person's notification settings (issue 41) in a real browser: reached from the desk's
// header, saved through the form and checked through the JSON API, and the "turn on
// notifications in this browser" control with its service worker. Every page is checked (no
// console or CSP errors, no sideways scrolling, labelled fields, headers) and run through
// axe-core (WCAG 2.2 AA).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  phone, closeBrowser, screenshot, api, coach, check, onDesk,
} from '../lib.mjs';

after(closeBrowser);

/** A coach signed in through the page, on their desk. */
const signedIn = async () => onDesk(await coach('Coach Kai'));


test('a coach unticks a channel and sets quiet hours on the settings page', async () => {
  const { ctx, page, session } = await signedIn();
  await page.getByRole('banner').getByRole('link', { name: 'Notifications' }).click();
  await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor();
  const resp = await page.goto('/me/notifications');
  await check(page, resp);
  // No verified phone: the SMS boxes are there, disabled, with why.
  assert.equal(await page.getByLabel('Messages by SMS').isDisabled(), true);
  await page.getByText('SMS needs a verified phone number').waitFor();

  await page.getByLabel('Messages by email').uncheck();
  await page.getByLabel('From').fill('22:00');
  await page.getByLabel('To', { exact: true }).fill('07:00');
  await page.getByLabel('Time zone of the quiet hours').selectOption('Europe/Lisbon');
  await page.getByRole('button', { name: 'Save notification settings' }).click();
  await page.getByText('Saved.').waitFor();
  await check(page);
  assert.equal(await page.getByLabel('Messages by email').isChecked(), false);
  assert.equal(await page.getByLabel('Messages by push').isChecked(), true);

  const p = await api('/api/notifications/preferences', { session });
  assert.equal(p.status, 200, p.text);
  assert.equal(p.json.timeZone, 'Europe/Lisbon');
  assert.deepEqual(p.json.quietHours, { start: '22:00', end: '07:00' });
  const message = p.json.categories.find((c) => c.category === 'message');
  assert.deepEqual([message.email, message.push, message.sms], [false, true, false]);
  await screenshot(page, 'notifications');
  await ctx.close();
});

test('the service worker registers and the browser control says on, or in words why this Chromium could not subscribe', async () => {
  const { ctx, page } = await signedIn();
  await page.goto('/me/notifications');
  const scope = await page.evaluate(() => navigator.serviceWorker.ready.then((r) => r.scope));
  assert.equal(new URL(scope).pathname, '/');
  const registered = await page.evaluate(() => navigator.serviceWorker.getRegistration('/').then((r) => !!r && !!r.active));
  assert.ok(registered, 'the service worker is active');
  const status = page.locator('[data-push-status]');
  await page.getByText('Notifications are off in this browser.').waitFor();
  await check(page);

  // Offline there is no push service to reach: the browser may subscribe (then the API saved
  // it and the control says on) or fail; either way the control says so in words.
  await ctx.grantPermissions(['notifications']);
  await page.getByRole('button', { name: 'Turn on notifications in this browser' }).click();
  await page.waitForFunction(() => ['on', 'failed'].includes(document.querySelector('[data-push]').dataset.pushState));
  const state = await page.locator('[data-push]').getAttribute('data-push-state');
  const text = await status.textContent();
  if (state === 'on') {
    assert.equal(text, 'Notifications are on in this browser.');
    await page.getByRole('button', { name: 'Turn off notifications in this browser' }).click();
    await page.getByText('Notifications are off in this browser.').waitFor();
  } else {
    assert.match(text, /^This browser could not turn on notifications: .+/);
    // The test's Chromium (a playwright context is incognito) refuses the Push API and says so
    // on the console itself: the browser's message, not the page's error.
    page.problems.splice(0, page.problems.length,
      ...page.problems.filter((m) => !m.includes('does not support the Push API in incognito')));
    // The button is offered again, to retry.
    await page.getByRole('button', { name: 'Turn on notifications in this browser' }).waitFor();
  }
  await check(page);
  await ctx.close();
});
