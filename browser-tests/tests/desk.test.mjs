// The coach's desk (issue 37) in a real browser, each workflow from the sign-in page and
// checked through the JSON API; every page visited is checked (no console or CSP errors, no
// sideways scrolling, labelled fields, headers) and run through axe-core (WCAG 2.2 AA).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import {
  phone, closeBrowser, screenshot, sessionOf, api, coach, born, email, PASSWORD, check, onDesk,
} from '../lib.mjs';

after(closeBrowser);

/** A coach signed in through the page, on their desk. */
const signedIn = async () => onDesk(await coach('Coach Kai'));


test('the dashboard shows the desk and athletes needing attention', async () => {
  const { c, ctx, page } = await signedIn();
  const minor = await api('/api/athletes', {
    method: 'POST', session: c, body: { firstName: 'Grom', lastName: 'Young', birthDate: born(12) },
  });
  assert.equal(minor.status, 201, minor.text);
  const resp = await page.goto(`/w/${c.orgId}/`);
  await check(page, resp);
  const attention = page.locator('section', { has: page.getByRole('heading', { name: 'Athletes needing attention' }) });
  await attention.getByRole('link', { name: 'Grom Young' }).waitFor();
  await attention.getByText('guardian consent missing').waitFor();
  // The navigation and the workspace switcher work with the keyboard.
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Athletes' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Athletes', level: 1 }).waitFor();
  await screenshot(page, 'athletes');
  await page.goto(`/w/${c.orgId}/`);
  await screenshot(page, 'dashboard');
  await ctx.close();
});

test('athletes: create with a field error, search as you type, edit, assign, publish, invite, export, archive and restore', async () => {
  const { c, ctx, page, session } = await signedIn();
  await page.goto(`/w/${c.orgId}/athletes`);
  await page.getByRole('link', { name: 'New athlete' }).click();
  await page.getByLabel('First name').fill('Kai');
  await page.getByLabel('Last name').fill('Lenny');
  await page.getByLabel('Birth date').fill('2999-01-01');
  await page.getByRole('button', { name: 'Create athlete' }).click();
  await page.getByText('Please correct the fields below.').waitFor();
  await check(page);
  await page.getByLabel('Birth date').fill(born(25));
  await page.getByLabel('Level').selectOption('pro');
  await page.getByRole('button', { name: 'Create athlete' }).click();
  await page.getByRole('heading', { name: 'Kai Lenny', level: 1 }).waitFor();
  await page.getByText('Created.').waitFor();
  await check(page);
  await screenshot(page, 'athlete-profile');
  const id = page.url().split('/athletes/')[1].split('?')[0];
  let a = await api(`/api/athletes/${id}`, { session });
  assert.equal(a.json.level, 'pro');

  // Assign the coach themselves as head coach.
  await page.getByLabel('Role').selectOption('head');
  await page.getByRole('button', { name: 'Assign coach' }).click();
  await page.getByText('Coach assigned.', { exact: true }).waitFor();
  const coaches = await api(`/api/athletes/${id}/coaches`, { session });
  assert.equal(coaches.json[0].role, 'head');

  // Edit.
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.getByLabel('Notes').fill('Charges the big days');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Saved.').waitFor();
  a = await api(`/api/athletes/${id}`, { session });
  assert.equal(a.json.notes, 'Charges the big days');

  // Publish, and the public page opens.
  await page.getByLabel('Public bio').fill('Big-wave surfer');
  await page.getByRole('button', { name: 'Publish' }).click();
  await page.getByText('Public profile updated.').waitFor();
  a = await api(`/api/athletes/${id}`, { session });
  assert.equal(a.json.published, true);

  // An invite link, shown once.
  await page.getByRole('button', { name: 'Create an invite link' }).click();
  const link = await page.getByLabel(/Invite link/).inputValue();
  assert.match(link, /\/invite\//);
  await check(page);

  // The roster: search as you type (no button press) finds her.
  await api('/api/athletes', { method: 'POST', session: c, body: { firstName: 'Moana', lastName: 'Kealoha' } });
  await page.goto(`/w/${c.orgId}/athletes`);
  await page.getByLabel('Search by name or email').pressSequentially('moa', { delay: 30 });
  await page.waitForURL(/q=moa/);
  await page.getByRole('link', { name: 'Moana Kealoha' }).waitFor();
  assert.equal(await page.getByRole('link', { name: 'Kai Lenny' }).count(), 0);
  await check(page);

  // The roster as CSV, downloaded by the browser.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Export CSV' }).click(),
  ]);
  const csv = await readFile(await download.path(), 'utf8');
  assert.match(csv, /Lenny/);
  assert.match(csv, /Kealoha/);
  // Archive, then bring back, from the profile.
  await page.goto(`/w/${c.orgId}/athletes/${id}`);
  await page.getByRole('button', { name: 'Archive' }).click();
  await page.getByText('Archived.').waitFor();
  assert.equal((await api(`/api/athletes/${id}`, { session })).json.status, 'archived');
  await page.getByRole('button', { name: 'Restore' }).click();
  await page.getByText('Restored.').waitFor();
  assert.equal((await api(`/api/athletes/${id}`, { session })).json.status, 'active');
  await ctx.close();
});

