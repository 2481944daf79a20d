// The review pages in Chromium (issue 38): a coach builds a review of an analysed clip
// (suggested keypoints, a keypoint at the player's time, a voice note recorded with
// MediaRecorder from the fake microphone, the build with its transcription, publishing); the
// athlete reads it, replies and is seen to have opened it; coaching feedback and its charts.
// Each result is checked through the JSON API.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BASE, PASSWORD, api, born, check, closeBrowser, coach, email, onDesk, phone, screenshot } from '../lib.mjs';

after(closeBrowser);

/** A short WebM (VP8) test picture that Chromium plays, made by ffmpeg. */
function webm() {
  const out = join(mkdtempSync(join(tmpdir(), 'rev-')), 'wave.webm');
  execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=6:size=320x240:rate=10',
    '-c:v', 'libvpx', '-b:v', '200k', out]);
  return readFileSync(out);
}

async function until(what, f, ms = 60000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A footage session with one clip uploaded (tus) and analysed by the fake backend. */
async function analysedClip(c, athleteId) {
  const start = new Date(Date.now() - 2 * 24 * 3600 * 1000);
  const t = await api('/api/training-sessions', {
    method: 'POST', session: c,
    body: { title: 'Morning glass', startsAt: start.toISOString(), endsAt: new Date(start.getTime() + 3600 * 1000).toISOString() },
  });
  assert.equal(t.status, 201, t.text);
  const f = await api('/api/training-sessions/provision-video', { method: 'POST', session: c, body: { trainingSessionId: t.json.id } });
  assert.ok(f.status < 300, f.text);
  const bytes = webm();
  const b64 = (s) => Buffer.from(s).toString('base64');
  const headers = { cookie: `sc_session=${c.cookie}`, 'x-csrf-token': c.csrf, 'tus-resumable': '1.0.0' };
  const created = await fetch(`${BASE}/api/clips/native-ingest`, {
    method: 'POST',
    headers: { ...headers, 'upload-length': String(bytes.length), 'upload-metadata': `sessionId ${b64(f.json.id)},filename ${b64('wave.webm')}${athleteId ? `,athleteId ${b64(athleteId)}` : ''}` },
  });
  assert.equal(created.status, 201, await created.text());
  const path = new URL(created.headers.get('location'), BASE).pathname;
  const patched = await fetch(BASE + path, {
    method: 'PATCH',
    headers: { ...headers, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
    body: bytes,
  });
  assert.equal(patched.status, 204, await patched.text());
  const clipId = await until('the joined clip', async () => {
    const s = await api(`/api/sessions/${f.json.id}`, { session: c });
    return s.json?.clips?.[0]?.id;
  });
  const a = await api('/api/clips/analyze', { method: 'POST', session: c, body: { clipId } });
  assert.equal(a.status, 202, a.text);
  await until('the analysed clip', async () => {
    const k = await api(`/api/clips/${clipId}`, { session: c });
    assert.notEqual(k.json.status, 'failed', k.text);
    return k.json.status === 'stored';
  });
  return { sessionId: f.json.id, clipId };
}

test('review builder: suggestions, a keypoint at the player time, a recorded voice note, build with transcription, publish', async () => {
  const c = await coach('Coach Rev');
  const { clipId } = await analysedClip(c);
  const a = await api('/api/athletes', { method: 'POST', session: c, body: { firstName: 'Mia', lastName: 'Silva' } });
  assert.equal(a.status, 201, a.text);
  const inv = await api('/api/invite', { method: 'POST', session: c, body: { athleteId: a.json.id } });
  const mia = email('mia');
  const claim = await api('/api/invite/claim', {
    method: 'POST', body: { token: inv.json.token, email: mia, password: PASSWORD, birthDate: born(20) },
  });
  assert.equal(claim.status, 201, claim.text);
  const { ctx, page, session } = await onDesk(c);
  page.on('dialog', (d) => d.accept());

  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Reviews' }).click();
  await page.getByRole('heading', { name: 'Reviews' }).waitFor();
  await check(page);
  await page.getByText('Start a review').click();
  await page.getByLabel('Athlete').selectOption({ label: 'Mia Silva' });
  await page.getByLabel('Title').fill('Morning glass review');
  await page.getByRole('button', { name: 'Start the review' }).click();
  await page.getByText('Review started').waitFor();
  const id = new URL(page.url()).pathname.split('/')[4];
  await check(page);

  // Suggested keypoints from the clip's ride windows and maneuvers.
  await page.getByRole('button', { name: 'Suggest keypoints from the ride windows' }).click();
  await page.getByText('Suggested keypoints added').waitFor();
  let r = await api(`/api/reviews/${id}`, { session });
  assert.equal(r.json.keypoints.length, 5, r.text);
  assert.ok(r.json.keypoints.every((k) => k.origin === 'suggested' && k.clipId === clipId));

  // A keypoint at the player's current time.
  await page.waitForFunction(() => document.getElementById('player').readyState >= 1);
  await page.evaluate(() => new Promise((done) => {
    const v = document.getElementById('player');
    v.addEventListener('seeked', done, { once: true });
    v.currentTime = 2.5;
  }));
  const add = page.locator('form[action$="/keypoints"]');
  await add.getByRole('button', { name: 'Player time' }).click();
  assert.equal(await page.locator('#f-at').inputValue(), '2.5');
  await add.getByLabel('Note').fill('Look down the line before the bottom turn');
  await add.getByRole('button', { name: 'Add the keypoint' }).click();
  await page.getByText('Keypoint added.').waitFor();
  r = await api(`/api/reviews/${id}`, { session });
  const own = r.json.keypoints.find((k) => k.origin === 'coach');
  assert.equal(own.atMs, 2500, r.text);

  // A keypoint's time seeks the player.
  const seek = page.locator(`#k-${own.id} a.seek`);
  await page.evaluate(() => { document.getElementById('player').currentTime = 0; });
  await seek.click();
  await page.waitForFunction(() => Math.abs(document.getElementById('player').currentTime - 2.5) < 0.05);
  assert.equal(new URL(page.url()).pathname, `/w/${c.orgId}/reviews/${id}`, 'the link seeks instead of leaving');

  // Edit the coach's keypoint.
  const item = page.locator(`#k-${own.id}`);
  await item.getByText('Edit').click();
  await item.getByLabel('Note').fill('Eyes down the line, then the bottom turn');
  await item.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Keypoint saved.').waitFor();
  r = await api(`/api/reviews/${id}`, { session });
  assert.equal(r.json.keypoints.find((k) => k.id === own.id).body, 'Eyes down the line, then the bottom turn');

  // A voice note recorded in the browser (the fake microphone), about the keypoint.
  await page.getByLabel('About').selectOption({ value: own.id });
  await page.getByRole('button', { name: 'Record', exact: true }).click();
  await page.getByText('Recording…').waitFor();
  await page.waitForTimeout(1500);
  await page.getByRole('button', { name: 'Stop and send' }).click();
  await page.getByText('Voice note added.').waitFor();
  r = await api(`/api/reviews/${id}`, { session });
  assert.equal(r.json.voiceNotes.length, 1, r.text);
  assert.equal(r.json.voiceNotes[0].keypointId, own.id);
  assert.match(r.json.voiceNotes[0].contentType, /^audio\/(webm|ogg|mp4)$/);
  assert.ok(r.json.voiceNotes[0].sizeBytes > 1000, r.text);
  await check(page);
  await screenshot(page, 'review-builder');

  // Build: the note's transcription shows live, then the review is ready; publish.
  await page.getByRole('button', { name: 'Build the review' }).click();
  await page.getByText('Building the review').waitFor();
  await page.locator('#build [data-transcript-status]', { hasText: 'Transcribed' }).waitFor();
  await page.locator('#build [data-status]', { hasText: 'Ready to publish' }).waitFor();
  r = await api(`/api/reviews/${id}`, { session });
  assert.equal(r.json.status, 'ready');
  assert.equal(r.json.voiceNotes[0].transcriptStatus, 'done');
  assert.match(r.json.voiceNotes[0].transcript, /^transcript of note-/);
  await page.getByText(r.json.voiceNotes[0].transcript).waitFor();
  await check(page);
  await page.getByRole('button', { name: 'Publish to the athlete' }).click();
  await page.getByText('Review published').waitFor();
  r = await api(`/api/reviews/${id}`, { session });
  assert.equal(r.json.status, 'published');
  await check(page);

  // The athlete: home leads to the review; the video at each keypoint; opening is recorded.
  const athlete = await phone();
  const ap = athlete.page;
  await ap.goto('/signin');
  await ap.getByLabel('Email').fill(mia);
  await ap.getByLabel('Password').fill(PASSWORD);
  await ap.getByRole('button', { name: 'Sign in' }).click();
  await ap.getByRole('link', { name: 'Reviews' }).first().click();
  await ap.getByRole('heading', { name: 'My reviews' }).waitFor();
  await check(ap);
  await ap.getByRole('link', { name: 'Morning glass review' }).click();
  await ap.getByRole('heading', { name: 'Morning glass review' }).waitFor();
  await ap.getByText(r.json.voiceNotes[0].transcript).waitFor();
  await check(ap);
  await ap.waitForFunction(() => document.getElementById('player-1').readyState >= 1);
  await ap.locator(`#k-${own.id} a.seek`).click();
  await ap.waitForFunction(() => Math.abs(document.getElementById('player-1').currentTime - 2.5) < 0.05);
  r = await api(`/api/reviews/${id}`, { session });
  assert.ok(r.json.receipts.some((x) => x.deviceId === 'web' && x.openedAt), r.text);
  await screenshot(ap, 'review-athlete');

  // A written reply, then a recorded one; the coach reads both.
  await ap.getByLabel('Your reply').fill('Thanks! Trying it tomorrow at dawn.');
  await ap.getByRole('button', { name: 'Send the reply' }).click();
  await ap.getByText('Reply sent.').waitFor();
  await ap.getByRole('button', { name: 'Record a reply' }).click();
  await ap.getByText('Recording…').waitFor();
  await ap.waitForTimeout(1200);
  await ap.getByRole('button', { name: 'Stop and send' }).click();
  await ap.getByText('Reply sent.').waitFor();
  await ap.getByRole('region', { name: 'Replies' }).getByLabel('Recorded reply').waitFor();
  await check(ap);
  const replies = await api(`/api/reviews/${id}/replies`, { session });
  assert.deepEqual(replies.json.items.map((x) => x.kind), ['text', 'voice'], replies.text);
  assert.equal(replies.json.items[0].body, 'Thanks! Trying it tomorrow at dawn.');
  await page.reload();
  await page.getByText('Thanks! Trying it tomorrow at dawn.').waitFor();
  await page.getByText('Opened by the athlete').waitFor();
  await check(page);
  await athlete.ctx.close();
  await ctx.close();
});

test('coaching: an athlete\'s progress as SVG charts with the numbers as a table, and its export', async () => {
  const c = await coach('Coach Trend');
  const a = await api('/api/athletes', { method: 'POST', session: c, body: { firstName: 'Kai', lastName: 'Lenny' } });
  assert.equal(a.status, 201, a.text);
  await analysedClip(c, a.json.id);
  const { ctx, page, session } = await onDesk(c);
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Coaching' }).click();
  await page.getByRole('heading', { name: 'Coaching', level: 1 }).waitFor();
  await check(page);
  await page.getByLabel('Athlete').selectOption({ label: 'Kai Lenny' });
  await page.getByRole('button', { name: 'Analyse progress' }).click();
  await page.getByText('Progress analysed').waitFor();
  await check(page);
  assert.equal(await page.locator('svg[role=img] > title').count(), 5);
  await page.getByRole('img', { name: 'Waves' }).waitFor();
  await page.getByRole('table', { name: 'The numbers per session' }).waitFor();
  await screenshot(page, 'coaching-progress');
  const rows = await api(`/api/sessions/coaching?athleteId=${a.json.id}&kind=progress`, { session });
  assert.equal(rows.json.items.length, 1, rows.text);
  assert.equal(rows.json.items[0].output.sessions.length, 1);
  const href = await page.getByRole('link', { name: 'Export as HTML' }).getAttribute('href');
  const html = await api(href, { session });
  assert.equal(html.status, 200, html.text);
  assert.match(html.text, /Kai Lenny/);
  await ctx.close();
});
