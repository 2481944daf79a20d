// Lighthouse (mobile: its default emulation and throttling) on the web application's main
// pages: signed in as a coach, the dashboard, the athlete list (200 athletes), the week
// calendar and a clip's page (a 20 s 1080p HEVC phone clip uploaded over tus, its web
// rendition, poster and scrub strip made by the api's worker before the run); signed in as the
// athlete, the published review of that clip (three keypoints); part 3's areas (watch
// sessions, competition, billing, integrations, the athlete's payments, the admin console as
// a platform admin made by `api grant-admin`). Run by scripts/bench-lighthouse
// against a release api it started (BASE_URL). Prints a Markdown table; exits 1 when a score is
// under 95.
import lighthouse from 'lighthouse';
import * as chromeLauncher from 'chrome-launcher';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BASE = process.env.BASE_URL;
const PASSWORD = 'correct horse battery staple';
const CATEGORIES = ['performance', 'accessibility', 'best-practices'];

async function call(path, { method = 'GET', body, cookie, csrf } = {}) {
  const headers = { 'content-type': 'application/json' };
  if (cookie) { headers.cookie = cookie; headers['x-csrf-token'] = csrf; }
  const r = await fetch(BASE + path, { method, headers, body: body && JSON.stringify(body) });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return r;
}

const signup = await (await call('/api/auth/signup', { method: 'POST', body: { email: 'lh@bench.test', password: PASSWORD, name: 'Coach Bench' } })).json();
/** A fresh web session (the coach's unless another `email` is given): Lighthouse resets the
 * origin's storage, cookies included, between runs. */
async function session(email = 'lh@bench.test') {
  const signin = await call('/api/auth/signin', { method: 'POST', body: { email, password: PASSWORD } });
  const cookie = signin.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  return { cookie, csrf: (await signin.json()).csrfToken };
}
const auth = await session();
const levels = ['beginner', 'intermediate', 'advanced', 'pro'];
for (let i = 0; i < 200; i += 1) {
  await call('/api/athletes', { method: 'POST', ...auth, body: { firstName: `Rider${i}`, lastName: `Seed${(i * 7919) % 200}`, level: levels[i % 4], birthDate: i % 5 ? '2000-01-01' : '2014-01-01' } });
}
const day = 24 * 3600 * 1000;
for (let d = 0; d < 7; d += 1) {
  const start = new Date(Date.now() + d * day);
  await call('/api/training-sessions', { method: 'POST', ...auth, body: { title: `Session ${d}`, startsAt: start.toISOString(), endsAt: new Date(start.getTime() + 5400000).toISOString(), capacity: 8 } });
}
const ws = signup.workspace.workspaceId;

/** A filmed session with one phone clip (HEVC, 1080p), uploaded over tus; its id once the
 * worker has made its web media. */
