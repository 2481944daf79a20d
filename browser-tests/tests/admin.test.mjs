// The platform admin console (issue 39) in a real browser: the overview with its live
// activity, a user found by search and opened, impersonation started there with a reason
// (the coach's desk then shows the banner, as do the person's own pages and the console),
// stopped from the banner; a workspace's seat cap set; the jobs and queues view; a workspace
// granted a plan and seats on the subscriptions page. Each checked
// through the JSON API; every page checked and run through axe-core (WCAG 2.2 AA).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  closeBrowser, screenshot, api, coach, check, phone, sessionOf, PASSWORD,
} from '../lib.mjs';

after(closeBrowser);

/** The platform admin the harness made (ADMIN_EMAIL), signed in through the page. */
async function adminSignedIn() {
  const { ctx, page } = await phone();
  await page.goto('/signin?next=%2Fadmin');
  await page.getByLabel('Email').fill(process.env.ADMIN_EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Platform overview', level: 1 }).waitFor();
  return { ctx, page, session: await sessionOf(ctx) };
}

test('admin: overview, find a user, act as them with the banner everywhere, stop', async () => {
  const c = await coach('Coach Leilani');
  const logged = await api('/api/activity/log', { method: 'POST', session: c, body: { events: [{ kind: 'page_view', path: '/athletes/leilani' }] } });
  assert.equal(logged.status, 202, logged.text);
  const { page, session } = await adminSignedIn();
  await check(page);
  await page.getByRole('cell', { name: '/athletes/leilani' }).first().waitFor();
  await screenshot(page, 'admin-overview');

  // Users: search, open.
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Users' }).click();
  await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
  await page.getByLabel('Search by name or email').fill('Leilani');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.waitForURL(/q=Leilani/);
  await check(page);
  await page.getByRole('link', { name: 'Coach Leilani' }).click();
  await page.getByRole('heading', { name: 'Coach Leilani', level: 1 }).waitFor();
  await check(page);
  await screenshot(page, 'admin-user');

  // Act as them: the coach's desk, with the banner.
  await page.getByLabel('Reason (kept in the audit log)').fill('support ticket 314');
  await page.getByRole('button', { name: 'Act as Coach Leilani' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  assert.ok(page.url().includes(`/w/${c.orgId}/`), page.url());
  const banner = page.getByRole('status').filter({ hasText: 'You are acting as Coach Leilani' });
  await banner.waitFor();
  await check(page);
  await screenshot(page, 'admin-impersonating');
  const audit = await api('/api/admin/audit?action=admin.impersonation_started', { session });
  assert.equal(audit.status, 200, audit.text);
  assert.equal(audit.json.items[0].data.reason, 'support ticket 314');
  // The person's own pages and the console show it too.
  for (const path of ['/me/notifications', '/admin/jobs']) {
    await page.goto(path);
    await banner.waitFor();
    await check(page);
  }
  // Stop: back at the person's page in the console, no banner.
  await banner.getByRole('button', { name: 'Stop acting as Coach Leilani' }).click();
  await page.getByRole('heading', { name: 'Coach Leilani', level: 1 }).waitFor();
  assert.equal(await page.getByText('You are acting as').count(), 0);
  const desk = await page.goto(`/w/${c.orgId}/`);
  assert.equal(desk.status(), 404);
});

test('admin: a workspace\'s seat cap, and the jobs and queues', async () => {
  const c = await coach('Coach Makoa');
  const { page, session } = await adminSignedIn();
  await page.goto(`/admin/orgs/${c.orgId}`);
  await check(page);
  const seats = page.getByLabel('Seats (blank: the plan\'s cap)');
  await seats.fill('many');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('#e-seat_cap').waitFor();
  await check(page);
  await seats.fill('7');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Saved.').first().waitFor();
  const w = await api(`/api/admin/orgs/${c.orgId}`, { session });
  assert.equal(w.json.seatCapOverride, 7);
  await screenshot(page, 'admin-org');

  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Jobs' }).click();
  await page.getByRole('heading', { name: 'Jobs and queues', level: 1 }).waitFor();
  await page.getByRole('rowheader', { name: 'default' }).waitFor();
  await check(page);
  await page.getByLabel('Status').selectOption('failed');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/status=failed/);
  await check(page);
  const jobs = await api('/api/admin/jobs?status=failed', { session });
  assert.equal(jobs.status, 200, jobs.text);
  await screenshot(page, 'admin-jobs');
});

test('admin: the signup mode, an invite with its link once, and the reported messages', async () => {
  const { page, session } = await adminSignedIn();
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Signup' }).click();
  await page.getByRole('heading', { name: 'Signup and invites', level: 1 }).waitFor();
  await check(page);
  await page.getByLabel('Who may create an account').selectOption('invite-locked');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Saved.').first().waitFor();
  const s = await api('/api/admin/settings', { session });
  assert.equal(s.json.signupMode, 'invite-locked');
  // A bad number of days: refused beside the field; then the invite, its link shown once.
  const days = page.getByLabel('Days until it expires (1 to 90)');
  await days.fill('200');
  await page.getByRole('button', { name: 'Create invite' }).click();
  await page.locator('#e-expires_in_days').waitFor();
  await check(page);
  await page.getByLabel(/^Email/).fill('guest.browser@example.com');
  await days.fill('7');
  await page.getByRole('button', { name: 'Create invite' }).click();
  await page.locator('#created-invite').waitFor();
  await check(page);
  await screenshot(page, 'admin-signup');
  const inv = await api('/api/admin/invites', { session });
  assert.equal(inv.json.items[0].email, 'guest.browser@example.com');
  // Back to open sign-up for the other tests.
  await page.getByLabel('Who may create an account').selectOption('open');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Saved.').first().waitFor();

  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Reports' }).click();
  await page.getByRole('heading', { name: 'Reported messages', level: 1 }).waitFor();
  await check(page);
  await page.getByLabel('Status').selectOption('open');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/status=open/);
  await check(page);
  await screenshot(page, 'admin-reports');
});

test('admin: an announcement sent, a bad one refused beside its field', async () => {
  const { page, session } = await adminSignedIn();
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Announcements' }).click();
  await page.getByRole('heading', { name: 'Announcements', level: 1 }).waitFor();
  await check(page);
  await page.getByLabel('Title').fill('Big swell');
  await page.getByLabel('Message').fill('Stay safe this weekend.');
  await page.getByLabel('Workspace id (blank: everyone)').fill('nope');
  await page.getByRole('button', { name: 'Send by push and email' }).click();
  await page.locator('#e-org_id').waitFor();
  await check(page);
  await page.getByLabel('Workspace id (blank: everyone)').fill('');
  await page.getByRole('button', { name: 'Send by push and email' }).click();
  await page.getByText('The announcement is on its way').first().waitFor();
  await check(page);
  const a = await api('/api/admin/audit?action=admin.announcement_sent', { session });
  assert.equal(a.json.items[0].data.title, 'Big swell');
  await screenshot(page, 'admin-announcements');
});

test('admin: a workspace granted seats, a bad number refused beside its field, then listed', async () => {
  const c = await coach('Coach Nalu');
  const { page, session } = await adminSignedIn();
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Subscriptions' }).click();
  await page.getByRole('heading', { name: 'Subscriptions and grants', level: 1 }).waitFor();
  await check(page);
  await page.getByLabel('Workspace id', { exact: true }).fill(c.orgId);
  await page.getByLabel('Plan', { exact: true }).fill('club');
  await page.getByLabel('Seats', { exact: true }).fill('0');
  await page.getByLabel(/^Granted until/).fill('2099-06-30');
  await page.getByLabel('Reason', { exact: true }).fill('Partner club pilot');
  await page.getByRole('button', { name: 'Grant', exact: true }).click();
  await page.locator('#e-seats').waitFor();
  await check(page);
  const none = await api(`/api/admin/subscriptions?orgId=${c.orgId}`, { session });
  assert.equal(none.json.items.length, 0, 'nothing written');
  // The typed values stay: only the seats change.
  await page.getByLabel('Seats', { exact: true }).fill('12');
  await page.getByRole('button', { name: 'Grant', exact: true }).click();
  await page.getByText('The grant is made').first().waitFor();
  const subs = await api(`/api/admin/subscriptions?orgId=${c.orgId}`, { session });
  assert.equal(subs.json.items.length, 1, subs.text);
  const g = subs.json.items[0];
  assert.equal(g.source, 'grant');
  assert.equal(g.seats, 12);
  const row = page.locator(`#sub-${g.id}`);
  await row.getByText('Partner club pilot').waitFor();
  await check(page);
  await page.getByLabel('State').selectOption('granted');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/status=granted/);
  await row.waitFor();
  await check(page);
  await screenshot(page, 'admin-subscriptions');
});
