// The account pages in the browser: the verification link, forgot password from the sign-in
// page to a new password, sign-in and sign-out by keyboard.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { phone, closeBrowser, checkPage, coach, mailTo, linkIn, PASSWORD } from '../lib.mjs';

after(closeBrowser);

test('the verification link lands on the confirmed page', async () => {
  const c = await coach();
  const mail = await mailTo(c.email, 'Confirm your email address');
  const { ctx, page } = await phone();
  const resp = await page.goto(linkIn(mail, 'type=verify_email'));
  assert.equal(new URL(page.url()).pathname, '/auth/verified');
  await page.getByRole('heading', { name: 'Email address confirmed' }).waitFor();
  await checkPage(page, resp);
  await ctx.close();
});

test('forgot password: mail, reset form with errors shown, sign in with the new password', async () => {
  const c = await coach();
  const { ctx, page } = await phone();
  let resp = await page.goto('/signin');
  await checkPage(page, resp);
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await page.getByLabel('Email').fill(c.email);
  await page.getByRole('button', { name: 'Mail me a link' }).click();
  await page.getByText('we mailed it a link').waitFor();
  const mail = await mailTo(c.email, 'Reset your password');
  resp = await page.goto(linkIn(mail, 'type=reset_password'));
  assert.equal(new URL(page.url()).pathname, '/auth/reset-password');
  await checkPage(page, resp);
  await page.getByLabel('New password').fill('new password one');
  await page.getByLabel('The same password again').fill('new password two');
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.locator('#e-confirm').getByText('the two passwords differ').waitFor();
  await page.getByLabel('New password').fill('new password one');
  await page.getByLabel('The same password again').fill('new password one');
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.getByRole('heading', { name: 'Password changed' }).waitFor();
  // The link works once.
  await page.goto(linkIn(mail, 'type=reset_password'));
  await page.getByText('already used').waitFor();
  // Sign in with the keyboard: Tab from the email to the password, Enter sends.
  await page.goto('/signin');
  await page.getByLabel('Email').fill(c.email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await page.getByText('The email or password is wrong').waitFor();
  await page.getByLabel('Password').fill('new password one');
  await page.getByLabel('Password').press('Enter');
  // A member lands on the desk of their workspace.
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.goto('/');
  await page.getByRole('link', { name: 'Sign in' }).waitFor();
  await ctx.close();
});
