// The competition module's people pages (issue 39) in a real browser: a coach writes a note on
// an opponent (a bad one refused beside its field first), reads it back and deletes it; then
// watches an athlete and a provider's event and stops watching one; identity, achievements;
// makes a season report (a bad season refused first), follows its job, reads and downloads
// it; reads the forecast of a club spot and of a spot found by name. Results checked through
// the JSON API; every page through axe-core (WCAG 2.2 AA).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  closeBrowser, screenshot, api, coach, check, onDesk, CRON_SECRET,
} from '../lib.mjs';

after(closeBrowser);

async function athlete(c, firstName, lastName) {
  const a = await api('/api/athletes', { method: 'POST', session: c, body: { firstName, lastName } });
  assert.equal(a.status, 201, a.text);
  return a.json.id;
}

test('opponents: write a note, see it for the athlete, delete it', async () => {
  const k = await coach('Coach Kai');
  const mia = await athlete(k, 'Mia', 'Silva');
  await athlete(k, 'Ana', 'Reis');
  const { c, page, session } = await onDesk(k);
  page.on('dialog', (d) => d.accept());
  await page.waitForLoadState('load');
  let resp = await page.goto(`/w/${c.orgId}/competition/opponents`);
  await check(page, resp);
  await page.getByRole('heading', { name: 'Opponents', level: 1 }).waitFor();

  // A provider opponent without its name: said beside the field, nothing written.
  await page.getByLabel('For athlete').selectOption(mia);
  await page.getByLabel("Provider's athlete id").fill('hs-4471');
  await page.getByRole('button', { name: 'Save note' }).click();
  await page.locator('#e-opponentName').waitFor();
  await check(page);
  assert.equal((await api('/api/opponents', { session })).json.items.length, 0);

  await page.getByLabel('Name', { exact: true }).fill('Kai Moana');
  await page.getByLabel('Note', { exact: true }).fill('Paddles hard for the first wave of every set.');
  await page.getByLabel('Strengths').fill('backhand, paddling');
  await page.getByLabel('Tags').fill('aggressive');
  await page.getByRole('button', { name: 'Save note' }).click();
  await page.getByText('The note is saved.').waitFor();
  await page.getByRole('heading', { name: 'Notes for Mia Silva' }).waitFor();
  await check(page);
  await screenshot(page, 'competition-opponents');
  const notes = (await api(`/api/opponents?athleteId=${mia}`, { session })).json.items;
  assert.equal(notes.length, 1);
  assert.equal(notes[0].opponent.externalId, 'hs-4471');
  assert.deepEqual(notes[0].strengths, ['backhand', 'paddling']);

  await page.getByRole('button', { name: 'Delete note Kai Moana' }).click();
  await page.getByText('The note is deleted.').waitFor();
  await check(page);
  assert.equal((await api('/api/opponents', { session })).json.items.length, 0);
});

test('watchlist: watch an athlete and an event, stop watching one', async () => {
  const k = await coach('Coach Kai');
  const mia = await athlete(k, 'Mia', 'Silva');
  const { c, page, session } = await onDesk(k);
  await page.waitForLoadState('load');
  const resp = await page.goto(`/w/${c.orgId}/competition/watchlist`);
  await check(page, resp);
  await page.getByText('You watch nothing yet.').waitFor();

  // An event needs its target: said, nothing written.
  await page.getByLabel('Event', { exact: true }).check();
  await page.getByRole('button', { name: 'Watch', exact: true }).click();
  await page.locator('#e-target').waitFor();
  await check(page);

  await page.getByLabel("Provider's id").fill('ev-9');
  await page.getByLabel('Name', { exact: true }).fill('Pro Peniche');
  await page.getByRole('button', { name: 'Watch', exact: true }).click();
  await page.getByText('Added to your watchlist.').waitFor();

  await page.getByLabel('Athlete', { exact: true }).check();
  await page.getByLabel('One of your athletes').selectOption(mia);
  await page.getByLabel('Note').fill('Trials in May');
  await page.getByRole('button', { name: 'Watch', exact: true }).click();
  await page.getByText('Added to your watchlist.').waitFor();
  await check(page);
  await screenshot(page, 'competition-watchlist');
  let items = (await api('/api/watchlist', { session })).json.items;
  assert.equal(items.length, 2);

  await page.getByRole('button', { name: 'Stop watching Pro Peniche' }).click();
  await page.getByText('Removed from your watchlist.').waitFor();
  await check(page);
  items = (await api('/api/watchlist', { session })).json.items;
  assert.deepEqual(items.map((i) => i.name), ['Mia Silva']);
});

test('identity: a provider not set up is said, a duplicate pair dismissed', async () => {
  const k = await coach('Coach Kai');
  const mia = await athlete(k, 'Mia', 'Silva');
  await athlete(k, 'Mia', 'Silva');
  const { c, page, session } = await onDesk(k);
  await page.waitForLoadState('load');
  const resp = await page.goto(`/w/${c.orgId}/competition/identity`);
  await check(page, resp);
  await page.getByRole('heading', { name: 'Probably the same person' }).waitFor();
  assert.equal((await api('/api/dedup/suggestions', { session })).json.items.length, 1);

  await page.getByLabel('Athlete').selectOption(mia);
  await page.getByRole('button', { name: 'Show' }).click();
  await page.getByRole('heading', { name: 'Profiles that may be Mia Silva' }).waitFor();
  await page.locator('#sources').getByText('not set up on this service').first().waitFor();
  await check(page);
  await screenshot(page, 'competition-identity');

  await page.getByRole('button', { name: 'Not the same Mia Silva, Mia Silva' }).click();
  await page.getByText('The pair will not be suggested again.').waitFor();
  await check(page);
  assert.equal((await api('/api/dedup/suggestions', { session })).json.items.length, 0);
});