test('athletes: merge two duplicates side by side, then delete behind its confirmation', async () => {
  const { c, ctx, page, session } = await signedIn();
  const keep = await api('/api/athletes', { method: 'POST', session: c, body: { firstName: 'Kai', lastName: 'Lenny' } });
  const gone = await api('/api/athletes', { method: 'POST', session: c, body: { firstName: 'Kai', lastName: 'Lenny', email: 'kai.dup@example.com' } });
  await page.goto(`/w/${c.orgId}/athletes/${keep.json.id}`);
  await page.getByLabel('Duplicate to merge into this athlete').selectOption(gone.json.id);
  await page.getByRole('button', { name: 'Review the merge' }).click();
  await page.getByRole('heading', { name: 'Merge two athletes' }).waitFor();
  await page.getByRole('cell', { name: 'kai.dup@example.com' }).waitFor();
  await check(page);
  await page.getByRole('button', { name: 'Merge them' }).click();
  await page.getByText('Athletes merged.').waitFor();
  const kept = await api(`/api/athletes/${keep.json.id}`, { session });
  assert.equal(kept.json.email, 'kai.dup@example.com');
  assert.equal((await api(`/api/athletes/${gone.json.id}`, { session })).status, 404);

  await page.getByRole('link', { name: 'Delete athlete' }).click();
  await page.getByText('cannot be undone').waitFor();
  await check(page);
  await page.getByRole('button', { name: 'Delete athlete' }).click();
  await page.getByText('Deleted.').waitFor();
  assert.equal((await api(`/api/athletes/${keep.json.id}`, { session })).status, 404);
  await ctx.close();
});

test('athletes: CSV import shows each error by line before writing, then imports', async () => {
  const { c, ctx, page, session } = await signedIn();
  await page.goto(`/w/${c.orgId}/athletes/import`);
  await check(page);
  const bad = 'first_name,last_name,email\nKai,Lenny,kai@example.com\n,Nobody,\nMoana,Kealoha,not-an-email\n';
  await page.getByLabel('CSV file').setInputFiles({ name: 'roster.csv', mimeType: 'text/csv', buffer: Buffer.from(bad) });
  await page.getByRole('button', { name: 'Preview' }).click();
  await page.getByText('2 lines have errors').waitFor();
  await page.getByRole('cell', { name: '3', exact: true }).waitFor();
  await page.getByRole('cell', { name: '4', exact: true }).waitFor();
  await check(page);
  assert.equal((await api('/api/athletes', { session })).json.items.length, 0);
  const good = 'first_name,last_name,email\nKai,Lenny,kai@example.com\nMoana,Kealoha,moana@example.com\n';
  await page.getByLabel('CSV file').setInputFiles({ name: 'roster.csv', mimeType: 'text/csv', buffer: Buffer.from(good) });
  await page.getByRole('button', { name: 'Preview' }).click();
  await page.getByRole('button', { name: 'Import 2 athletes' }).click();
  await page.getByText('Import finished.').waitFor();
  assert.equal((await api('/api/athletes', { session })).json.items.length, 2);
  await ctx.close();
});

