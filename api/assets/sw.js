// The service worker (served at /sw.js, so its scope is the whole site). It only shows what
// our Web Push sender encrypts: JSON { notificationId, kind, title, body, data }
// (worker/src/handlers/notify.rs `web_payload`), and opens the page it names when clicked.
// It keeps no cache and intercepts no request: the pages are always the server's.

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (e) => e.waitUntil(self.clients.claim()));

/** The page a notification opens: a local path from its data, else home. */
function target(n) {
  const data = (n && n.data) || {};
  if (typeof data.url === "string" && data.url.startsWith("/") && !data.url.startsWith("//")) {
    return data.url;
  }
  if (typeof data.conversationId === "string") return `/me/messages/${encodeURIComponent(data.conversationId)}`;
  return "/";
}

self.addEventListener("push", (e) => {
  let n = {};
  try {
    n = e.data ? e.data.json() : {};
  } catch {
    n = { body: e.data ? e.data.text() : "" };
  }
  const title = typeof n.title === "string" && n.title ? n.title : "Surf Coach";
  e.waitUntil(self.registration.showNotification(title, {
    body: typeof n.body === "string" ? n.body : "",
    icon: "/assets/icon.svg",
    tag: n.notificationId ? String(n.notificationId) : undefined,
    data: { url: target(n) },
  }));
});

self.addEventListener("notificationclick", (e) => {
  e.notification.close();
  const url = new URL((e.notification.data && e.notification.data.url) || "/", self.location.origin).href;
  e.waitUntil((async () => {
    const open = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    for (const c of open) {
      if (c.url === url && "focus" in c) return c.focus();
    }
    const same = open.find((c) => "navigate" in c && new URL(c.url).origin === self.location.origin);
    if (same) {
      await same.focus();
      return same.navigate(url);
    }
    return self.clients.openWindow(url);
  })());
});
