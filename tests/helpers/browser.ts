/**
 * Chromium for the browser tests: Debian's /usr/bin/chromium driven by playwright-core. Without it
 * the suites skip with a printed reason, except in CI, where they must run (the same policy as
 * PostgreSQL in databases.ts). Also what several browser tests need: a log of what goes wrong on
 * a page (console errors, uncaught exceptions, CSP violations, files that fail to load), keyboard
 * focus as the user sees it, the horizontal-overflow check, screenshots and our sign-in form.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

// Code passed to page.evaluate() runs in the page. tsconfig has no DOM library (with it, server
// code could use `document` unnoticed), so the page globals used here are declared for this module.
declare const document: any;
declare const navigator: { clipboard: { readText(): Promise<string> } };
declare const innerWidth: number;
declare const innerHeight: number;
declare function getComputedStyle(element: unknown): { overflowX: string; outlineStyle: string; outlineWidth: string };

export const CHROMIUM_PATH = '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export const VIEWPORTS = {
  narrow: { width: 390, height: 844 },
  wide: { width: 1280, height: 900 },
} as const;

/** test-artifacts/screenshots at the repository root (a run's output: git ignores the whole folder). */
export const SCREENSHOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-artifacts/screenshots');

/** Why the browser tests cannot run here, or undefined when they can; in CI a missing Chromium is an error. */
export function chromiumSkip(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const reason = `Chromium is not installed at ${CHROMIUM_PATH}`;
  if (process.env.CI) throw new Error(`${reason}; CI must run the browser tests`);
  console.log(`# skipping browser tests: ${reason}`);
  return reason;
}

/** Headless Chromium with a fresh temporary profile (playwright makes one per launch). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/** A fresh context (no cookies, no storage) whose pages `log` watches; a browser action fails after 10 s, not 30. */
export async function openContext(browser: Browser, log: ProblemLog, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(10_000);
  await log.watch(context);
  return context;
}

export interface PageProblem {
  kind: 'console' | 'pageerror' | 'csp' | 'subresource';
  /** The page's URL when it happened. */
  page: string;
  text: string;
  /** Where a console message came from, when not the page itself. */
  source?: string;
}

/** Chromium's console line for a response with an error status. */
const LOAD_FAILED = /^Failed to load resource: the server responded with a status of 4\d\d/;

/**
 * Everything that goes wrong on the pages of the contexts it watches. Chromium also logs a
 * "Failed to load resource" console error for a page that answers 4xx (a wrong password is a 401
 * page): those are left out; a file that a page asks for and does not get is not.
 */
export class ProblemLog {
  private readonly entries: PageProblem[] = [];
  private readonly errorDocuments = new Set<string>();

  async watch(context: BrowserContext): Promise<void> {
    await context.exposeBinding('__reportCspViolation', ({ page }, text: string) => this.entries.push({ kind: 'csp', page: page.url(), text }));
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e: { effectiveDirective: string; blockedURI: string; sourceFile: string; lineNumber: number }) => {
        const report = (globalThis as unknown as { __reportCspViolation(text: string): void }).__reportCspViolation;
        report(`${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`);
      });
    });
    context.on('console', (m) => {
      if (m.type() === 'error') this.entries.push({ kind: 'console', page: m.page()?.url() ?? '', text: m.text(), source: m.location().url });
    });
    context.on('weberror', (e) => this.entries.push({ kind: 'pageerror', page: e.page()?.url() ?? '', text: String(e.error()) }));
    context.on('response', (r) => {
      if (r.status() < 400) return;
      if (r.request().resourceType() === 'document') this.errorDocuments.add(r.url());
      else this.entries.push({ kind: 'subresource', page: r.frame().url(), text: `${r.status()} ${r.url()}` });
    });
    context.on('requestfailed', (r) => {
      // Aborts are left out: a navigation aborts what the page it leaves was loading, and a file the
      // browser refuses (a stylesheet served as text/html, say) is logged as a console error anyway.
      if (r.failure()?.errorText !== 'net::ERR_ABORTED')
        this.entries.push({ kind: 'subresource', page: r.frame().url(), text: `${r.failure()?.errorText} ${r.url()}` });
    });
  }

  problems(): PageProblem[] {
    const expected = (e: PageProblem) => e.kind === 'console' && LOAD_FAILED.test(e.text) && this.errorDocuments.has(e.source ?? '');
    return this.entries.filter((e) => !expected(e)).map(({ kind, page, text, source }) => ({ kind, page, text, ...(source && source !== page && { source }) }));
  }

  assertNone(): void {
    assert.deepEqual(this.problems(), [], 'console errors, uncaught exceptions, CSP violations or failed files');
  }
}