test('a large import runs as a job whose progress the page shows live, then the result', async () => {
  const { c, ctx, page, session } = await signedIn();
  const lines = ['first_name,last_name,email'];
  for (let i = 0; lines.join('\n').length < 300 * 1024; i += 1) lines.push(`Surfer${i},Reef${i},surfer${i}@example.com`);
  await page.goto(`/w/${c.orgId}/athletes/import`);
  await page.getByLabel('CSV file').setInputFiles({ name: 'big.csv', mimeType: 'text/csv', buffer: Buffer.from(lines.join('\n')) });
  await page.getByRole('button', { name: 'Preview' }).click();
  await page.getByRole('button', { name: /^Import \d+ athletes$/ }).click();
  await page.getByRole('heading', { name: 'Job progress' }).waitFor();
  await check(page);
  // The page updates itself (htmx polling) until the job is done.
  await page.getByText('Done', { exact: true }).waitFor({ timeout: 60000 });
  await page.getByRole('link', { name: 'Continue' }).click();
  await page.getByRole('heading', { name: 'Athletes', level: 1 }).waitFor();
  const r = await api('/api/athletes?limit=1', { session });
  assert.equal(r.json.items.length, 1);
  assert.ok(r.json.nextOffset, 'the roster holds the imported athletes');
  await ctx.close();
});

test('training: create a session on the calendar, fill its roster, see the waitlist move up, start filming', async () => {
  const { c, ctx, page, session } = await signedIn();
  for (const [f, l] of [['Kai', 'Lenny'], ['Moana', 'Kealoha']]) {
    await api('/api/athletes', { method: 'POST', session: c, body: { firstName: f, lastName: l } });
  }
  await page.goto(`/w/${c.orgId}/training`);
  await check(page);
  await page.getByRole('link', { name: 'New session' }).click();
  await page.getByLabel('Title').fill('Dawn patrol');
  await page.getByLabel('Capacity').fill('1');
  await page.getByRole('button', { name: 'Create session' }).click();
  await page.getByRole('heading', { name: 'Dawn patrol', level: 1 }).waitFor();
  await page.getByText('Created.').waitFor();
  await page.getByText('Times in Pacific/Honolulu').waitFor();
  const id = page.url().split('/training/')[1].split('?')[0];
  // The form's 09:00 was Honolulu time (UTC-10): 19:00 UTC.
  const made = await api(`/api/training-sessions/${id}`, { session });
  assert.match(made.json.session.startsAt, /T19:00:00/);
  // Two athletes on a one-place session: the second waits.
  await page.getByLabel('Athlete').selectOption({ label: 'Kai Lenny' });
  await page.getByRole('button', { name: 'Add to the roster' }).first().click();
  await page.getByText('Added to the roster.').waitFor();
  await page.getByLabel('Athlete').selectOption({ label: 'Moana Kealoha' });
  await page.getByRole('button', { name: 'Add to the roster' }).first().click();
  await page.locator('#roster .badge', { hasText: 'waitlisted' }).waitFor();
  await check(page);
  await screenshot(page, 'training-session');
  // Removing Kai moves Moana up, and the page says so.
  await page.getByRole('button', { name: 'Remove Kai Lenny' }).click();
  await page.getByText('Moved up from the waitlist: Moana Kealoha.').waitFor();
  await page.getByRole('button', { name: 'Attended Moana Kealoha' }).click();
  await page.locator('#roster .badge', { hasText: 'attended' }).waitFor();
  const roster = await api(`/api/training-sessions/${id}/participants`, { session });
  assert.equal(roster.json.participants.length, 1);
  assert.equal(roster.json.participants[0].status, 'attended');
  await page.getByRole('button', { name: 'Start filming' }).click();
  await page.getByText('Filming started').waitFor();
  // The week and the month show it.
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Training' }).click();
  await page.getByRole('link', { name: 'Dawn patrol' }).waitFor();
  await screenshot(page, 'calendar-week');
  await page.getByRole('link', { name: 'Month' }).click();
  await page.getByRole('link', { name: /Dawn patrol/ }).waitFor();
  await check(page);
  await screenshot(page, 'calendar-month');
  await ctx.close();
});

