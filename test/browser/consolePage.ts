import path from 'node:path';
import type { ExecutionContext, TestFn } from 'ava';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { artifactsDir, type BrowserStack, type BrowserStackOptions, launchChromium, startBrowserStack } from '../helpers/browser.ts';

// What the console's browser tests share: the stack and browser of a test file, a page that records
// console errors and policy refusals, signing in by clicking, screenshots, and a few pixel checks.

// The page's globals, typed just enough for the callbacks the tests run in the page (which cast
// globalThis themselves): the project's tsconfig has no DOM library.
export interface PageWindow {
  readonly innerWidth: number;
  readonly document: {
    readonly documentElement: { readonly outerHTML: string; readonly scrollWidth: number };
    readonly activeElement: { readonly id: string } | null;
    querySelector(selector: string): { getAttribute(name: string): string | null } | null;
    querySelectorAll(selector: string): Iterable<{ readonly value: string }>;
  };
  readonly navigator: { readonly clipboard: { readText(): Promise<string> } };
}

export interface CanvasLike {
  readonly width: number;
  readonly height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, width: number, height: number): { readonly data: ArrayLike<number> } } | null;
}

export interface ConsoleContext {
  stack: BrowserStack;
  browser: Browser;
  shots: string;
}

/** The whole service and a headless Chromium for one test file; screenshots under `name`. */
export const useConsoleStack = (test: TestFn<ConsoleContext>, name: string, options: BrowserStackOptions = {}): void => {
  test.before(async (t) => {
    t.context.shots = await artifactsDir(name);
    t.context.stack = await startBrowserStack(options);
    t.context.browser = await launchChromium();
  });
  test.after.always(async (t) => {
    await t.context.browser?.close();
    await t.context.stack?.close();
  });
};

interface Session {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Console errors, uncaught exceptions and CSP or Trusted Types refusals seen so far. */
  readonly problems: string[];
}

export const openPage = async (t: ExecutionContext<ConsoleContext>, viewport = { width: 1280, height: 900 }): Promise<Session> => {
  const context = await t.context.browser.newContext({ viewport, acceptDownloads: true });
  t.teardown(() => context.close());
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') {
      problems.push(`console: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  return { context, page, problems };
};

/** Refusals by the Content-Security-Policy or Trusted Types, which must never happen on our own pages. */
export const policyViolations = (problems: readonly string[]): string[] =>
  problems.filter((problem) => /Content Security Policy|Trusted Type|TrustedHTML|TrustedScript/i.test(problem));

export const shoot = (t: ExecutionContext<ConsoleContext>, page: Page, name: string) =>
  page.screenshot({ path: path.join(t.context.shots, `${name}.png`), fullPage: true });

/** A screenshot of one part of the page (a section, a figure). */
export const shootPart = (t: ExecutionContext<ConsoleContext>, page: Page, selector: string, name: string) =>
  page.locator(selector).screenshot({ path: path.join(t.context.shots, `${name}.png`) });

/** Signs in through the local identity provider by clicking, as a person would. */
export const signIn = async (t: ExecutionContext<ConsoleContext>, page: Page, identity: { subject: string; email: string; name: string }) => {
  t.context.stack.idp.setIdentity({ ...identity, emailVerified: true });
  await page.goto(`${t.context.stack.url}/`);
  await page.getByRole('link', { name: 'Sign in with GitHub' }).click();
  await page.waitForURL(`${t.context.stack.url}/account`);
  await page.locator('#account-email', { hasText: identity.email }).waitFor();
};

export const apiWithKey = (t: ExecutionContext<ConsoleContext>, key: string, pathname: string, init: RequestInit = {}) =>
  fetch(`${t.context.stack.app.url}${pathname}`, {
    ...init,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers },
  });

/** Pixels of the (first) canvas close to a colour: tells a drawn line from an empty plot. */
export const countPixelsNear = (page: Page, selector: string, rgb: readonly [number, number, number]) =>
  page.locator(selector).first().evaluate(
    (canvas: CanvasLike, target) => {
      const context = canvas.getContext('2d');
      if (context === null) {
        return -1;
      }
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      let count = 0;
      for (let index = 0; index < data.length; index += 4) {
        const near =
          Math.abs((data[index] ?? 0) - target[0]) < 40 &&
          Math.abs((data[index + 1] ?? 0) - target[1]) < 40 &&
          Math.abs((data[index + 2] ?? 0) - target[2]) < 40;
        if (near && (data[index + 3] ?? 0) > 200) {
          count += 1;
        }
      }
      return count;
    },
    rgb,
  );

/** No sideways scrolling: the page is no wider than the viewport. */
/**
 * Whether the page fits its viewport's width with no sideways scrolling, once the layout has settled after
 * a resize (charts redraw on a ResizeObserver, later on a busy machine): false if it never does.
 */
export const fitsWidth = (page: Page): Promise<boolean> =>
  page
    .waitForFunction(
      () => {
        const window = globalThis as unknown as PageWindow;
        return window.document.documentElement.scrollWidth <= window.innerWidth;
      },
      undefined,
      { timeout: 10_000 },
    )
    .then(
      () => true,
      () => false,
    );

/** The console's pages by the names of their navigation links. */
export type ConsolePageName = 'Overview' | 'Run' | 'History' | 'Models' | 'Streams' | 'Keys' | 'Usage';

/** Goes to a page of the console by clicking its link in the navigation, as a person would. */
export const goTo = async (page: Page, name: ConsolePageName): Promise<void> => {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true }).click();
  await page.locator(`section.page[data-page="${name.toLowerCase()}"]:not([hidden])`).waitFor();
};
