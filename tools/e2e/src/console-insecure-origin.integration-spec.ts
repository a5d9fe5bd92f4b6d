import type { Browser, Page } from 'playwright-core';
import { TestStack } from '@svc/system-testing';
import { launchChromium } from './console/browser';

/** A name that is not localhost, resolved to the gateway's loopback address by Chromium itself: http:// to it is not a secure context. */
const REMOTE_LOOKING_HOST = 'svc-console.test';

/* The page's globals for page.evaluate: the Node type check has no DOM library. */
declare const window: { isSecureContext: boolean; crypto: { subtle?: object } };

/**
 * The console opened the way issue 18 found it failing: over plain HTTP from another machine's point of view. It
 * cannot have WebCrypto there, so the sign-in page explains why and how to fix it, and its form is disabled.
 */
describe('operator console from a non-secure origin, in Chromium', () => {
  const stack = new TestStack();
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium([`--host-resolver-rules=MAP ${REMOTE_LOOKING_HOST} 127.0.0.1`]);
    await stack.start();
    page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await stack.stop();
  }, 30_000);

  const consoleUrl = (host: string) => `${stack.baseUrl.replace('127.0.0.1', host)}/console/`;

  it('explains that it needs HTTPS or localhost, and disables the sign-in form', async () => {
    await page.goto(consoleUrl(REMOTE_LOOKING_HOST));
    expect(await page.evaluate(() => ({ secure: window.isSecureContext, subtle: window.crypto.subtle !== undefined }))).toEqual({ secure: false, subtle: false });

    const notice = page.locator('#insecure-context');
    await notice.waitFor({ state: 'visible' });
    const text = await notice.innerText();
    expect(text).toContain(`http://${REMOTE_LOOKING_HOST}:${new URL(stack.baseUrl).port} is not one`);
    expect(text).toContain('signs every request in your browser with WebCrypto, which browsers only give to secure contexts');
    expect(text).toContain('Open it over HTTPS (configure TLS_CERT_FILE and TLS_KEY_FILE on the api-gateway)');
    expect(text).toContain('http://localhost or http://127.0.0.1');
    expect(await page.locator('form#sign-in button[type=submit]').isDisabled()).toBe(true);
    expect(await page.locator('#secret-key').isDisabled()).toBe(true);
    expect(pageErrors).toEqual([]);
  });

  it('signs in as usual from 127.0.0.1, a secure context', async () => {
    await page.goto(consoleUrl('127.0.0.1'));
    expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
    await page.locator('form#sign-in').waitFor({ state: 'visible' });
    expect(await page.locator('#insecure-context').count()).toBe(0);
    expect(await page.locator('form#sign-in button[type=submit]').isEnabled()).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