test('training: edit a session, then import past sessions from CSV after a preview that shows the bad line', async () => {
  const { c, ctx, page, session } = await signedIn();
  await api('/api/athletes', { method: 'POST', session: c, body: { firstName: 'Kai', lastName: 'Lenny', email: 'kai.past@example.com' } });
  const start = new Date(Date.now() + 2 * 24 * 3600 * 1000);
  const s = await api('/api/training-sessions', {
    method: 'POST', session: c,
    body: { title: 'Evening glass', startsAt: start.toISOString(), endsAt: new Date(start.getTime() + 3600 * 1000).toISOString() },
  });
  assert.equal(s.status, 201, s.text);
  await page.goto(`/w/${c.orgId}/training/${s.json.id}`);
  await page.getByRole('link', { name: 'Edit' }).click();
  await check(page);
  await page.getByLabel('Title').fill('Evening glass-off');
  await page.getByLabel('Location').fill('Pipeline');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Saved.').waitFor();
  const edited = await api(`/api/training-sessions/${s.json.id}`, { session });
  assert.equal(edited.json.session.title, 'Evening glass-off');
  assert.equal(edited.json.session.location, 'Pipeline');

  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Training' }).click();
  await page.getByRole('link', { name: 'Import past sessions' }).click();
  await check(page);
  const bad = 'title,starts_at,athlete_email,attendance\nMorning,2024-05-01 06:00,kai.past@example.com,attended\nEvening,not a time,kai.past@example.com,attended\n';
  await page.getByLabel('CSV file').setInputFiles({ name: 'past.csv', mimeType: 'text/csv', buffer: Buffer.from(bad) });
  await page.getByRole('button', { name: 'Preview' }).click();
  await page.getByText('1 lines have errors').waitFor();
  await page.getByRole('cell', { name: '3', exact: true }).waitFor();
  await check(page);
  const before = await api('/api/training-sessions?from=2024-01-01T00:00:00Z&to=2024-12-31T00:00:00Z', { session });
  assert.equal(before.json.items.length, 0);
  const good = 'title,starts_at,athlete_email,attendance\nMorning,2024-05-01 06:00,kai.past@example.com,attended\n';
  await page.getByLabel('CSV file').setInputFiles({ name: 'past.csv', mimeType: 'text/csv', buffer: Buffer.from(good) });
  await page.getByRole('button', { name: 'Preview' }).click();
  await page.getByRole('button', { name: 'Import 1 rows' }).click();
  await page.getByText('Import finished.').waitFor();
  const after = await api('/api/training-sessions?from=2024-01-01T00:00:00Z&to=2024-12-31T00:00:00Z', { session });
  assert.equal(after.json.items.length, 1);
  assert.equal(after.json.items[0].title, 'Morning');
  await ctx.close();
});

/** A photo drawn in the page (a canvas), as the PNG bytes a phone would send. */
async function drawnPhoto(page) {
  const b64 = await page.evaluate(() => {
    const c = document.createElement('canvas');
    c.width = 160; c.height = 90;
    const g = c.getContext('2d');
    const sky = g.createLinearGradient(0, 0, 0, 90);
    sky.addColorStop(0, '#7cc6e8'); sky.addColorStop(1, '#0b4f6c');
    g.fillStyle = sky; g.fillRect(0, 0, 160, 90);
    g.fillStyle = '#fff'; g.beginPath(); g.arc(80, 60, 30, Math.PI, 0); g.fill();
    return c.toDataURL('image/png').split(',')[1];
  });
  return Buffer.from(b64, 'base64');
}

