// The watch pages' module: a file dropped on the import form is put in its file field, and on
// a session's page a drag across the speed chart fills the true-ride form's From and To (the
// form still takes typed times without this).

function dropzone(form) {
  const input = form.querySelector("input[type=file]");
  const over = (on) => (e) => {
    e.preventDefault();
    form.classList.toggle("dragging", on);
  };
  form.addEventListener("dragover", over(true));
  form.addEventListener("dragleave", over(false));
  form.addEventListener("drop", (e) => {
    over(false)(e);
    if (e.dataTransfer && e.dataTransfer.files.length) {
      input.files = e.dataTransfer.files;
      input.dispatchEvent(new Event("change", { bubbles: true }));
    }
  });
}

const pad = (n) => String(n).padStart(2, "0");
// The desk shows times in this browser's zone (desk.mjs tells the server which one).
const clock = (ms) => {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
};

function dragLabel(svg, form) {
  const t0 = Number(svg.dataset.t0);
  const t1 = Number(svg.dataset.t1);
  // The plot's left and right edges in the view box (plot.rs: LEFT, RIGHT).
  const LEFT = 40;
  const RIGHT = 630;
  const timeAt = (e) => {
    const box = svg.getBoundingClientRect();
    const x = ((e.clientX - box.left) / box.width) * 640;
    const f = Math.min(1, Math.max(0, (x - LEFT) / (RIGHT - LEFT)));
    return t0 + f * (t1 - t0);
  };
  const mark = document.createElementNS("http://www.w3.org/2000/svg", "rect");
  mark.setAttribute("class", "picked");
  mark.setAttribute("y", "12");
  mark.setAttribute("height", "128");
  const xOf = (t) => LEFT + ((t - t0) / (t1 - t0)) * (RIGHT - LEFT);
  let from = null;
  svg.addEventListener("pointerdown", (e) => {
    from = timeAt(e);
    svg.setPointerCapture(e.pointerId);
    svg.append(mark);
  });
  svg.addEventListener("pointermove", (e) => {
    if (from === null) return;
    const to = timeAt(e);
    mark.setAttribute("x", String(xOf(Math.min(from, to))));
    mark.setAttribute("width", String(Math.abs(xOf(to) - xOf(from))));
  });
  svg.addEventListener("pointerup", (e) => {
    if (from === null) return;
    const to = timeAt(e);
    const [a, b] = from < to ? [from, to] : [to, from];
    from = null;
    if (b - a < 1000) return;
    form.querySelector("[name=from]").value = clock(a);
    form.querySelector("[name=to]").value = clock(b);
    form.querySelector("[name=from]").focus();
  });
}

export function init(root) {
  root.querySelectorAll("form[data-dropzone]").forEach(dropzone);
  const svg = root.querySelector("svg[data-label-chart]");
  const form = root.querySelector("form[data-label-form]");
  if (svg && form) dragLabel(svg, form);
}
