// Competition (issue 39, part A) in a real browser: a coach's circuit (imported through the
// JSON API from the competition provider's fake, which pages::browser starts with the
// hand-worked season) listed on the competition page, its standings with the qualification
// line, an event added (a missing name refused beside its field first), an athlete's strategy
// with a goal set, and the athlete search importing a profile (linked, never duplicated) while
// the unconfigured tour index says why it is unavailable. Results checked through the JSON
// API; every page through axe-core (WCAG 2.2 AA).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  closeBrowser, screenshot, api, coach, check, onDesk,
} from '../lib.mjs';

after(closeBrowser);

/** Starts a job through a member's route and waits (20 s) for it to succeed; its result. */
async function runJob(session, path, body = {}) {
  const r = await api(path, { method: 'POST', body, session });
  assert.equal(r.status, 202, r.text);
  for (let i = 0; i < 200; i += 1) {
    const j = await api(`/api/jobs/${r.json.jobId}`, { session });
    if (j.json.status === 'succeeded') return j.json.result;
    assert.notEqual(j.json.status, 'failed', j.text);
    await new Promise((done) => { setTimeout(done, 100); });
  }
  return assert.fail(`${path}: the job did not finish`);
}

test('competition: circuits, standings with the line, an event, a goal, the athlete search', async () => {
  const { c, page, session } = await onDesk(await coach('Coach Kai'));
  await page.waitForLoadState('load');
  // The circuit, as a coach makes it: the organisations synced, the series' rankings imported,
  // Ethan Ewing brought into the roster, the standings imported, the rules set.
  await runJob(session, '/api/heatsource/organisations/sync');
  const { circuitId } = await runJob(session, '/api/heatsource/import-rankings', { seriesId: '100' });
  const ethan = await api('/api/athlete-search/import', { method: 'POST', body: { source: 'heatsource', id: 'a3' }, session });
  assert.equal(ethan.status, 201, ethan.text);
  await runJob(session, `/api/heatsource/circuits/${circuitId}/import-standings`);
  const rules = await api(`/api/circuits/${circuitId}`, {
    method: 'PATCH', session, body: { resultsToCount: 2, qualificationPlace: 2, pointsTable: [1000, 800, 650, 550, 450] },
  });
  assert.equal(rules.status, 200, rules.text);

  let resp = await page.goto(`/w/${c.orgId}/competition`);
  await check(page, resp);
  await page.getByText('places 1 to 2 qualify').first().waitFor();
  await screenshot(page, 'competition');

  // The opponents page (notes with head-to-head), from the section's toolbar.
  await page.getByRole('link', { name: 'Opponents' }).click();
  await page.getByRole('heading', { name: 'Opponents', level: 1 }).waitFor();
  await check(page);
  await screenshot(page, 'competition-opponents');
  resp = await page.goto(`/w/${c.orgId}/competition`);
  await page.waitForLoadState('load');

  await page.getByRole('link', { name: 'Championship Tour 2026' }).click();
  await page.getByRole('heading', { name: 'Championship Tour 2026', level: 1 }).waitFor();
  await page.locator('tr.qualification-line').waitFor();
  // The line falls after Jack Robinson (2nd), before Kaito Ohashi (3rd).
  const rows = await page.locator('table.standings tbody tr').allTextContents();
  const line = rows.findIndex((t) => t.includes('Qualification line'));
  assert.ok(rows[line - 1].includes('Jack Robinson') && rows[line + 1].includes('Kaito Ohashi'), rows.join(' | '));
  await check(page);

  // An event without a name is refused beside the field; then added.
  const add = page.locator('form', { has: page.getByRole('button', { name: 'Add event' }) });
  await add.getByLabel('Name').evaluate((el) => el.removeAttribute('required'));
  await add.getByLabel('Date').fill('2030-06-01');
  await page.getByRole('button', { name: 'Add event' }).click();
  await page.locator('#e-name').waitFor();
  await check(page);
  await page.getByLabel('Name').fill('Club Champs');
  await page.getByRole('button', { name: 'Add event' }).click();
  await page.getByText('Event added.').waitFor();
  const events = await api(`/api/circuits/${circuitId}/events`, { session });
  assert.ok(events.json.items.some((e) => e.name === 'Club Champs' && e.date === '2030-06-01'), events.text);
  await check(page);
  await screenshot(page, 'competition-circuit');

  // Ethan's strategy, from his line of the standings; a goal set.
  await page.getByRole('link', { name: 'Ethan Ewing' }).click();
  await page.getByRole('heading', { name: 'Strategy: Ethan Ewing' }).waitFor();
  await page.getByText('450 points short of the line at 1550.').first().waitFor();
  await check(page);
  await page.getByLabel('Circuit').selectOption(circuitId);
  await page.getByLabel('Target rank').fill('3');
  await page.getByLabel('Note').fill('Podium pace');
  await page.getByRole('button', { name: 'Save goal' }).click();
  await page.getByText('Goal saved.').waitFor();
  const view = await api(`/api/strategy/${ethan.json.athleteId}`, { session });
  assert.equal(view.json.circuits[0].goal.targetRank, 3, view.text);
  await check(page);
  await screenshot(page, 'competition-strategy');

  // The athlete search: heatsource answers, the unconfigured tour index says why.
  resp = await page.goto(`/w/${c.orgId}/competition/search`);
  await check(page, resp);
  await page.getByLabel('Name (at least 2 characters)').fill('kai');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('#source-tourindex [data-status="not_configured"]').waitFor();
  await page.getByRole('button', { name: /: Kai Lenny$/ }).click();
  await page.getByText('Added to the roster.').waitFor();
  await check(page);
  const count = async () => (await api('/api/athletes', { session })).json.items.length;
  const before = await count();
  // Imported again: linked, not a second athlete.
  await page.getByRole('button', { name: /: Kai Lenny$/ }).click();
  await page.getByText('Already in roster — linked.').waitFor();
  assert.equal(await count(), before);
  await check(page);
  await screenshot(page, 'competition-athlete-search');
});
