import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env['AGENTLANE_CHROMIUM'] ?? '/usr/bin/chromium';
export const screenshotDir = fileURLToPath(new URL('../../../../../artifacts/screenshots', import.meta.url));

/** Browser tests need Debian Chromium; without it they are skipped with a reason, except in CI. */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`;
  if (process.env['CI'] === 'true') throw new Error(reason);
  console.warn(reason);
  return reason;
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Debian Chromium with a fresh profile, no network beyond loopback. */
export async function launch(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'agentlane-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1200, height: 900 },
  });
  // Every page records what the content security policy refused (cspViolations): a refusal is a broken feature.
  await context.addInitScript(() => {
    const seen: string[] = [];
    (globalThis as unknown as { cspViolations: string[] }).cspViolations = seen;
    // The violation event bubbles up to the window (this runs in the page, typed without the DOM library).
    (globalThis as unknown as EventTarget).addEventListener('securitypolicyviolation', (e) => {
      const violation = e as unknown as { violatedDirective: string; blockedURI: string };
      seen.push(`${violation.violatedDirective} ${violation.blockedURI}`);
    });
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const require = createRequire(import.meta.url);

/** Runs axe-core in the page; returns the serious and critical violations. */
export async function axeViolations(
  page: Page,
  /** A CSS selector to check only that part (a new view), else the whole page. */
  include?: string,
): Promise<{ id: string; impact: string; nodes: string[] }[]> {
  // Evaluated, not added as a <script>: the server's content security policy (scripts from its own bundle
  // only) refuses an inline script tag, and the page is tested as users get it, policy on.
  await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  return page.evaluate(async (scope) => {
    const axe = (
      globalThis as unknown as { axe: { run(context?: unknown): Promise<{ violations: AxeViolation[] }> } }
    ).axe;
    interface AxeViolation {
      id: string;
      impact: string | null;
      nodes: { target: unknown[]; html: string; any: { data?: unknown }[] }[];
    }
    const result = await (scope ? axe.run({ include: [scope] }) : axe.run());
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({
        id: v.id,
        impact: v.impact ?? '',
        // The selector, the element and what axe measured (colours, ratio): enough to tell a real
        // violation from a page caught mid-change when a run fails.
        nodes: v.nodes.map((n) => JSON.stringify([n.target, n.html.slice(0, 160), n.any.map((c) => c.data)])),
      }));
  }, include);
}

/** What the page's content security policy refused so far (directive and blocked URL). */
export function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as unknown as { cspViolations?: string[] }).cspViolations ?? []);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: false });
}