async function filmedClip() {
  const dir = mkdtempSync(join(tmpdir(), 'lh-'));
  const file = join(dir, 'phone.mp4');
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=1920x1080:rate=30:duration=20',
    '-c:v', 'libx265', '-preset', 'ultrafast', '-x265-params', 'log-level=error', '-tag:v', 'hvc1', file]);
  const bytes = readFileSync(file);
  rmSync(dir, { recursive: true });
  const first = await (await call('/api/training-sessions', { method: 'POST', ...auth, body: { title: 'Filmed', startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 3600000).toISOString() } })).json();
  const footage = await (await call('/api/training-sessions/provision-video', { method: 'POST', ...auth, body: { trainingSessionId: first.id } })).json();
  const b64 = (v) => Buffer.from(v).toString('base64');
  const tus = { cookie: auth.cookie, 'x-csrf-token': auth.csrf, 'tus-resumable': '1.0.0' };
  const made = await fetch(`${BASE}/api/clips/native-ingest`, {
    method: 'POST', headers: { ...tus, 'upload-length': String(bytes.length), 'upload-metadata': `filename ${b64('phone.mp4')},sessionId ${b64(footage.id)}` },
  });
  if (made.status !== 201) throw new Error(`tus create: ${made.status} ${await made.text()}`);
  const put = await fetch(new URL(made.headers.get('location'), BASE), {
    method: 'PATCH', headers: { ...tus, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, body: bytes,
  });
  if (put.status !== 204) throw new Error(`tus patch: ${put.status} ${await put.text()}`);
  for (let i = 0; i < 600; i += 1) {
    const clips = await (await call(`/api/clips?sessionId=${footage.id}`, auth)).json();
    const id = clips.items[0]?.id;
    if (id) {
      const m = await (await call(`/api/clips/${id}/media`, auth)).json();
      if (m.status === 'ready') return { clipId: id, sessionId: footage.id };
      if (m.status === 'failed') throw new Error(`the render failed: ${JSON.stringify(m)}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the clip was not rendered within 5 minutes');
}
/** The athlete with an account (an invite claimed), and the review of the clip built and
 * published for them; the review's id. */
async function publishedReview({ clipId, sessionId }) {
  const athlete = await (await call('/api/athletes', { method: 'POST', ...auth, body: { firstName: 'Mia', lastName: 'Silva' } })).json();
  const invite = await (await call('/api/invite', { method: 'POST', ...auth, body: { athleteId: athlete.id } })).json();
  await call('/api/invite/claim', { method: 'POST', body: { token: invite.token, email: ATHLETE, password: PASSWORD, birthDate: '2000-01-01' } });
  const review = await (await call('/api/reviews', { method: 'POST', ...auth, body: { sessionId, athleteId: athlete.id, title: 'Morning glass review' } })).json();
  const notes = ['Good line choice off the bottom', 'Compress earlier into the cutback', 'Finish facing the beach'];
  for (const [i, body] of notes.entries()) {
    await call(`/api/reviews/${review.id}/keypoints`, { method: 'POST', ...auth, body: { clipId, atMs: 2000 + i * 6000, body } });
  }
  await call(`/api/reviews/${review.id}/build`, { method: 'POST', ...auth });
  for (let i = 0; i < 120; i += 1) {
    const r = await (await call(`/api/reviews/${review.id}`, auth)).json();
    if (r.status === 'ready') {
      await call(`/api/reviews/${review.id}/publish`, { method: 'POST', ...auth });
      return review.id;
    }
    await new Promise((res) => setTimeout(res, 500));
  }
  throw new Error('the review was not built within a minute');
}
const ATHLETE = 'mia@bench.test';
const clip = await filmedClip();
const review = await publishedReview(clip);
// A platform admin for the console: signed up, then made one by the api's own command.
const ADMIN = 'admin@bench.test';
await call('/api/auth/signup', { method: 'POST', body: { email: ADMIN, password: PASSWORD, name: 'Admin Bench' } });
execFileSync(process.env.API_BIN, ['grant-admin', ADMIN], { stdio: 'inherit' });
// [name, path, who is signed in]
const pages = [
  ['dashboard', `/w/${ws}/`], ['athlete list', `/w/${ws}/athletes`], ['calendar (week)', `/w/${ws}/training`],
  ['clip', `/w/${ws}/clips/${clip.clipId}`], ["athlete's review", `/me/reviews/${review}`, ATHLETE],
  // Part 3 of the web application (issue 39): the main page of each area.
  ['watch sessions', `/w/${ws}/watch`], ['competition', `/w/${ws}/competition`],
  ['billing', `/w/${ws}/settings/billing`], ['integrations', `/w/${ws}/settings/integrations`],
  ["a student's payments", '/me/payments', ATHLETE], ['admin console', '/admin', ADMIN],
];

let failed = false;
console.log(`| page | ${CATEGORIES.join(' | ')} |`);
console.log(`|---|${CATEGORIES.map(() => '---').join('|')}|`);
for (const [name, path, who] of pages) {
  // A fresh browser (profile) per page: a cookie the previous page set (the time zone) would
  // otherwise replace the session cookie given in extraHeaders.
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROMIUM || '/usr/bin/chromium',
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-dev-shm-usage'],
  });
  try {
    const r = await lighthouse(BASE + path, {
      port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES,
      extraHeaders: { Cookie: (await session(who)).cookie },
    });
    // Scores of another page (the sign-in page after a redirect) would measure the wrong thing.
    const landed = new URL(r.lhr.finalDisplayedUrl).pathname;
    if (landed !== path) throw new Error(`${name}: Lighthouse landed on ${landed}, not ${path}`);
    const scores = CATEGORIES.map((c) => Math.round(r.lhr.categories[c].score * 100));
    if (scores.some((s) => s < 95)) failed = true;
    console.log(`| ${name} | ${scores.join(' | ')} |`);
    for (const c of CATEGORIES) {
      const below = r.lhr.categories[c].auditRefs
        .map((a) => r.lhr.audits[a.id])
        .filter((a) => a.score !== null && a.score < 0.9 && a.scoreDisplayMode !== 'informative');
      for (const a of below) console.error(`  ${name} / ${c}: ${a.id} (${a.score}) ${a.displayValue ?? ''}`);
    }
  } finally {
    await chrome.kill();
  }
}
process.exit(failed ? 1 : 0);
