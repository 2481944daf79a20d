// Uploading clips from the browser (issue 38): the footage session page's "Upload clips" sends
// several files at once over tus (the vendored tus-js-client), each with its progress; the
// clips then appear among the session's tiles and follow their probe live. An upload cut off
// by a dropped connection is retried from the server's offset, and one cut off by a reload
// carries on from there when the same file is chosen again: one clip. Checked through the
// JSON API; every page checked (console, phone width, labels, headers) and run through axe-core.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  closeBrowser, screenshot, api, coach, check, onDesk,
} from '../lib.mjs';

const dir = mkdtempSync(join(tmpdir(), 'upload-'));
after(async () => {
  await closeBrowser();
  rmSync(dir, { recursive: true, force: true });
});

/** An H.264 video of `seconds` made by the system ffmpeg, as a file the browser picks;
 * `noisy` ones do not compress (a bigger file from a short video). */
function video(name, seconds, { noisy = false } = {}) {
  const out = join(dir, name);
  const noise = noisy ? ['-vf', 'noise=alls=30:allf=t', '-b:v', '2M'] : [];
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10',
    '-t', String(seconds), ...noise, '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', out]);
  return out;
}

/** A footage session to upload into (a training session filmed). */
async function filming(session) {
  const t = await api('/api/training-sessions', {
    method: 'POST', session,
    body: { title: 'Dawn patrol', startsAt: '2026-05-01T06:00:00Z', endsAt: '2026-05-01T08:00:00Z' },
  });
  assert.equal(t.status, 201, t.text);
  const f = await api('/api/training-sessions/provision-video', { method: 'POST', session, body: { trainingSessionId: t.json.id } });
  assert.ok(f.status < 300, f.text);
  return f.json.id;
}

async function until(what, f, ms = 60000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    assert.ok(Date.now() < end, `${what} did not happen`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The session's clips once every one is probed (or failed), through the JSON API. */
async function probed(session, footageId, n) {
  return until(`${n} clips probed`, async () => {
    const r = await api(`/api/clips?sessionId=${footageId}`, { session });
    const items = r.json.items;
    return items.length === n && items.every((k) => k.status !== 'uploaded') ? items : null;
  });
}

/** `check`, where requests the test itself cut (a dropped connection, a reload mid-PATCH)
 * are not page problems. */
async function checked(page) {
  const keep = page.problems.filter((p) => !p.includes('/api/clips/native-ingest/'));
  page.problems.splice(0, page.problems.length, ...keep);
  await check(page);
}

async function sessionPage(page, c, footageId) {
  await page.goto(`/w/${c.orgId}/footage/${footageId}`);
  await page.getByRole('heading', { name: 'Upload clips' }).waitFor();
  // The picker shows once upload.mjs has loaded the tus client.
  await page.getByLabel('Video files').waitFor();
}

test('upload: two clips at once from the session page, each with its progress, then their tiles follow the probe', async () => {
  const c = await coach('Coach Kai');
  const { page, session } = await onDesk(c);
  const footageId = await filming(session);
  const files = [video('dawn.mp4', 4), video('dusk.mp4', 6)];
  await sessionPage(page, c, footageId);
  await page.getByText('No clips yet.').waitFor();
  await checked(page);

  await page.getByLabel('Video files').setInputFiles(files);
  for (const [name, file] of [['dawn.mp4', files[0]], ['dusk.mp4', files[1]]]) {
    const bar = page.getByRole('progressbar', { name });
    await bar.waitFor();
    const item = page.getByRole('listitem').filter({ has: bar });
    await item.getByText(/^Uploaded: the clip/).waitFor({ timeout: 30000 });
    assert.equal(Number(await bar.getAttribute('max')), statSync(file).size);
    assert.equal(await bar.evaluate((b) => b.value), statSync(file).size);
  }

  // Both clips, through the API: made from the uploads and probed.
  const clips = await probed(session, footageId, 2);
  assert.deepEqual(clips.map((k) => k.fileName).sort(), ['dawn.mp4', 'dusk.mp4']);
  for (const k of clips) assert.equal(k.status, 'probed', JSON.stringify(k));
  // The page follows them without a reload: the tiles appear and reach "Ready to analyze".
  for (const k of clips) {
    await page.locator(`#clip-${k.id}`).getByText('Ready to analyze').waitFor({ timeout: 30000 });
  }
  await page.getByText('Uploaded: the clip is in the list below').first().waitFor();
  // The session's numbers follow the tiles.
  await until('the numbers count both clips', async () => (await page.locator('#stats dd').first().textContent()) === '2');
  await checked(page);
  await screenshot(page, 'upload');
});

test('upload: a dropped connection is retried and a reload mid-way carries on from the server\'s offset, one clip', async () => {
  const c = await coach('Coach Kai');
  const { page, session } = await onDesk(c);
  const footageId = await filming(session);
  const file = video('long.mp4', 6, { noisy: true });
  const size = statSync(file).size;
  const chunk = 256 * 1024;
  assert.ok(size > 5 * chunk, `${size} bytes`);
  await sessionPage(page, c, footageId);

  // Small chunks, so that the test sees several PATCHes. The second one's connection drops
  // (tus-js-client asks the server's offset and goes on); after the third answered the page
  // is reloaded while the fourth is on its way.
  const patches = [];
  let third;
  const thirdDone = new Promise((r) => { third = r; });
  await page.route('**/api/clips/native-ingest/*', async (route) => {
    const req = route.request();
    if (req.method() !== 'PATCH') return route.continue();
    patches.push(Number(req.headers()['upload-offset']));
    if (patches.length === 2) return route.abort('connectionreset');
    if (patches.length === 4) {
      third();
      return undefined; // never answered: the reload cuts it off
    }
    return route.continue();
  });
  await page.locator('[data-upload]').evaluate((el, n) => { el.dataset.chunkSize = String(n); }, chunk);
  await page.getByLabel('Video files').setInputFiles(file);
  await thirdDone;
  // The dropped PATCH was sent again from the offset the server had.
  assert.deepEqual(patches, [0, chunk, chunk, 2 * chunk]);
  // Reloaded before the route goes: with the route gone first, the held fourth PATCH (and the
  // rest of the file) could go through before the reload under load.
  await page.reload();
  await page.unrouteAll({ behavior: 'ignoreErrors' });
  await page.getByLabel('Video files').waitFor();
  await page.getByText('Not finished in this browser: long.mp4.').waitFor();
  await checked(page);

  // The same file again: no new upload, a HEAD for the offset, PATCHes from there.
  const seen = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/clips/native-ingest')) seen.push({ method: r.method(), offset: r.headers()['upload-offset'] });
  });
  const head = page.waitForResponse((r) => r.request().method() === 'HEAD' && r.url().includes('/api/clips/native-ingest/'));
  await page.locator('[data-upload]').evaluate((el, n) => { el.dataset.chunkSize = String(n); }, chunk);
  await page.getByLabel('Video files').setInputFiles(file);
  const offset = Number((await head).headers()['upload-offset']);
  assert.ok(offset >= 2 * chunk && offset < size, `resumed at ${offset} of ${size}`);
  const bar = page.getByRole('progressbar', { name: 'long.mp4' });
  await page.getByRole('listitem').filter({ has: bar }).getByText(/^Uploaded: the clip/).waitFor({ timeout: 30000 });
  assert.ok(!seen.some((s) => s.method === 'POST'), `no second upload: ${JSON.stringify(seen)}`);
  const sent = seen.filter((s) => s.method === 'PATCH').map((s) => Number(s.offset));
  assert.ok(sent.length > 0 && sent[0] >= offset, `the first PATCH after the reload: ${JSON.stringify(seen)}`);

  // One clip, of the whole file, probed; its tile on the page.
  const [k] = await probed(session, footageId, 1);
  assert.equal(k.sizeBytes, size);
  assert.equal(k.status, 'probed', JSON.stringify(k));
  await page.locator(`#clip-${k.id}`).getByText('Ready to analyze').waitFor({ timeout: 30000 });
  // Finished, so nothing is left to carry on.
  await page.reload();
  await page.getByLabel('Video files').waitFor();
  assert.equal(await page.getByText('Not finished in this browser').isVisible(), false);
  assert.deepEqual(await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('tus::'))), []);
  await checked(page);
});

