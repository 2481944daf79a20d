// The desk's footage pages (issue 38) in a real browser: a filmed session's clips as tiles, a
// clip analyzed from its page (the state followed live), a maneuver on the timeline seeking
// the player, a label corrected, the clip stored through its job page; a batch manifest
// prepared, its page following a clip whose file arrives. Each from the sign-in page, checked
// through the JSON API; every page checked (console, phone width, labels, headers) and run
// through axe-core (WCAG 2.2 AA).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BASE, closeBrowser, screenshot, api, coach, check, onDesk,
} from '../lib.mjs';

after(closeBrowser);

/** A 60-second H.264 clip every browser plays, made by the system ffmpeg. */
function clipBytes() {
  const dir = mkdtempSync(join(tmpdir(), 'clip-'));
  const out = join(dir, 'wave.mp4');
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=5',
    '-t', '60', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', out]);
  const bytes = readFileSync(out);
  rmSync(dir, { recursive: true });
  return bytes;
}

/** A phone's resumable upload of `bytes` (tus, one PATCH), with `meta` (sessionId or clipId). */
async function tusUpload(session, meta, bytes) {
  const headers = { cookie: `sc_session=${session.cookie}`, 'x-csrf-token': session.csrf, 'tus-resumable': '1.0.0' };
  const encoded = Object.entries({ filename: 'wave.mp4', ...meta })
    .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`).join(',');
  const made = await fetch(`${BASE}/api/clips/native-ingest`, {
    method: 'POST', headers: { ...headers, 'upload-length': String(bytes.length), 'upload-metadata': encoded },
  });
  assert.equal(made.status, 201, await made.text());
  const at = new URL(made.headers.get('location'), BASE);
  const put = await fetch(at, {
    method: 'PATCH',
    headers: { ...headers, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
    body: bytes,
  });
  assert.equal(put.status, 204, await put.text());
}

/** `check`, where media requests the browser ends itself (with preload="metadata" it stops
 * reading once it has the header; leaving the page ends the rest) are not page problems. */
async function checked(page) {
  const keep = page.problems.filter((p) => !p.includes('/api/video/stream'));
  page.problems.splice(0, page.problems.length, ...keep);
  await check(page);
}

async function until(what, f) {
  const end = Date.now() + 30000;
  for (;;) {
    const v = await f();
    if (v) return v;
    assert.ok(Date.now() < end, `${what} did not happen`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('footage: a clip analyzed from its page, a maneuver found on the timeline, its label corrected, the session stored', async () => {
  const c = await coach('Coach Kai');
  const { page, session } = await onDesk(c);
  const t = await api('/api/training-sessions', {
    method: 'POST', session,
    body: { title: 'Dawn patrol', startsAt: '2026-05-01T06:00:00Z', endsAt: '2026-05-01T08:00:00Z' },
  });
  assert.equal(t.status, 201, t.text);
  const f = await api('/api/training-sessions/provision-video', { method: 'POST', session, body: { trainingSessionId: t.json.id } });
  assert.ok(f.status < 300, f.text);
  const footageId = f.json.id;
  await tusUpload(session, { sessionId: footageId }, clipBytes());
  const clip = await until('the upload joined', async () => {
    const r = await api(`/api/clips?sessionId=${footageId}`, { session });
    const k = r.json.items[0];
    return k && k.status === 'probed' ? k : null;
  });

  // The navigation leads to the footage sessions, then to the session and its tile.
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Footage' }).click();
  await page.getByRole('heading', { name: 'Footage', level: 1 }).waitFor();
  await page.getByText('1 clips, 0 stored').waitFor();
  await checked(page);
  await screenshot(page, 'footage-sessions');
  await page.getByRole('link', { name: 'Dawn patrol', exact: true }).click();
  await page.getByRole('heading', { name: 'Dawn patrol', level: 1 }).waitFor();
  await page.locator(`#clip-${clip.id}`).getByText('Ready to analyze').waitFor();
  await checked(page);
  await screenshot(page, 'footage-session');

  // The clip page: analyze, and the state follows the backend without a reload.
  await page.getByRole('link', { name: 'wave.mp4' }).click();
  await page.getByRole('heading', { name: 'wave.mp4', level: 1 }).waitFor();
  await page.getByText('No rides yet').waitFor();
  await checked(page);
  await page.getByRole('button', { name: 'Analyze' }).click();
  await page.getByText('Sent for analysis.').waitFor();
  await page.getByRole('heading', { name: 'Maneuvers' }).waitFor({ timeout: 30000 });
  // A finished analysis is copied into our stores by itself.
  await page.locator('#analysis').getByText('Stored').waitFor({ timeout: 30000 });
  await checked(page);
  const k = (await api(`/api/clips/${clip.id}`, { session })).json;
  assert.equal(k.status, 'stored');

  // A maneuver on the timeline seeks the player in place and is highlighted.
  const first = k.stats.maneuvers[0];
  const mark = page.locator('ol.marks a[data-seek]').filter({ hasText: first.type.replace(/_/g, ' ') }).first();
  const url = page.url();
  const ready = await page.evaluate(async () => {
    const v = document.querySelector('video[data-player]');
    for (let i = 0; i < 100 && v.readyState < 1 && !v.error; i += 1) await new Promise((r) => setTimeout(r, 100));
    return { state: v.readyState, error: v.error && v.error.message, h264: v.canPlayType('video/mp4; codecs="avc1.42E01E"'), src: v.currentSrc };
  });
  assert.ok(ready.state >= 1, `the player has the clip's metadata: ${JSON.stringify(ready)}`);
  await mark.click();
  assert.equal(page.url(), url, 'no reload: the player seeks');
  const at = await page.evaluate(() => document.querySelector('video[data-player]').currentTime);
  assert.ok(Math.abs(at - Math.max(0, first.at_ms - 1000) / 1000) < 0.2, `the player is at ${at}`);
  assert.equal(await mark.getAttribute('aria-current'), 'true');
  await screenshot(page, 'clip');

  // Correct the first prediction's label: it is recorded through the maneuvers route.
  await page.getByLabel(/^Verdict on/).first().selectOption('corrected');
  await page.getByLabel('Corrected type (for a correction)').first().fill('air_reverse');
  await page.getByRole('button', { name: /^Save label/ }).first().click();
  await page.getByText('Label saved.').waitFor();
  await page.getByText('Corrected: air_reverse').waitFor();
  await checked(page);
  const m = await api(`/api/clips/${clip.id}/maneuvers`, { session });
  assert.equal(m.json.labels.length, 1, m.text);
  assert.equal(m.json.labels[0].correctedType, 'air_reverse');
  assert.equal(m.json.labels[0].predictionIndex, 0);

  // The web video, made by the render job from the upload: the player plays the H.264
  // rendition with its poster, and the scrub strip's moments seek it.
  await page.locator('#web').getByText('Ready', { exact: true }).waitFor({ timeout: 30000 });
  const media = (await api(`/api/clips/${clip.id}/media`, { session })).json;
  assert.equal(media.status, 'ready', JSON.stringify(media));
  assert.equal(media.ready.web.width, 320);
  await page.reload();
  await page.getByRole('heading', { name: 'Jump to a moment' }).waitFor();
  const player = await page.evaluate(async () => {
    const v = document.querySelector('video[data-player]');
    for (let i = 0; i < 100 && v.readyState < 1 && !v.error; i += 1) await new Promise((r) => setTimeout(r, 100));
    return { state: v.readyState, poster: v.poster, width: v.videoWidth, src: v.currentSrc };
  });
  assert.ok(player.state >= 1 && player.width === 320, JSON.stringify(player));
  assert.ok(player.poster.includes('/api/video/stream?token='), JSON.stringify(player));
  const poster = await fetch(player.poster);
  assert.equal(poster.headers.get('content-type'), 'image/jpeg');
  const moment = page.locator('ol.strip a').nth(2);
  const start = Number(await moment.getAttribute('data-start'));
  assert.ok(start > 0);
  await moment.click();
  const there = await page.evaluate(() => document.querySelector('video[data-player]').currentTime);
  assert.ok(Math.abs(there - start) < 0.2, `the player is at ${there}, not ${start}`);
  await checked(page);
  await screenshot(page, 'clip-media');

  // Store the session: the job's progress page, done, then back to the session.
  await page.getByRole('link', { name: 'Back to the footage session' }).click();
  await page.getByRole('button', { name: 'Store processed clips' }).click();
  await page.getByRole('heading', { name: 'Job progress', level: 1 }).waitFor();
  await page.locator('#job').getByText('Done', { exact: true }).waitFor({ timeout: 30000 });
  await checked(page);
  const jobId = page.url().split('/jobs/')[1].split('?')[0];
  const job = await api(`/api/jobs/${jobId}`, { session });
  assert.equal(job.json.status, 'succeeded', job.text);
  await page.getByRole('link', { name: 'Continue' }).click();
  await page.getByRole('heading', { name: 'Dawn patrol', level: 1 }).waitFor();
  await page.locator(`#clip-${clip.id}`).getByText('Stored').waitFor();
  await checked(page);
});

