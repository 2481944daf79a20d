// The review pages' module (the coach's builder and the athlete's view), imported by desk.mjs
// where a page has [data-review]. Everything here enhances a page that works without it:
// - a keypoint's time link seeks the player instead of opening the video at that time;
// - "Player time" fills a keypoint's time field from the paused player (typed without script);
// - Record / Stop records a voice note (the coach) or a reply (the athlete) with MediaRecorder
//   and sends it through its form (multipart, the CSRF token first) in place of the file the
//   form's file field sends without script.

// The types POST …/voice-notes takes (checked there by their first bytes), best first.
const TYPES = ["audio/webm;codecs=opus", "audio/webm", "audio/ogg;codecs=opus", "audio/mp4"];

function player() {
  return document.getElementById("player");
}

function seekLinks(root) {
  for (const a of root.querySelectorAll("a[data-seek-ms]")) {
    if (a.dataset.enhanced) continue;
    a.dataset.enhanced = "1";
    a.addEventListener("click", (e) => {
      // The athlete's page has a player per clip; the builder has one.
      const v = a.dataset.player ? document.getElementById(a.dataset.player) : player();
      if (!v) return;
      e.preventDefault();
      v.currentTime = Number(a.dataset.seekMs) / 1000;
      v.focus();
    });
  }
}

function nowButtons(root) {
  for (const b of root.querySelectorAll("button[data-now]")) {
    if (b.dataset.enhanced || !player()) continue;
    b.dataset.enhanced = "1";
    b.hidden = false;
    b.addEventListener("click", () => {
      const field = b.closest("form").querySelector("[data-at]");
      field.value = String(Math.round(player().currentTime * 10) / 10);
      field.focus();
    });
  }
}

function extension(type) {
  if (type.startsWith("audio/ogg")) return "ogg";
  if (type.startsWith("audio/mp4")) return "m4a";
  return "webm";
}

// What the page answered when the note was refused: its error beside the field, else its notice.
async function refusal(r) {
  const doc = new DOMParser().parseFromString(await r.text(), "text/html");
  const el = doc.getElementById("e-note") || doc.querySelector(".notice");
  return el ? el.textContent.trim() : String(r.status);
}

function recorder(root) {
  const form = root.querySelector("form[data-recorder]");
  if (!form || form.dataset.enhanced) return;
  const type = window.MediaRecorder && navigator.mediaDevices
    ? TYPES.find((t) => MediaRecorder.isTypeSupported(t))
    : undefined;
  if (!type) return;
  form.dataset.enhanced = "1";
  const controls = form.querySelector("[data-recorder-controls]");
  const rec = form.querySelector("[data-record]");
  const stop = form.querySelector("[data-stop]");
  const status = form.querySelector("[data-recorder-status]");
  controls.hidden = false;
  let media;
  let chunks = [];
  rec.addEventListener("click", async () => {
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      media = new MediaRecorder(stream, { mimeType: type });
    } catch (e) {
      status.textContent = form.dataset.msgFailed.replace("{error}", e.message || e.name);
      return;
    }
    chunks = [];
    media.addEventListener("dataavailable", (e) => e.data.size && chunks.push(e.data));
    media.addEventListener("stop", async () => {
      media.stream.getTracks().forEach((t) => t.stop());
      status.textContent = form.dataset.msgSending;
      const blob = new Blob(chunks, { type: type.split(";")[0] });
      // The CSRF token must come first: the server checks it before reading a file byte.
      // The form's own fields in their order (the CSRF token is its first), the recording in
      // place of the file field.
      const body = new FormData(form);
      body.delete("note");
      body.append("note", blob, `note.${extension(type)}`);
      const r = await fetch(form.action, { method: "POST", body, credentials: "same-origin" });
      if (r.ok && r.redirected) {
        // Read to the end first: a response left unread is cancelled by the navigation.
        await r.text();
        location.assign(r.url);
        return;
      }
      status.textContent = await refusal(r);
      rec.disabled = false;
    });
    media.start();
    rec.disabled = true;
    stop.disabled = false;
    status.textContent = form.dataset.msgRecording;
  });
  stop.addEventListener("click", () => {
    stop.disabled = true;
    if (media && media.state === "recording") media.stop();
  });
}

export function init(root) {
  seekLinks(root);
  nowButtons(root);
  recorder(root);
}
