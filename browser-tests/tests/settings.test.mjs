// The desk's workspace settings (issue 37, part A) in a real browser, each workflow from the
// sign-in page and checked through the JSON API; every page visited is checked (no console or
// CSP errors, no sideways scrolling, labelled fields, headers) and run through axe-core.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  closeBrowser, screenshot, api, coach, mailTo, linkIn, check, onDesk,
} from '../lib.mjs';

after(closeBrowser);

/** A coach signed in through the page, on their desk. */
const signedIn = async () => onDesk(await coach('Coach Kai'));


const sections = (page) => page.getByRole('navigation', { name: 'Sections' });
const tabs = (page) => page.getByRole('navigation', { name: 'Workspace settings' });

test("settings: change a member's role, create a role and tick a permission", async () => {
  const { c, ctx, page, session } = await signedIn();
  // Moana joins through an invite (the API's own flow) as a coach.
  const moana = await coach('Moana Kealoha');
  const inv = await api(`/api/orgs/${c.orgId}/members/invite`, { method: 'POST', session: c, body: { email: moana.email, role: 'coach' } });
  assert.equal(inv.status, 201, inv.text);
  const token = linkIn(await mailTo(moana.email, 'invited you'), '/join/').split('/join/')[1];
  const joined = await api(`/api/orgs/invite/${token}/accept`, { method: 'POST', session: moana });
  assert.equal(joined.status, 200, joined.text);

  // The Workspace section leads to the first settings page: the members.
  await sections(page).getByRole('link', { name: 'Workspace' }).click();
  await page.getByRole('heading', { name: 'Members', level: 2 }).waitFor();
  await check(page);
  await screenshot(page, 'settings-members');
  const row = page.getByRole('row', { name: /Moana Kealoha/ });
  await row.getByLabel('Role of Moana Kealoha').selectOption('viewer');
  await row.getByRole('button', { name: 'Change role' }).click();
  await page.getByText('Role changed.').waitFor();
  const members = await api(`/api/orgs/${c.orgId}/members`, { session });
  assert.equal(members.json.items.find((m) => m.email === moana.email).role, 'viewer');

  // A new role, then one of its permissions ticked in the matrix.
  await tabs(page).getByRole('link', { name: 'Roles' }).click();
  await page.getByRole('heading', { name: 'Roles and permissions' }).waitFor();
  await check(page);
  await page.getByLabel('Role name').fill('Video team');
  await page.getByRole('button', { name: 'Create role' }).click();
  await page.getByText('Role created').waitFor();
  await page.getByLabel('Video team: footage.read').check();
  await page.getByRole('button', { name: 'Save roles' }).click();
  await page.getByText('Roles saved.').waitFor();
  assert.ok(await page.getByLabel('Video team: footage.read').isChecked());
  await check(page);
  await screenshot(page, 'settings-roles');
  const roles = await api(`/api/orgs/${c.orgId}/roles`, { session });
  assert.deepEqual(roles.json.find((r) => r.key === 'video-team').permissions, ['footage.read']);
  await ctx.close();
});

test('settings: invite a member, then switch a module off and its section leaves the navigation', async () => {
  const { c, ctx, page, session } = await signedIn();
  let resp = await page.goto(`/w/${c.orgId}/settings/invites`);
  await check(page, resp);
  await page.getByText('1 of 3 seats used').waitFor();
  await page.getByLabel('Email').fill('new.coach@example.com');
  await page.getByLabel('Role', { exact: true }).selectOption('coach');
  await page.getByRole('button', { name: 'Send invite' }).click();
  await page.getByText('Invite sent by mail.').waitFor();
  await page.getByText('2 of 3 seats used').waitFor();
  await page.getByRole('row', { name: /new\.coach@example\.com/ }).getByText('pending').waitFor();
  await check(page);
  await screenshot(page, 'settings-invites');
  const invites = await api(`/api/orgs/${c.orgId}/invites`, { session });
  assert.equal(invites.json.items[0].email, 'new.coach@example.com');
  assert.equal(invites.json.items[0].status, 'pending');

  await tabs(page).getByRole('link', { name: 'Modules' }).click();
  await page.getByRole('heading', { name: 'Modules', level: 2 }).waitFor();
  await check(page);
  assert.equal(await sections(page).getByRole('link', { name: 'Messages' }).count(), 1);
  await page.getByLabel('Messages').uncheck();
  await page.getByRole('button', { name: 'Save modules' }).click();
  await page.getByText('Modules saved.').waitFor();
  assert.equal(await sections(page).getByRole('link', { name: 'Messages' }).count(), 0);
  assert.equal(await page.getByLabel('Messages').isChecked(), false);
  await check(page);
  await screenshot(page, 'settings-modules');
  const org = await api(`/api/orgs/${c.orgId}`, { session });
  assert.equal(org.json.modules.messaging, false);
  resp = await page.goto(`/w/${c.orgId}/messages`);
  assert.equal(resp.status(), 403);
  await ctx.close();
});