test('upload: a cancelled upload is terminated and makes no clip; a paused one carries on when resumed', async () => {
  const c = await coach('Coach Kai');
  const { page, session } = await onDesk(c);
  const footageId = await filming(session);
  const drop = video('drop.mp4', 6, { noisy: true });
  const keep = video('keep.mp4', 6, { noisy: true });
  const chunk = 256 * 1024;
  await sessionPage(page, c, footageId);
  const row = (name) => page.getByRole('listitem').filter({ has: page.getByRole('progressbar', { name }) });

  // Cancel: the second PATCH hangs; Cancel ends it and terminates the upload (tus DELETE).
  let patches = 0;
  await page.route('**/api/clips/native-ingest/*', async (route) => {
    if (route.request().method() === 'PATCH' && (patches += 1) > 1) return undefined;
    return route.continue();
  });
  await page.locator('[data-upload]').evaluate((el, n) => { el.dataset.chunkSize = String(n); }, chunk);
  await page.getByLabel('Video files').setInputFiles(drop);
  await until('the second PATCH', async () => patches >= 2);
  const deleted = page.waitForResponse((r) => r.request().method() === 'DELETE');
  await row('drop.mp4').getByRole('button', { name: 'Cancel' }).click();
  assert.equal((await deleted).status(), 204);
  await row('drop.mp4').getByText('Cancelled').waitFor();
  await page.unrouteAll({ behavior: 'ignoreErrors' });

  // Pause after the first PATCH, then resume: it goes on to the end.
  const first = page.waitForResponse((r) => r.request().method() === 'PATCH');
  await page.getByLabel('Video files').setInputFiles(keep);
  await first;
  await row('keep.mp4').getByRole('button', { name: 'Pause' }).click();
  await row('keep.mp4').getByText('Paused').waitFor();
  await row('keep.mp4').getByRole('button', { name: 'Resume' }).click();
  await row('keep.mp4').getByText(/^Uploaded: the clip/).waitFor({ timeout: 30000 });

  // One clip, the kept one; the cancelled upload left nothing to carry on.
  const clips = await probed(session, footageId, 1);
  assert.deepEqual(clips.map((k) => [k.fileName, k.sizeBytes]), [['keep.mp4', statSync(keep).size]]);
  assert.deepEqual(await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('tus::'))), []);
  await checked(page);
});
