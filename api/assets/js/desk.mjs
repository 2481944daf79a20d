// The desk's own module: small enhancements on pages that work without it.

// Times are rendered on the server in the viewer's zone: tell it which one this browser is in.
// The sign-in page already sets it, so the desk is rendered in the right zone from the start;
// a desk page rendered in another zone (a first visit from a mailed link, a trip) is reloaded
// once.
const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
const want = `sc_tz=${encodeURIComponent(tz)}`;
if (tz && !document.cookie.split("; ").includes(want)) {
  document.cookie = `${want}; path=/; max-age=31536000; samesite=lax`;
  const rendered = document.body.dataset.tz;
  if (rendered && rendered !== tz) location.reload();
}

// A form with data-confirm asks before it is sent (its page also works without this: the
// destructive actions have their own confirmation page).
document.addEventListener("submit", (e) => {
  const msg = e.target instanceof HTMLFormElement && e.target.dataset.confirm;
  if (msg && !window.confirm(msg)) e.preventDefault();
}, true);

// Search as you type: a form marked data-live submits itself shortly after the last key.
let timer;
document.addEventListener("input", (e) => {
  const form = e.target.closest && e.target.closest("form[data-live]");
  if (!form) return;
  clearTimeout(timer);
  timer = setTimeout(() => form.requestSubmit(), 300);
});

// The notification settings page's "turn on notifications in this browser" (push.mjs), the clip
// page's timeline (clip.mjs), the footage session's uploads (upload.mjs) and the watch pages'
// drop and drag (watch.mjs), each loaded only
// where the page has it; htmx swaps pages in without reloading this module, so it looks
// again after each swap.
function enhance() {
  const push = document.querySelector("[data-push]");
  if (push) import("/assets/js/push.mjs").then((m) => m.init(push));
  const player = document.querySelector("video[data-player]");
  if (player) import("/assets/js/clip.mjs").then((m) => m.init(player));
  if (document.querySelector("[data-review]")) import("/assets/js/reviews.mjs").then((m) => m.init(document));
  const upload = document.querySelector("[data-upload]");
  if (upload) import("/assets/js/upload.mjs").then((m) => m.init(upload));
  if (document.querySelector("[data-dropzone], [data-label-chart]")) import("/assets/js/watch.mjs").then((m) => m.init(document));
}
enhance();
document.addEventListener("htmx:load", enhance);