/** The element that has the keyboard focus, as the user sees it. */
export interface Focused {
  /** e.g. `a "Skip to content"`, `input#email`, `button "Copy" [data-copy=mcp-header]` */
  name: string;
  /** On screen: a non-empty box inside the viewport. */
  visible: boolean;
  /** Shows the focus ring (`:focus-visible` with an outline). */
  ring: boolean;
}

/**
 * The element focused on arrival: Chromium applies `autofocus` at a rendering update that can come
 * after the load event `goto` waits for (a CI run read `body` there), so this waits for it first.
 */
export async function focusedOnArrival(page: Page): Promise<Focused> {
  await page
    .waitForFunction(() => !document.querySelector('[autofocus]') || document.activeElement !== document.body, undefined, { timeout: 5_000 })
    .catch(() => undefined);
  return focused(page);
}

export function focused(page: Page): Promise<Focused> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return { name: 'body', visible: false, ring: false };
    const tag = el.tagName.toLowerCase();
    const text = (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
    const copy = el.dataset.copy ? ` [data-copy=${el.dataset.copy}]` : '';
    const name = el.id ? `${tag}#${el.id}` : `${tag} "${text}"${copy}`;
    const r = el.getBoundingClientRect();
    const visible = r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
    const style = getComputedStyle(el);
    const ring = el.matches(':focus-visible') && style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
    return { name, visible, ring };
  });
}

/** Presses Tab (Shift+Tab with `back`) and returns what has the focus then. */
export async function tab(page: Page, back = false): Promise<Focused> {
  await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  return focused(page);
}

/**
 * Tabs until the focused element's name matches `target`; returns every stop on the way, the
 * target last. Each stop must be on screen and show the focus ring.
 */
export async function tabTo(page: Page, target: string | RegExp, max = 30): Promise<string[]> {
  const stops: string[] = [];
  for (let i = 0; i < max; i++) {
    const now = await tab(page);
    stops.push(now.name);
    assert.ok(now.visible && now.ring, `focused ${now.name} must be on screen with a focus ring (${JSON.stringify(now)})`);
    if (typeof target === 'string' ? now.name === target : target.test(now.name)) return stops;
  }
  assert.fail(`${String(target)} not reached with Tab; stops: ${stops.join(', ')}`);
}

/**
 * Whether the page scrolls sideways, and the elements that stick out past the right edge of the
 * viewport, not counting those inside something meant to scroll (a .table-wrap, a textarea: any
 * box whose overflow is not visible; an input's text scrolls inside it and sticks out of nothing).
 */
export function horizontalOverflow(page: Page): Promise<{ scrollWidth: number; innerWidth: number; culprits: string[] }> {
  // No named functions inside: tsx would wrap them in a helper the page does not have.
  return page.evaluate(() => {
    const culprits: string[] = [];
    for (const el of document.body.querySelectorAll('*')) {
      if (el.getBoundingClientRect().right <= innerWidth + 1) continue;
      let contained = false;
      for (let p = el.parentElement; p && p !== document.body && !contained; p = p.parentElement) contained = getComputedStyle(p).overflowX !== 'visible';
      if (!contained) culprits.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.classList.length ? `.${[...el.classList].join('.')}` : ''}`);
    }
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth, culprits };
  });
}

export async function assertNoHorizontalOverflow(page: Page): Promise<void> {
  const o = await horizontalOverflow(page);
  assert.ok(o.scrollWidth <= o.innerWidth + 1, `${page.url()} scrolls sideways: ${o.scrollWidth} > ${o.innerWidth}; sticking out: ${o.culprits.join(', ')}`);
}

/** The text on the clipboard, as the page reads it (the context needs the clipboard-read permission). */
export function clipboardText(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

/**
 * A screenshot in test-artifacts/screenshots/<name>.png: the full page, or only what the window
 * shows (for very long pages, whose full capture takes Chromium many seconds on a small machine).
 */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage });
}

/** The path of the page's URL (no origin, no query). */
export const pagePath = (page: Page): string => new URL(page.url()).pathname;

/** The text of the first element matching `selector`, its white space collapsed. */
export const pageText = async (page: Page, selector: string): Promise<string> =>
  ((await page.locator(selector).first().textContent()) ?? '').replace(/\s+/g, ' ').trim();

/** Clicks (or presses, with the keyboard) and waits until the next page has loaded. */
export async function andWaitForPage(page: Page, action: () => Promise<void>): Promise<void> {
  await Promise.all([page.waitForEvent('framenavigated', (frame) => frame === page.mainFrame()), action()]);
  await page.waitForLoadState('load');
}

/** Fills in and submits our sign-in form (the page must show it); returns once the next page has loaded. */
export async function submitSignIn(page: Page, email: string, password: string): Promise<void> {
  await page.locator('#email').fill(email);
  await page.locator('#password').fill(password);
  await andWaitForPage(page, () => page.getByRole('button', { name: 'Sign in' }).click());
}
