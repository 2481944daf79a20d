// The clip page's timeline: a click on a ride or a maneuver seeks the player there instead of
// reloading the page at `?t=` (what the link does without script), and the window playing is
// highlighted in the list and on the timeline, with a playhead. The list is found afresh on
// each update: htmx replaces it while the analysis runs.

const players = new WeakSet();

// In the capture phase, and stopped there: htmx's boosted-link handler on the link itself
// would otherwise load the `?t=` page.
document.addEventListener("click", (e) => {
  const a = e.target.closest && e.target.closest("a[data-seek]");
  const video = document.querySelector("video[data-player]");
  if (!a || !video) return;
  e.preventDefault();
  e.stopPropagation();
  video.currentTime = Number(a.dataset.start);
  video.play().catch(() => {});
  show(video);
}, true);

function show(video) {
  const t = video.currentTime;
  for (const a of document.querySelectorAll("a[data-seek]")) {
    const on = t >= Number(a.dataset.start) && t < Number(a.dataset.end);
    if (on) a.setAttribute("aria-current", "true");
    else a.removeAttribute("aria-current");
    const bar = document.querySelector(`svg.timeline [data-i="${a.dataset.i}"]`);
    if (bar) bar.classList.toggle("current", on);
  }
  const svg = document.querySelector("svg.timeline");
  const head = svg && svg.querySelector(".playhead");
  const total = svg && Number(svg.dataset.total) / 1000;
  if (head && total > 0) {
    const x = String(Math.min(1000, (t / total) * 1000));
    head.setAttribute("x1", x);
    head.setAttribute("x2", x);
    head.setAttribute("visibility", "visible");
  }
}

export function init(video) {
  if (players.has(video)) return;
  players.add(video);
  video.addEventListener("timeupdate", () => show(video));
  video.addEventListener("seeked", () => show(video));
}
