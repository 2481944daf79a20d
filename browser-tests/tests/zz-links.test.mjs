// Last: every link in every mail this run sent opens in the browser without a 404 (the other
// files' flows sent every kind of mail).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { phone, closeBrowser, outbox, links, coach } from '../lib.mjs';

after(closeBrowser);

test('no link in sent mail leads to a 404', async () => {
  const all = new Set();
  for (const m of await outbox()) for (const l of links(m.text)) all.add(l);
  const kinds = ['/auth/callback?type=verify_email', '/auth/callback?type=reset_password', '/join/', '/invite/', '/unsubscribe?token='];
  for (const k of kinds) assert.ok([...all].some((l) => l.includes(k)), `no ${k} link was mailed`);
  const c = await coach();
  for (const signedIn of [false, true]) {
    const { ctx, page } = await phone();
    if (signedIn) await ctx.addCookies([{ name: 'sc_session', value: c.cookie, url: process.env.BASE_URL }]);
    for (const l of all) {
      const r = await page.goto(l);
      assert.notEqual(r.status(), 404, `${l} (signed in: ${signedIn}) answered 404 at ${page.url()}`);
    }
    await ctx.close();
  }
});
