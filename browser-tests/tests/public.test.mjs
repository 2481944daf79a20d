// The public pages in the browser: one-click unsubscribe from a notification mail, a
// published athlete profile, club self-enrollment behind the age gate.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { phone, closeBrowser, checkPage, coach, api, email, born, mailTo, linkIn, SERVICE_KEY } from '../lib.mjs';

after(closeBrowser);

test('the unsubscribe link in a notification mail describes, then unsubscribes on the button', async () => {
  const c = await coach();
  const me = await api('/api/auth/me', { session: c });
  const sent = await api('/api/notifications/send', {
    method: 'POST', bearer: SERVICE_KEY,
    body: { userIds: [me.json.user.id], kind: 'billing.receipt', title: 'Your receipt', body: 'Thank you', channels: ['email'] },
  });
  assert.equal(sent.status, 202, sent.text);
  const mail = await mailTo(c.email, 'Your receipt');
  const link = linkIn(mail, '/unsubscribe?token=');
  const { ctx, page } = await phone();
  const resp = await page.goto(link);
  await checkPage(page, resp);
  const state = () => api(new URL(link).search.replace(/^/, '/api/notifications/unsubscribe'));
  assert.equal((await state()).json.unsubscribed, false, 'opening the link changed nothing');
  await page.getByRole('button', { name: 'Unsubscribe from billing emails' }).click();
  await page.getByText('you will no longer get').waitFor();
  assert.equal((await state()).json.unsubscribed, true);
  await page.goto(link);
  await page.getByText('already unsubscribed').waitFor();
  await ctx.close();
});

test('a published profile shows its allow-list', async () => {
  const c = await coach();
  const a = await api('/api/athletes', {
    method: 'POST', session: c, body: { firstName: 'Kelia', lastName: 'Moniz', birthDate: born(25), notes: 'private' },
  });
  const p = await api(`/api/athletes/${a.json.id}/publish`, {
    method: 'POST', session: c, body: { published: true, bio: 'Longboarder from Waikiki' },
  });
  assert.equal(p.status, 200, p.text);
  const { ctx, page } = await phone();
  const resp = await page.goto(`/profile/${p.json.publicSlug}`);
  await checkPage(page, resp);
  await page.getByRole('heading', { name: 'Kelia Moniz' }).waitFor();
  await page.getByText('Longboarder from Waikiki').waitFor();
  assert.equal(await page.getByText('private').count(), 0);
  await ctx.close();
});

test('club self-enrollment: a minor needs the guardian part', async () => {
  const c = await coach();
  const e = await api('/api/club/enrollment', { method: 'PUT', session: c, body: { enabled: true } });
  assert.equal(e.status, 200, e.text);
  const { ctx, page } = await phone();
  const resp = await page.goto(e.json.pageUrl);
  await checkPage(page, resp);
  await page.getByLabel('First name').fill('Keala');
  await page.getByLabel('Last name').fill('Ono');
  await page.getByLabel('Email', { exact: true }).fill(email('keala'));
  await page.getByLabel('Date of birth').fill(born(10));
  await page.getByRole('button', { name: 'Enroll' }).click();
  await page.getByText('fill in the guardian part too').waitFor();
  await checkPage(page);
  await page.getByLabel("Guardian's name").fill('Leilani Ono');
  await page.getByLabel("Guardian's email").fill(email('leilani'));
  await page.getByLabel('Relationship').selectOption('parent');
  await page.getByLabel(/I consent/).check();
  await page.getByRole('button', { name: 'Enroll' }).click();
  await page.getByRole('heading', { name: 'Thank you' }).waitFor();
  const pending = await api('/api/athletes?status=pending', { session: c });
  assert.equal(pending.json.items.length, 1, pending.text);
  await ctx.close();
});
