// What the console's browser scripts (console*.test.mjs, run by tests/clients/1x-console*.bats)
// share: Debian's chromium, headless, driven by playwright-core (which downloads no
// browser), and a page that records what would make a scenario fail whatever it checks:
// console errors, uncaught exceptions, and any request to anywhere but the emulator.
//
//   launch()                    the browser (CHROMIUM: its path; default /usr/bin/chromium)
//   openConsole(browser, opts)  a page at EMU_URL (opts.url: another; opts.hash: '#/...';
//                               opts.token: put in sessionStorage first; opts.viewport),
//                               {page, errors, outside}; opts.wait: a selector to wait for
//   clean(p)                    throws unless p saw no console error and no outside request
//   shot(page, name)            a screenshot, SHOTS/NAME.png (the bats file's temp folder)
//   emu(path, opts)             fetch against the emulator (with EMU_TOKEN when set), JSON
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';

export const EMU_URL = process.env.EMU_URL;
const SHOTS = process.env.SHOTS || '/tmp';

export async function launch() {
    return chromium.launch({
        executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
        headless: true,
        // root in CI: chromium's sandbox needs user namespaces it may not have
        args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
}

export async function openConsole(browser, { url = EMU_URL + '/', hash = '', token, viewport, wait = '#nav a', colorScheme } = {}) {
    const context = await browser.newContext({ viewport: viewport || { width: 1280, height: 800 }, colorScheme });
    if (token)
        await context.addInitScript((t) => sessionStorage.setItem('nodus-token', t), token);
    const page = await context.newPage();
    const errors = [], outside = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => errors.push(`page: ${e.message}`));
    page.on('request', (r) => {
        const u = r.url();
        if (!u.startsWith(EMU_URL + '/') && !u.startsWith(EMU_URL.replace(/^http/, 'ws') + '/') && !u.startsWith('data:'))
            outside.push(u);
    });
    await page.goto(url + hash);
    if (wait) await page.waitForSelector(wait, { timeout: 10000 });
    return { page, context, errors, outside };
}

export function clean(p) {
    if (p.errors.length) throw new Error(`the page logged errors: ${p.errors.join(' | ')}`);
    if (p.outside.length) throw new Error(`the page asked outside the emulator: ${p.outside.join(' ')}`);
}

export async function shot(page, name) {
    mkdirSync(SHOTS, { recursive: true });
    const path = `${SHOTS}/${name}.png`;
    await page.screenshot({ path, fullPage: true });
    return path;
}

export async function emu(path, { method = 'GET', body, headers = {} } = {}) {
    const h = { Accept: 'application/json', ...headers };
    if (process.env.EMU_TOKEN) h.Authorization = `Bearer ${process.env.EMU_TOKEN}`;
    if (body !== undefined && typeof body !== 'string') { body = JSON.stringify(body); h['Content-Type'] ||= 'application/json'; }
    const res = await fetch(EMU_URL + path, { method, headers: h, body });
    const text = await res.text();
    let json = null;
    try { json = JSON.parse(text); } catch { /* text */ }
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return json ?? text;
}
