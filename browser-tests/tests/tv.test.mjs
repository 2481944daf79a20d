// TV sign-in in the browser: the TV's link, sign-in on the way, a wrong code refused in the
// page, the right one claimed for the chosen workspace; the TV's poll then gets its token.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { phone, closeBrowser, checkPage, coach, api, PASSWORD } from '../lib.mjs';

after(closeBrowser);

test('a signed-in member claims the TV by its code', async () => {
  const c = await coach();
  const m = await api(`/api/orgs/${c.orgId}/modules`, { method: 'PATCH', session: c, body: { modules: { tv: true } } });
  assert.equal(m.status, 200, m.text);
  const start = await api('/api/tv/signin/start', { method: 'POST', body: { name: 'Lobby' } });
  assert.equal(start.status, 200, start.text);
  const { ctx, page } = await phone();
  // The verification URI without the code: sign in first, come back, type it.
  await page.goto(start.json.verificationUri);
  assert.equal(new URL(page.url()).pathname, '/signin');
  await page.getByLabel('Email').fill(c.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  assert.equal(new URL(page.url()).pathname, '/tv');
  await checkPage(page);
  await page.getByLabel('Code on the TV').fill('BBBB-BBBB');
  await page.getByRole('button', { name: 'Sign in the TV' }).click();
  await page.getByText('No TV is waiting with this code').waitFor();
  // The complete URI fills the code in.
  const resp = await page.goto(start.json.verificationUriComplete);
  await checkPage(page, resp);
  assert.equal(await page.getByLabel('Code on the TV').inputValue(), start.json.userCode);
  await page.getByLabel('Workspace').selectOption(c.orgId);
  await page.getByLabel('Name of the TV').fill('Clubhouse TV');
  await page.getByRole('button', { name: 'Sign in the TV' }).click();
  await page.getByText('Clubhouse TV is now signed in').waitFor();
  const poll = await api('/api/tv/signin/poll', { method: 'POST', body: { deviceCode: start.json.deviceCode } });
  assert.equal(poll.status, 200, poll.text);
  const me = await api('/api/tv/me', { bearer: poll.json.accessToken });
  assert.equal(me.json.name, 'Clubhouse TV');
  await ctx.close();
});
