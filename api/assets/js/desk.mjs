// The desk's own module: small enhancements on pages that work without it.

// Times are rendered on the server in the viewer's zone: tell it which one this browser is in
// (once; the page is reloaded when the zone it was rendered in differs).
const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
const cookie = document.cookie.split("; ").find((c) => c.startsWith("sc_tz="));
if (tz && document.body.dataset.tz !== tz && cookie !== `sc_tz=${encodeURIComponent(tz)}`) {
  document.cookie = `sc_tz=${encodeURIComponent(tz)}; path=/; max-age=31536000; samesite=lax`;
  location.reload();
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
