import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where the browser tests leave their screenshots (CI keeps them as artifacts). */
export const ARTIFACTS = resolve(import.meta.dirname, '../../test-results/browser');

/** Debian's chromium (installed by .ci/run), or the one HARK_TEST_CHROMIUM names. */
export function chromiumPath(): string {
  const path = process.env.HARK_TEST_CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(`no Chromium at ${path}: apt-get install chromium (as .ci/run does), or set HARK_TEST_CHROMIUM`);
  }
  return path;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // As root in a container, Chromium's sandbox cannot start.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}

/** A phone's screen: 390 CSS pixels wide (an iPhone 12 to 15). */
export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

/**
 * A page that keeps every console error and uncaught exception, and (in `window.levels`) every
 * value the level meter shows; on a desktop's screen unless told `PHONE`.
 */
export async function watchedPage(
  browser: Browser,
  screen: Parameters<Browser['newPage']>[0] = { viewport: { width: 1200, height: 1400 } },
): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage(screen);
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(error.message));
  // Runs in the page (a string: these tests are not compiled against the DOM's types).
  await page.addInitScript({
    content: `
      window.levels = [];
      document.addEventListener('DOMContentLoaded', () => {
        const level = document.getElementById('level');
        new MutationObserver(() => window.levels.push(Number(level.dataset.value)))
          .observe(level, { attributes: true, attributeFilter: ['data-value'] });
      });`,
  });
  return { page, errors };
}

/** How far the page is wider than its window, in CSS pixels: a phone would scroll it sideways. */
export function sidewaysScroll(page: Page): Promise<number> {
  // Against the layout viewport: a phone's window widens to what overflows it (window.innerWidth).
  return page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}
