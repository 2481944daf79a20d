// "Turn on notifications in this browser" on the notification settings page (/me/notifications).
// desk.mjs imports this module when the page has a [data-push] section; without script the
// section says that it needs JavaScript and its buttons stay hidden.
//
// On: register the service worker /sw.js, ask the browser's permission, subscribe with our
// VAPID key (GET /api/push/vapid-public-key) and save the subscription
// (POST /api/push/web-subscriptions, with the session's CSRF token in X-CSRF-Token as every
// JSON call from a web session). Off: unsubscribe and DELETE it. The status line always says
// where this browser stands: on, off, blocked by the browser, not supported, or why it failed.

function b64urlToBytes(s) {
  const pad = "=".repeat((4 - (s.length % 4)) % 4);
  const bin = atob((s + pad).replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

async function call(section, method, path, body) {
  const r = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: { "content-type": "application/json", "x-csrf-token": section.dataset.csrf },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!r.ok) {
    let msg = `${r.status}`;
    try {
      const j = await r.json();
      if (j && j.error && j.error.message) msg = j.error.message;
    } catch { /* not JSON */ }
    throw new Error(msg);
  }
  return r.status === 204 ? null : r.json();
}

export async function init(section) {
  if (section.dataset.pushReady) return;
  section.dataset.pushReady = "1";
  const status = section.querySelector("[data-push-status]");
  const on = section.querySelector("[data-push-on]");
  const off = section.querySelector("[data-push-off]");
  const t = section.dataset;
  const show = (text, state) => {
    status.textContent = text;
    section.dataset.pushState = state;
    on.hidden = !(state === "off" || state === "failed");
    off.hidden = state !== "on";
  };

  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    show(t.tUnsupported, "unsupported");
    return;
  }
  let reg;
  try {
    reg = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  } catch (e) {
    show(t.tFailed.replace("{error}", e.message), "failed");
    return;
  }
  const refresh = async () => {
    if (Notification.permission === "denied") return show(t.tBlocked, "blocked");
    const sub = await reg.pushManager.getSubscription();
    show(sub ? t.tOn : t.tOff, sub ? "on" : "off");
  };
  await refresh();

  on.addEventListener("click", async () => {
    show(t.tWorking, "working");
    try {
      const permission = await Notification.requestPermission();
      if (permission !== "granted") return refresh();
      const { publicKey } = await call(section, "GET", "/api/push/vapid-public-key");
      const ready = await navigator.serviceWorker.ready;
      const sub = await ready.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: b64urlToBytes(publicKey),
      });
      try {
        await call(section, "POST", "/api/push/web-subscriptions", {
          ...sub.toJSON(),
          deviceName: navigator.userAgent.slice(0, 100),
        });
      } catch (e) {
        await sub.unsubscribe();
        throw e;
      }
      show(t.tOn, "on");
    } catch (e) {
      show(t.tFailed.replace("{error}", e.message || String(e)), "failed");
    }
  });

  off.addEventListener("click", async () => {
    show(t.tWorking, "working");
    try {
      const sub = await reg.pushManager.getSubscription();
      if (sub) {
        const endpoint = sub.endpoint;
        await sub.unsubscribe();
        // Already gone on the server (another account took it): off all the same.
        await call(section, "DELETE", "/api/push/web-subscriptions", { endpoint }).catch(() => {});
      }
      show(t.tOff, "off");
    } catch (e) {
      show(t.tFailed.replace("{error}", e.message || String(e)), "failed");
    }
  });
}
