// "Upload clips" on the footage session page: each chosen video goes to
// /api/clips/native-ingest over tus 1.0 with tus-js-client (vendored, loaded only here), a few
// at once, each with its <progress>, pause and cancel. desk.mjs imports this module when the
// page has a [data-upload] section; without script the section says that uploading needs it.
//
// Resuming: tus-js-client keeps each upload's URL in localStorage under our fingerprint (the
// footage session and the file's name, type, size and date), so the same file chosen again
// after a reload carries on from the server's Upload-Offset (the server keeps the bytes of a
// PATCH cut off mid-body); a dropped connection is retried from there (retryDelays). Every
// request carries the session's CSRF token and the page's workspace, as every JSON call from a
// web session does. Once the upload's clip exists the clip tiles are fetched again; from there
// they poll on their own while the clip is probed.

const TUS_SRC = "/assets/vendor/tus.min.js";
// Uploads running at once; the others wait their turn (a browser opens 6 connections to a
// host, and the tiles' polling needs one).
const AT_ONCE = 3;
// Retried this long after a failure that is not the request's fault: a minute in all.
const RETRY_DELAYS = [0, 1000, 3000, 5000, 10000, 20000, 30000];

// Uploads by fingerprint. htmx swaps pages without reloading this module, so an upload goes
// on while the coach looks at another page, and its row is shown again when they come back.
const jobs = new Map();
let counter = 0;
let loading;

function loadTus() {
  if (window.tus) return Promise.resolve(window.tus);
  loading ??= new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = TUS_SRC;
    s.onload = () => resolve(window.tus);
    s.onerror = () => {
      loading = undefined;
      reject(new Error("the upload library did not load"));
    };
    document.head.append(s);
  });
  return loading;
}

/** The catalogue's text `key` (from the section's data-t-<key>), `{why}`-style parts filled. */
function say(section, key, vars = {}) {
  let s = section.dataset[`t${key[0].toUpperCase()}${key.slice(1)}`] || key;
  for (const [k, v] of Object.entries(vars)) s = s.replace(`{${k}}`, v);
  return s;
}

function fingerprint(session, file) {
  return ["sc-clip", session, file.name, file.type, file.size, file.lastModified].join("-");
}

/** The API's message of a failed request, else the client's. */
function reason(err) {
  const res = err && err.originalResponse;
  if (res) {
    try {
      const j = JSON.parse(res.getBody());
      if (j && j.error && j.error.message) return j.error.message;
    } catch { /* not JSON */ }
  }
  return (err && err.message) || String(err);
}

/** tus-js-client's rule (not a 4xx, but a 409 or 423 is), whether or not the browser thinks it
 * is online: on a beach the connection comes back within the retries more often than not. */
function retryable(err) {
  const status = err.originalResponse ? err.originalResponse.getStatus() : 0;
  return status < 400 || status >= 500 || status === 409 || status === 423;
}

function setStatus(job, key, vars) {
  job.state = key;
  job.status.textContent = say(job.section, key, vars);
}

function button(job, key, act) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "secondary";
  b.dataset.act = act;
  b.textContent = say(job.section, key);
  return b;
}

function row(job) {
  const id = `upload-${(counter += 1)}`;
  const li = document.createElement("li");
  li.className = "upload-item";
  const name = document.createElement("span");
  name.className = "upload-name";
  name.id = id;
  name.textContent = job.file.name;
  const bar = document.createElement("progress");
  bar.max = job.file.size || 1;
  bar.value = 0;
  bar.setAttribute("aria-labelledby", id);
  const status = document.createElement("span");
  status.className = "upload-status";
  status.setAttribute("role", "status");
  const actions = document.createElement("span");
  actions.className = "upload-actions";
  job.pause = button(job, "pause", "pause");
  job.cancel = button(job, "cancel", "cancel");
  actions.append(job.pause, " ", job.cancel);
  li.append(name, bar, status, actions);
  Object.assign(job, { li, bar, status, actions });
}

function running() {
  return [...jobs.values()].filter((j) => j.state === "uploading" || j.state === "resuming"
    || j.state === "retrying").length;
}

/** Starts waiting uploads while fewer than AT_ONCE run. */
function pump() {
  for (const job of jobs.values()) {
    if (running() >= AT_ONCE) return;
    if (job.state === "waiting") run(job);
  }
}

async function run(job) {
  setStatus(job, "uploading");
  if (!job.looked) {
    job.looked = true;
    const previous = await job.upload.findPreviousUploads();
    if (previous.length) {
      job.upload.resumeFromPreviousUpload(previous[0]);
      setStatus(job, "resuming");
    }
  }
  job.upload.start();
}

