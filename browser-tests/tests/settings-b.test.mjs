// The desk's Workspace settings pages, part B (issue 37) in a real browser: the audit log
// filtered, a TV paired by its code (a wrong one refused), renamed and signed out, self-
// enrollment opened and closed, the coaches and a coach's page. Each from the sign-in page,
// checked through the JSON API; every page checked (console, phone width, labels, headers)
// and run through axe-core (WCAG 2.2 AA).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  closeBrowser, screenshot, api, coach, check, onDesk,
} from '../lib.mjs';

after(closeBrowser);

/** A coach signed in through the page, with the TV module on and an athlete they coach. */
async function signedIn() {
  const c = await coach('Coach Kai');
  const m = await api(`/api/orgs/${c.orgId}/modules`, { method: 'PATCH', session: c, body: { modules: { tv: true } } });
  assert.equal(m.status, 200, m.text);
  const me = await api('/api/auth/me', { session: c });
  const a = await api('/api/athletes', { method: 'POST', session: c, body: { firstName: 'Moana', lastName: 'Kealoha' } });
  assert.equal(a.status, 201, a.text);
  const userId = me.json.user.id;
  const r = await api(`/api/athletes/${a.json.id}/coaches`, { method: 'POST', session: c, body: { userId, role: 'head' } });
  assert.equal(r.status, 201, r.text);
  return { ...(await onDesk(c)), userId };
}


test('settings: filter the audit log, pair a TV by its code, rename it and sign it out', async () => {
  const { c, ctx, page, session } = await signedIn();
  const base = `/w/${c.orgId}/settings`;

  // The audit log, then only the TV module's switch (a prefix ending in a dot).
  const resp = await page.goto(`${base}/audit`);
  await check(page, resp);
  await page.getByRole('cell', { name: 'athlete.created' }).first().waitFor();
  await page.getByLabel('Action').fill('org.');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/action=org\./);
  await page.getByRole('cell', { name: /^org\./ }).first().waitFor();
  assert.equal(await page.getByRole('cell', { name: 'athlete.created' }).count(), 0);
  await check(page);
  await screenshot(page, 'settings-audit');

  // The tabs lead to the TV devices.
  await page.getByRole('navigation', { name: 'Workspace settings' }).getByRole('link', { name: 'TV devices' }).click();
  await page.getByRole('heading', { name: 'TV devices', level: 1 }).waitFor();
  await check(page);
  const start = await api('/api/tv/signin/start', { method: 'POST', body: { name: 'Clubhouse TV' } });
  assert.equal(start.status, 200, start.text);
  // A wrong code: said beside the field, nothing paired.
  await page.getByLabel('Code shown on the TV').fill('BCDF-GHJK');
  await page.getByRole('button', { name: 'Pair the TV' }).click();
  await page.locator('#e-userCode').getByText('No TV is waiting with this code').waitFor();
  await check(page);
  let devices = await api('/api/tv/devices', { session });
  assert.deepEqual(devices.json, []);
  // The code on the screen, typed as seen.
  await page.getByLabel('Code shown on the TV').fill(start.json.userCode);
  await page.getByLabel('Name of the TV (optional)').fill('Lobby');
  await page.getByRole('button', { name: 'Pair the TV' }).click();
  await page.getByText('TV paired').waitFor();
  devices = await api('/api/tv/devices', { session });
  assert.equal(devices.json.length, 1);
  assert.equal(devices.json[0].name, 'Lobby');
  await check(page);
  await screenshot(page, 'settings-tv');

  // Rename.
  await page.getByLabel('New name for Lobby').fill('Beach bar');
  await page.getByRole('button', { name: 'Rename Lobby' }).click();
  await page.getByText('TV renamed.').waitFor();
  devices = await api('/api/tv/devices', { session });
  assert.equal(devices.json[0].name, 'Beach bar');

  // Sign out behind its confirmation page.
  await page.getByRole('link', { name: 'Sign out Beach bar' }).click();
  await page.getByRole('heading', { name: 'Sign out Beach bar' }).waitFor();
  await check(page);
  await page.getByRole('main').getByRole('button', { name: 'Sign out' }).click();
  await page.getByText('TV signed out.').waitFor();
  devices = await api('/api/tv/devices', { session });
  assert.deepEqual(devices.json, []);
  await check(page);
  await ctx.close();
});

test('settings: open and close self-enrollment, open a coach\'s page', async () => {
  const { c, ctx, page, session, userId } = await signedIn();
  const base = `/w/${c.orgId}/settings`;

  const resp = await page.goto(`${base}/enrollment`);
  await check(page, resp);
  const setting = await api('/api/club/enrollment', { session });
  assert.equal(setting.json.enabled, false);
  assert.equal(await page.getByLabel('Address of the public page').inputValue(), setting.json.pageUrl);
  await page.getByRole('button', { name: 'Open self-enrollment' }).click();
  await page.getByText('Self-enrollment is open.', { exact: true }).waitFor();
  assert.equal((await api('/api/club/enrollment', { session })).json.enabled, true);
  await check(page);
  await screenshot(page, 'settings-enrollment');
  await page.getByRole('button', { name: 'Close self-enrollment' }).click();
  await page.getByText('Self-enrollment is closed.', { exact: true }).waitFor();
  assert.equal((await api('/api/club/enrollment', { session })).json.enabled, false);

  // The coaches, then the coach's page with their athlete and activity.
  await page.getByRole('navigation', { name: 'Workspace settings' }).getByRole('link', { name: 'Coaches' }).click();
  await page.getByRole('heading', { name: 'Coaches', level: 1 }).waitFor();
  await check(page);
  await screenshot(page, 'settings-coaches');
  await page.getByRole('link', { name: 'Coach Kai' }).click();
  await page.getByRole('heading', { name: 'Coach Kai', level: 1 }).waitFor();
  await page.getByRole('link', { name: 'Moana Kealoha' }).waitFor();
  await page.getByRole('heading', { name: 'Recent activity' }).waitFor();
  assert.equal(page.url().split('/coaches/')[1].split('?')[0], userId);
  const stats = await api(`/api/coaches/${userId}/stats`, { session });
  assert.equal(stats.status, 200, stats.text);
  assert.equal(stats.json.athletes, 1);
  await check(page);
  await screenshot(page, 'settings-coach');
  await ctx.close();
});
