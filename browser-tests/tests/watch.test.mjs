// The desk's watch pages (issue 39) in a real browser: a GPX file imported from the list page,
// the session's track, charts and ride table once it is read, a true ride dragged across the
// speed chart and another confirmed from a found ride, the detector's accuracy against them,
// the GPX download, and the screen for the camera. Each from the sign-in page, checked through
// the JSON API; every page checked (console, phone width, labels, headers) and run through
// axe-core (WCAG 2.2 AA).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  closeBrowser, screenshot, api, coach, check, onDesk,
} from '../lib.mjs';

after(closeBrowser);

/** Ten minutes at 1 Hz off a beach that faces north: sitting at the line-up, four rides of
 * 12 s towards the shore at about 22 km/h, each followed by the paddle back out; heart rate in
 * Garmin's extension. Deterministic (no randomness): the page's figures can be compared. */
function gpx() {
  const t0 = Date.UTC(2026, 10, 27, 8, 0, 0);
  const lat0 = 38.7;
  const lon0 = -9.4;
  const mPerDegLat = 111195;
  const mPerDegLon = mPerDegLat * Math.cos((lat0 * Math.PI) / 180);
  const points = [];
  let north = 0;
  let east = 0;
  for (let s = 0; s < 600; s += 1) {
    const phase = s % 150;
    let hr = 95;
    if (phase >= 60 && phase < 72) {
      north += 6.1; // riding in: 22 km/h
      east += 1.2;
      hr = 150;
    } else if (phase >= 72 && phase < 140) {
      north -= 6.1 * 12 / 68; // paddling back out
      east -= 1.2 * 12 / 68;
      hr = 125;
    } else {
      east += Math.sin(s / 7) * 0.2; // sitting, drifting
    }
    const lat = lat0 + north / mPerDegLat;
    const lon = lon0 + east / mPerDegLon;
    const time = new Date(t0 + s * 1000).toISOString();
    points.push(`<trkpt lat="${lat.toFixed(7)}" lon="${lon.toFixed(7)}"><time>${time}</time><extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>${hr}</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions></trkpt>`);
  }
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
<trk><name>Morning</name><trkseg>
${points.join('\n')}
</trkseg></trk></gpx>
`);
}

test('watch: import a GPX from the page, read its track and rides, drag a true ride on the speed chart, confirm a found one, download GPX', async () => {
  const c = await coach('Coach Watch');
  const a = await api('/api/athletes', { method: 'POST', session: c, body: { firstName: 'Mia', lastName: 'Silva' } });
  assert.equal(a.status, 201, a.text);
  const { ctx, page, session } = await onDesk(c);

  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Watch' }).click();
  await page.getByRole('heading', { name: 'Watch sessions' }).waitFor();
  await check(page);
  await screenshot(page, 'watch-list');

  // The file input of the drop zone takes the file (a drop fills the same input).
  await page.getByLabel('Athlete', { exact: true }).first().selectOption({ label: 'Mia Silva' });
  await page.getByLabel('GPX or FIT file').setInputFiles({ name: 'morning.gpx', mimeType: 'application/gpx+xml', buffer: gpx() });
  await page.getByRole('button', { name: 'Import' }).click();
  await page.getByText('Imported.').waitFor();
  const id = new URL(page.url()).pathname.split('/')[4];
  // The page follows the reading job until the session is ready.
  await page.locator('.badge', { hasText: 'Ready' }).waitFor({ timeout: 60000 });
  let r = await api(`/api/wearable/sessions/${id}`, { session });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.source, 'gpx');
  const rides = r.json.rides;
  assert.ok(rides.length >= 3, `rides found: ${JSON.stringify(rides)}`);
  assert.equal(await page.locator('svg.track-map polyline.ride').count(), rides.length);
  assert.equal(await page.locator('svg[data-label-chart] rect.band').count(), rides.length);
  assert.equal(await page.getByRole('region', { name: 'Rides' }).locator('tbody tr').count(), rides.length);
  await check(page);
  await screenshot(page, 'watch-session');

  // A drag across the first ride's band on the speed chart fills From and To; added.
  // The mouse works in the viewport: the chart is scrolled into it first.
  await page.locator('svg[data-label-chart]').scrollIntoViewIfNeeded();
  const band = await page.locator('svg[data-label-chart] rect.band').first().boundingBox();
  const y = band.y + band.height / 2;
  await page.mouse.move(band.x - 3, y);
  await page.mouse.down();
  await page.mouse.move(band.x + band.width / 2, y, { steps: 4 });
  await page.mouse.move(band.x + band.width + 3, y, { steps: 4 });
  await page.mouse.up();
  const from = await page.getByLabel('From', { exact: true }).inputValue();
  const to = await page.getByLabel('To', { exact: true }).inputValue();
  assert.match(from, /^\d\d:\d\d:\d\d$/);
  assert.ok(to > from, `${from}–${to}`);
  await page.getByRole('button', { name: 'Add true ride' }).click();
  await page.getByText('True ride added.').waitFor();
  r = await api(`/api/wearable/labels?sessionId=${id}`, { session });
  assert.equal(r.json.items.length, 1, r.text);
  const label = r.json.items[0];
  const start = Date.parse(label.start);
  const end = Date.parse(label.end);
  const first = rides[0];
  // The drag was a few pixels wider than the band: within seconds of the found ride.
  assert.ok(Math.abs(start - Date.parse(first.start)) < 10000, `${label.start} vs ${first.start}`);
  assert.ok(Math.abs(end - Date.parse(first.end)) < 10000, `${label.end} vs ${first.end}`);

  // The second found ride confirmed with its button; the accuracy shows against both.
  await page.getByRole('button', { name: 'It was a ride 2' }).click();
  // The same note as the first add: wait for the second true ride itself.
  await page.locator('#labels ul.plain li').nth(1).waitFor();
  r = await api(`/api/wearable/labels?sessionId=${id}`, { session });
  assert.equal(r.json.items.length, 2, r.text);
  await page.locator('#accuracy').waitFor();
  const acc = await api(`/api/wearable/accuracy?sessionId=${id}`, { session });
  assert.equal(acc.json.overall.labels, 2, acc.text);
  const recall = `${Math.round(acc.json.overall.recall * 100)} %`;
  assert.ok((await page.locator('#accuracy').textContent()).includes(recall), recall);
  await check(page);

  // The download is the session as GPX with its rides.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download GPX' }).click(),
  ]);
  const text = await (await download.createReadStream()).toArray().then((b) => Buffer.concat(b).toString());
  assert.ok(text.startsWith('<?xml') && text.includes('Rides'), text.slice(0, 200));

  // The screen beside the camera.
  await page.goto(`/w/${c.orgId}/watch/live`);
  await page.getByRole('heading', { name: 'Who is surfing' }).waitFor();
  await check(page);
  await ctx.close();
});

test('watch: a session watched without a ride is marked so from its page, scored as such, and the mark removed', async () => {
  const c = await coach('Coach Quiet');
  const a = await api('/api/athletes', { method: 'POST', session: c, body: { firstName: 'Mia', lastName: 'Silva' } });
  assert.equal(a.status, 201, a.text);
  const { ctx, page, session } = await onDesk(c);
  await page.goto(`/w/${c.orgId}/watch`);
  await page.getByLabel('Athlete', { exact: true }).first().selectOption({ label: 'Mia Silva' });
  await page.getByLabel('GPX or FIT file').setInputFiles({ name: 'quiet.gpx', mimeType: 'application/gpx+xml', buffer: gpx() });
  await page.getByRole('button', { name: 'Import' }).click();
  await page.getByText('Imported.').waitFor();
  const id = new URL(page.url()).pathname.split('/')[4];
  await page.locator('.badge', { hasText: 'Ready' }).waitFor({ timeout: 60000 });

  await page.getByRole('button', { name: 'Mark as no rides' }).click();
  await page.getByText('Marked as holding no ride.').waitFor();
  // Every found ride now counts as a false one; the ride form gives way to the mark.
  const acc = await api(`/api/wearable/accuracy?sessionId=${id}`, { session });
  assert.equal(acc.json.overall.labels, 0, acc.text);
  assert.ok(acc.json.overall.detected >= 3, acc.text);
  assert.equal(acc.json.overall.falsePositives, acc.json.overall.detected, acc.text);
  await page.locator('#accuracy').waitFor();
  assert.equal(await page.getByRole('button', { name: 'Add true ride' }).count(), 0);
  assert.equal(await page.getByRole('button', { name: /^It was a ride/ }).count(), 0);
  assert.equal(await page.locator('svg[data-label-chart]').count(), 0);
  assert.equal((await page.locator('#accuracy').textContent()).includes('Recall–'), true);
  await check(page);
  await screenshot(page, 'watch-no-rides');

  await page.getByRole('button', { name: 'Remove the mark' }).click();
  await page.getByText('No-rides mark removed.').waitFor();
  const r = await api(`/api/wearable/labels?sessionId=${id}`, { session });
  assert.equal(r.json.items.length, 0, r.text);
  await page.getByRole('button', { name: 'Add true ride' }).waitFor();
  await ctx.close();
});
