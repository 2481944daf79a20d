// Invite links in the browser: a member invite (sign up with the invited address, come back,
// accept) and athlete invites (an adult claims; a minor is gated and a guardian consents).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { phone, closeBrowser, checkPage, coach, api, email, born, mailTo, linkIn, PASSWORD } from '../lib.mjs';

after(closeBrowser);

test('member invite: sign up with the invited address, then join', async () => {
  const owner = await coach('Owner Olu');
  const invited = email('member');
  const r = await api(`/api/orgs/${owner.orgId}/members/invite`, {
    method: 'POST', session: owner, body: { email: invited, role: 'coach' },
  });
  assert.equal(r.status, 201, r.text);
  const mail = await mailTo(invited, '');
  const link = linkIn(mail, '/join/');
  const { ctx, page } = await phone();
  let resp = await page.goto(link);
  await checkPage(page, resp);
  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByLabel('Your name').fill('Mo Member');
  await page.getByLabel('Email').fill(invited);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  assert.equal(page.url(), link);
  await page.getByText('Owner Olu invited').waitFor();
  await checkPage(page);
  await page.getByRole('button', { name: /^Join / }).click();
  await page.getByText('You are now a member').waitFor();
  const members = await api(`/api/orgs/${owner.orgId}/members`, { session: owner });
  assert.ok(JSON.stringify(members.json).includes(invited));
  await ctx.close();
});

test('athlete invite: an adult claims the login from the mailed link', async () => {
  const c = await coach();
  const athleteEmail = email('athlete');
  const r = await api('/api/invite/send', {
    method: 'POST', session: c, body: { firstName: 'Moana', lastName: 'Lee', email: athleteEmail },
  });
  assert.equal(r.status, 201, r.text);
  const link = linkIn(await mailTo(athleteEmail, ''), '/invite/');
  const { ctx, page } = await phone();
  const resp = await page.goto(link);
  await checkPage(page, resp);
  await page.getByRole('heading', { name: 'Hello Moana' }).waitFor();
  const claim = page.locator('form[action$="/claim"]');
  await claim.getByLabel('Email').fill(athleteEmail);
  await claim.getByLabel('Password').fill(PASSWORD);
  await claim.getByLabel('Date of birth').fill(born(19));
  await claim.getByRole('button', { name: 'Create my login' }).click();
  await page.getByRole('heading', { name: 'You are in' }).waitFor();
  await page.getByRole('link', { name: 'Continue' }).click();
  await page.getByRole('heading', { name: /^Hello, / }).waitFor();
  await mailTo(athleteEmail, 'Confirm your email address');
  await ctx.close();
});

test('athlete invite: a minor is gated and a guardian creates the login with consent', async () => {
  const c = await coach();
  const a = await api('/api/athletes', { method: 'POST', session: c, body: { firstName: 'Lani', lastName: 'Kai' } });
  assert.equal(a.status, 201, a.text);
  const inv = await api('/api/invite', { method: 'POST', session: c, body: { athleteId: a.json.id } });
  const { ctx, page } = await phone();
  await page.goto(inv.json.url);
  const claim = page.locator('form[action$="/claim"]');
  await claim.getByLabel('Email').fill(email('lani'));
  await claim.getByLabel('Password').fill(PASSWORD);
  await claim.getByLabel('Date of birth').fill(born(11));
  await claim.getByRole('button', { name: 'Create my login' }).click();
  await page.getByText('need a parent or guardian').waitFor();
  await checkPage(page);
  const g = page.locator('form[action$="/guardian"]');
  await g.getByLabel('Your name').fill('Pua Kai');
  await g.getByLabel('Your email').fill(email('pua'));
  await g.getByLabel('Your password').fill(PASSWORD);
  await g.getByLabel("You are Lani's").selectOption('parent');
  await g.getByLabel("Lani's date of birth").fill(born(11));
  await g.getByRole('button', { name: 'Create the login and consent' }).click();
  await page.locator('#e-consent').getByText('the guardian must consent').waitFor();
  await g.getByLabel("Lani's date of birth").fill(born(11));
  await g.getByLabel('Your password').fill(PASSWORD);
  await g.getByLabel(/I consent/).check();
  await g.getByRole('button', { name: 'Create the login and consent' }).click();
  await page.getByRole('heading', { name: 'You are in' }).waitFor();
  const consents = await api(`/api/athletes/${a.json.id}/guardian-consent`, { session: c });
  assert.equal(consents.status, 200, consents.text);
  assert.ok(consents.text.includes('Pua Kai'), consents.text);
  await ctx.close();
});