function finish(job) {
  job.actions.remove();
  jobs.delete(job.fp);
  pump();
}

/** The upload's clip, once the join job made it (GET on the upload URL is the JSON read). */
async function follow(job) {
  for (let i = 0; i < 600; i += 1) {
    try {
      const r = await fetch(job.upload.url, { headers: { "x-workspace-id": job.ws }, credentials: "same-origin" });
      const u = r.ok ? await r.json() : null;
      if (u && u.status === "failed") return setStatus(job, "failed", { why: u.failure || "" });
      if (u && u.clipId) {
        setStatus(job, "done");
        return refreshClips(job.session);
      }
    } catch { /* try again */ }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** The clip tiles again, when this session's page is the one shown. */
function refreshClips(session) {
  const section = document.querySelector("[data-upload]");
  const clips = document.getElementById("clips");
  if (!section || section.dataset.session !== session || !clips || !window.htmx) return;
  window.htmx.ajax("GET", section.dataset.clips, { source: clips, target: clips, select: "#clips", swap: "outerHTML" });
}

function add(section, tus, file) {
  const session = section.dataset.session;
  const fp = fingerprint(session, file);
  if (jobs.has(fp)) return; // already on its way
  const job = { file, fp, session, ws: section.dataset.ws, section, state: "waiting" };
  row(job);
  job.upload = new tus.Upload(file, {
    endpoint: section.dataset.endpoint,
    metadata: { sessionId: session, filename: file.name },
    headers: { "x-csrf-token": section.dataset.csrf, "x-workspace-id": job.ws },
    fingerprint: () => Promise.resolve(fp),
    removeFingerprintOnSuccess: true,
    chunkSize: Number(section.dataset.chunkSize) || Infinity,
    retryDelays: RETRY_DELAYS,
    onShouldRetry: (err) => {
      if (job.state === "paused" || !retryable(err)) return false;
      setStatus(job, "retrying");
      return true;
    },
    onProgress: (sent, total) => {
      job.bar.max = total;
      job.bar.value = sent;
      if (job.state !== "uploading" && job.state !== "paused") setStatus(job, "uploading");
    },
    onSuccess: () => {
      job.bar.value = job.bar.max;
      setStatus(job, "joining");
      finish(job);
      follow(job);
    },
    onError: (err) => {
      setStatus(job, "failed", { why: reason(err) });
      finish(job);
    },
  });
  job.pause.addEventListener("click", () => {
    if (job.state === "paused") {
      job.pause.textContent = say(job.section, "pause");
      setStatus(job, "waiting");
      pump();
    } else {
      setStatus(job, "paused");
      job.pause.textContent = say(job.section, "resume");
      job.upload.abort();
      pump();
    }
  });
  job.cancel.addEventListener("click", () => {
    setStatus(job, "cancelled");
    job.upload.abort(true).catch(() => {});
    finish(job);
  });
  setStatus(job, "waiting");
  jobs.set(fp, job);
  section.querySelector("[data-upload-list]").append(job.li);
}

/** "Not finished in this browser: …" for this session's uploads kept in localStorage. */
async function unfinished(section, tus) {
  const note = section.querySelector("[data-upload-note]");
  const kept = tus.canStoreURLs ? await tus.defaultOptions.urlStorage.findAllUploads() : [];
  const names = [...new Set(kept
    .filter((u) => u.metadata && u.metadata.sessionId === section.dataset.session)
    .filter((u) => ![...jobs.values()].some((j) => j.file.name === u.metadata.filename))
    .map((u) => u.metadata.filename))];
  note.hidden = names.length === 0;
  note.textContent = names.length ? say(section, "unfinished", { names: names.join(", ") }) : "";
}

export async function init(section) {
  if (section.dataset.uploadReady) return;
  section.dataset.uploadReady = "1";
  const note = section.querySelector("[data-upload-note]");
  let tus;
  try {
    tus = await loadTus();
  } catch {
    tus = null;
  }
  if (!tus || !tus.isSupported) {
    note.hidden = false;
    note.textContent = say(section, "unsupported");
    return;
  }
  // The rows of uploads still going since this page was last shown.
  const list = section.querySelector("[data-upload-list]");
  for (const job of jobs.values()) {
    if (job.session === section.dataset.session) {
      job.section = section;
      list.append(job.li);
    }
  }
  const input = section.querySelector("input[type=file]");
  input.addEventListener("change", () => {
    for (const file of [...input.files]) add(section, tus, file);
    input.value = "";
    pump();
    unfinished(section, tus);
  });
  section.querySelector("[data-upload-form]").hidden = false;
  unfinished(section, tus);
}