test('footage: a manifest prepared in the browser, its batch page following a clip as its file arrives', async () => {
  const c = await coach('Coach Kai');
  const { page, session } = await onDesk(c);
  const a = await api('/api/athletes', { method: 'POST', session, body: { firstName: 'Moana', lastName: 'Kealoha', email: 'moana@example.com' } });
  assert.equal(a.status, 201, a.text);
  await page.goto(`/w/${c.orgId}/footage`);
  await page.getByRole('link', { name: 'Batch upload from a manifest' }).click();
  await page.getByRole('heading', { name: 'Batch upload from a manifest', level: 1 }).waitFor();
  await checked(page);
  // A manifest with a wrong row: every error by line, nothing prepared.
  const bad = 'date,spot,file\n2026-05-01,Pipeline,a.mp4\nyesterday,Pipeline,b.mp4\n';
  await page.getByLabel('Manifest (CSV or .xlsx)').setInputFiles({ name: 'day.csv', mimeType: 'text/csv', buffer: Buffer.from(bad) });
  await page.getByRole('button', { name: 'Prepare the clips' }).click();
  await page.getByRole('cell', { name: '3', exact: true }).waitFor();
  await checked(page);
  assert.equal((await api('/api/sessions', { session })).json.items.length, 0);
  const good = 'date,spot,start_time,file,athletes\n2026-05-01,Pipeline,07:30,GOPR0001.MP4,moana@example.com\n2026-05-01,Pipeline,07:30,GOPR0002.MP4,\n';
  await page.getByLabel('Manifest (CSV or .xlsx)').setInputFiles({ name: 'day.csv', mimeType: 'text/csv', buffer: Buffer.from(good) });
  await page.getByRole('button', { name: 'Prepare the clips' }).click();
  await page.getByText('Manifest prepared').waitFor();
  await page.getByText('2 clips are waiting').waitFor();
  await checked(page);
  await screenshot(page, 'footage-batch');
  const batchId = page.url().split('/batches/')[1].split('?')[0];
  const b = await api(`/api/training-sessions/batch-upload?batchId=${batchId}`, { session });
  assert.equal(b.status, 200, b.text);
  const row = b.json.rows.find((r) => r.file === 'GOPR0001.MP4');

  // The file of one row arrives (a phone's upload naming its clip): the open page follows.
  await tusUpload(session, { clipId: row.clipId }, clipBytes());
  await page.getByText('1 clips are waiting').waitFor({ timeout: 30000 });
  await page.getByRole('row', { name: /GOPR0001\.MP4/ }).getByText(/Uploaded|Ready to analyze/).waitFor();
  await checked(page);

  // The tab closed and reopened later from the footage session: the batch's page again.
  await page.goto(`/w/${c.orgId}/footage/${row.sessionId}`);
  await page.getByRole('link', { name: 'The batch these clips came from' }).click();
  await page.getByRole('row', { name: /GOPR0002\.MP4/ }).getByText('Waiting for its file').waitFor();
  await checked(page);
});