test('messages: the coach writes with a photo, the athlete reads and replies at their own pages, the reply arrives live', async () => {
  const { c, ctx, page, session } = await signedIn();
  const a = await api('/api/athletes', { method: 'POST', session: c, body: { firstName: 'Kai', lastName: 'Lenny' } });
  assert.equal(a.status, 201, a.text);
  const inv = await api('/api/invite', { method: 'POST', session: c, body: { athleteId: a.json.id } });
  const kai = email('kai');
  const claim = await api('/api/invite/claim', {
    method: 'POST', body: { token: inv.json.token, email: kai, password: PASSWORD, birthDate: born(20) },
  });
  assert.equal(claim.status, 201, claim.text);

  // The coach starts the conversation and sends a photo with the text.
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Messages' }).click();
  await page.getByRole('heading', { name: 'Messages', level: 1 }).waitFor();
  await check(page);
  await page.getByRole('link', { name: 'New conversation' }).click();
  await check(page);
  await page.getByRole('button', { name: 'Write to Kai Lenny' }).click();
  await page.getByRole('heading', { name: 'Kai Lenny', level: 1 }).waitFor();
  const conv = page.url().split('/messages/')[1].split('?')[0];
  await page.getByRole('textbox', { name: 'Message' }).fill('Look at this bottom turn');
  await page.getByLabel(/^Photo/).setInputFiles({ name: 'turn.png', mimeType: 'image/png', buffer: await drawnPhoto(page) });
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByText('Message sent.').waitFor();
  const photo = page.getByRole('img', { name: 'Photo attached to the message' });
  await photo.waitFor();
  assert.ok(await photo.evaluate((i) => i.complete && i.naturalWidth === 160), 'the photo is shown');
  await check(page);
  await screenshot(page, 'conversation');
  const sent = await api(`/api/conversations/${conv}/messages`, { session });
  assert.equal(sent.json.items[0].body, 'Look at this bottom turn');
  assert.equal(sent.json.items[0].hasAttachment, true);

  // The athlete signs in: no workspace, their home page leads to their messages.
  const athlete = await phone();
  const ap = athlete.page;
  await ap.goto('/signin');
  await ap.getByLabel('Email').fill(kai);
  await ap.getByLabel('Password').fill(PASSWORD);
  await ap.getByRole('button', { name: 'Sign in' }).click();
  await ap.getByRole('link', { name: 'Messages' }).first().click();
  await ap.getByRole('heading', { name: 'Messages', level: 1 }).waitFor();
  await ap.getByText('1 unread').waitFor();
  await check(ap);
  await ap.getByRole('link', { name: 'Kai Lenny' }).click();
  await ap.getByText('Look at this bottom turn').waitFor();
  const seen = ap.getByRole('img', { name: 'Photo attached to the message' });
  await seen.waitFor();
  assert.ok(await seen.evaluate((i) => i.complete && i.naturalWidth === 160), 'the athlete sees the photo');
  await ap.getByRole('textbox', { name: 'Message' }).fill('Thanks coach, the next one is higher');
  await ap.getByRole('button', { name: 'Send' }).click();
  await ap.getByText('Message sent.').waitFor();
  await check(ap);
  await screenshot(ap, 'athlete-messages');
  const mine = await sessionOf(athlete.ctx);
  const theirs = await api(`/api/conversations/${conv}/messages`, { session: mine });
  assert.equal(theirs.json.items[0].body, 'Thanks coach, the next one is higher');

  // The coach's open conversation shows the reply without a reload (its thread is polled),
  // and the coach can report it.
  await page.getByText('Thanks coach, the next one is higher').waitFor({ timeout: 15000 });
  await page.getByRole('link', { name: 'Report' }).click();
  await page.getByLabel('Reason').selectOption('spam');
  await check(page);
  await page.getByRole('button', { name: 'Report the message' }).click();
  await page.getByText('Message reported to the moderators.').waitFor();

  // How the coach's notification to Kai went out: the sends, then the one send per channel.
  // Each page finishes loading before the next (leaving one mid-load aborts its requests).
  await page.waitForLoadState('load');
  await page.goto(`/w/${c.orgId}/messages`);
  await page.waitForLoadState('load');
  await page.getByRole('link', { name: 'How my notifications went out' }).click();
  await page.getByRole('heading', { name: 'How my notifications went out', level: 1 }).waitFor();
  await check(page);
  await screenshot(page, 'notifications-sent');
  await page.getByRole('link', { name: 'New message from Coach Kai' }).click();
  await page.getByRole('cell', { name: 'email', exact: true }).waitFor();
  await check(page);
  await screenshot(page, 'notifications-send');
  await athlete.ctx.close();
  await ctx.close();
});