test('achievements: seed the defaults, check an athlete', async () => {
  const k = await coach('Coach Kai');
  const mia = await athlete(k, 'Mia', 'Silva');
  const { c, page, session } = await onDesk(k);
  await page.waitForLoadState('load');
  const resp = await page.goto(`/w/${c.orgId}/competition/achievements`);
  await check(page, resp);
  await page.getByRole('button', { name: 'Add the default achievements' }).click();
  await page.getByText('The default achievements are added.').waitFor();
  await check(page);
  assert.ok((await api('/api/achievements', { session })).json.items.length > 0);
  await page.getByLabel('Athlete', { exact: true }).selectOption(mia);
  await page.getByRole('button', { name: 'Show' }).click();
  await page.getByRole('heading', { name: 'Achievements of Mia Silva' }).waitFor();
  await page.getByRole('button', { name: 'Check this athlete now' }).click();
  await page.getByText('The athlete is checked').waitFor();
  await check(page);
  await screenshot(page, 'competition-achievements');
});

test('season reports: ask for one, follow the job, read it, download it', async () => {
  const k = await coach('Coach Kai');
  const mia = await athlete(k, 'Mia', 'Silva');
  const { c, page, session } = await onDesk(k);
  await page.waitForLoadState('load');
  await page.goto(`/w/${c.orgId}/competition`);
  await page.getByRole('link', { name: 'Season reports' }).click();
  await page.getByRole('heading', { name: 'Season reports', level: 1 }).waitFor();
  await check(page);

  // A season that is not a year: said beside the field, nothing asked.
  const form = page.locator('form[method="post"]');
  await form.getByLabel('Athlete').selectOption(mia);
  await page.getByLabel('Season (year)').fill('last year');
  await page.getByRole('button', { name: 'Make the report' }).click();
  await page.locator('#e-season').waitFor();
  await check(page);
  assert.equal((await api(`/api/reports/season/${mia}`, { session })).json.items.length, 0);

  await page.getByLabel('Season (year)').fill('2026');
  await page.getByRole('button', { name: 'Make the report' }).click();
  await page.getByRole('heading', { name: 'Job progress' }).waitFor();
  await page.getByRole('link', { name: 'Continue' }).click({ timeout: 30000 });
  await page.getByRole('heading', { name: 'Reports for Mia Silva' }).waitFor();
  await check(page);
  await screenshot(page, 'competition-reports');
  const listed = (await api(`/api/reports/season/${mia}`, { session })).json.items;
  assert.equal(listed.length, 1);
  assert.equal(listed[0].label, '2026');

  await page.getByRole('link', { name: '2026', exact: true }).click();
  await page.getByRole("heading", { name: "Mia Silva: season 2026" }).waitFor();
  await check(page);
  await screenshot(page, 'competition-report');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download the printable report' }).click(),
  ]);
  assert.equal(download.suggestedFilename(), 'season-report-2026.html');
  const body = await (await download.createReadStream()).toArray();
  assert.match(Buffer.concat(body).toString(), /Mia Silva/);
});

test('forecasts: a club spot and a spot found by name, with the sessions there', async () => {
  const k = await coach('Coach Kai');
  const start = new Date(Date.now() + 2 * 3600 * 1000);
  const made = await api('/api/training-sessions', {
    method: 'POST', session: k,
    body: { title: 'Dawn patrol', startsAt: start.toISOString(), endsAt: new Date(start.getTime() + 7200000).toISOString(), spot: 'Bells Beach' },
  });
  assert.equal(made.status, 201, made.text);
  // The nightly spot backfill, run now: the session's spot name becomes a provider spot.
  const ran = await api('/api/cron/backfill-spots', { method: 'POST', bearer: CRON_SECRET });
  assert.ok(ran.status < 300, ran.text);
  const { c, page } = await onDesk(k);
  await page.waitForLoadState('load');
  await page.goto(`/w/${c.orgId}/competition`);
  await page.getByRole('link', { name: 'Surf forecasts' }).click();
  await page.getByRole('heading', { name: 'Surf forecasts', level: 1 }).waitFor();
  await check(page);
  // The backfill runs as a job: the spot is a link once it has resolved.
  const club = page.locator('#club').getByRole('link', { name: 'Bells Beach' });
  for (let i = 0; i < 50 && !(await club.count()); i += 1) {
    await new Promise((r) => setTimeout(r, 200));
    await page.reload();
  }
  await club.click();
  await page.getByRole('heading', { name: 'Forecast for Bells Beach' }).waitFor();
  await page.locator('#hours tbody tr').first().waitFor();
  assert.equal(await page.locator('#hours tbody tr').count(), 24);
  await page.getByRole('link', { name: 'Dawn patrol' }).waitFor();
  await check(page);
  await screenshot(page, 'competition-forecasts');

  // A query too short is said beside the field; a spot found by name.
  await page.getByLabel('Spot name').fill('m');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('#e-q').waitFor();
  await check(page);
  await page.getByLabel('Spot name').fill('manly');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('#found').getByRole('link', { name: 'Manly Beach North' }).click();
  await page.getByRole('heading', { name: 'Forecast for Manly Beach North' }).waitFor();
  await page.getByText('No training session at this spot this fortnight.').waitFor();
  await check(page);
});
