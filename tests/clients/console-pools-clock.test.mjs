// The console's Pools page and clock page in a real browser (Debian's chromium, headless,
// driven by playwright-core), run once by 14-console-pools-clock.bats against its
// emulator: EMU_URL (no tokens; examples/workflow/01-pool.yaml and 03-jobs.yaml applied,
// the clock stopped). The scenarios run in order on that one emulator. Each saves a
// screenshot in SHOTS.
import { runScenarios } from './scenarios.mjs';
import { launch, openConsole, clean, shot, emu } from './console-lib.mjs';

let browser;
const JOBS = '/apis/nodus.dev/v1/namespaces/default/jobs';

// The header's clock ("2026-12-05 21:34:27 UTC · paused") in ms since 1970.
async function headerMs(page) {
    const t = await page.locator('#clock').innerText();
    const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d) UTC/.exec(t);
    if (!m) throw new Error(`header clock: ${t}`);
    return Date.parse(`${m[1]}T${m[2]}Z`);
}
// Waits until the header's clock reads ms (the clock is stopped: exactly).
async function headerAt(page, ms) {
    const iso = new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
    await page.waitForFunction((want) => document.getElementById('clock')?.textContent.startsWith(want),
                               iso, { timeout: 10000 });
}
const sameDocument = (page) => page.evaluate(() => { window.__sameDocument = true; });
async function stillSameDocument(page) {
    if (!(await page.evaluate(() => window.__sameDocument === true))) throw new Error('the page reloaded');
}

const scenarios = {
    // #/pools: the Pool lab with its two Hosts (their devices), then, after an advance
    // from outside, the Job train on node01 with its 8 devices in use: no reload.
    'pools-live': async () => {
        const p = await openConsole(browser, { hash: '#/pools' });
        const pool = 'section.pool[data-pool="lab"]';
        await p.page.waitForSelector(`${pool} table.hosts tr[data-name="node02"]`, { timeout: 10000 });
        await sameDocument(p.page);
        const devices = await p.page.locator(`${pool} tr[data-name="node01"] .devices`).innerText();
        if (!/8xH100/.test(devices)) throw new Error(`node01's devices: ${devices}`);
        if (await p.page.locator(`${pool} [data-work="train"]`).count()) throw new Error('train placed before the advance');
        await emu('/emulator/v1/clock', { method: 'POST', body: { advance: '1m' } });
        await p.page.waitForSelector(`${pool} tr[data-name="node01"] td.work [data-work="train"]`, { timeout: 10000 });
        await p.page.waitForFunction((sel) => /0 free, 8 used/.test(document.querySelector(sel)?.textContent || ''),
                                     `${pool} tr[data-name="node01"] .devices`, { timeout: 10000 });
        await stillSameDocument(p.page);
        const row = await p.page.locator(`${pool} tr[data-name="node01"]`).innerText();
        await shot(p.page, 'pools-live');
        clean(p);
        await p.context.close();
        return `node01: ${row.replace(/\s+/g, ' ')}`;
    },
    // #/clock: the +10m button moves the header's clock by 10 minutes.
    'clock-advance': async () => {
        const p = await openConsole(browser, { hash: '#/clock' });
        await p.page.waitForSelector('button[data-advance="10m"]');
        const before = await headerMs(p.page);
        await p.page.click('button[data-advance="10m"]');
        await headerAt(p.page, before + 600000);
        const face = await p.page.locator('#clock-now').innerText();
        await p.page.fill('#advance-custom', '1h30m');
        await p.page.click('#advance-go');
        await headerAt(p.page, before + 600000 + 5400000);
        const server = await emu('/emulator/v1/clock');
        if (server.nowMs !== before + 6000000) throw new Error(`the emulator is at ${server.nowMs}, not ${before + 6000000}`);
        await shot(p.page, 'clock-advance');
        clean(p);
        await p.context.close();
        return `+10m then +1h30m: header and emulator at ${server.now} (page showed ${face})`;
    },
    // Pause sets speed 0; Resume brings back the speed it had.
    'clock-pause': async () => {
        const p = await openConsole(browser, { hash: '#/clock' });
        await p.page.waitForSelector('#speed-input');
        await p.page.fill('#speed-input', '30');
        await p.page.click('#speed-go');
        await p.page.waitForFunction(() => document.getElementById('clock-speed')?.textContent === '×30', null, { timeout: 10000 });
        if ((await emu('/emulator/v1/clock')).speed !== 30) throw new Error('speed 30 not set');
        await p.page.click('#pause');
        await p.page.waitForFunction(() => document.getElementById('clock-speed')?.textContent === 'paused', null, { timeout: 10000 });
        const paused = (await emu('/emulator/v1/clock')).speed;
        if (paused !== 0) throw new Error(`after Pause the speed is ${paused}`);
        const label = await p.page.locator('#pause').innerText();
        if (label !== 'Resume') throw new Error(`the button says ${label}`);
        await shot(p.page, 'clock-pause');
        await p.page.click('#pause');
        await p.page.waitForFunction(() => document.getElementById('clock-speed')?.textContent === '×30', null, { timeout: 10000 });
        await p.page.click('#pause'); // stopped again for the scenarios after
        await p.page.waitForFunction(() => document.getElementById('clock-speed')?.textContent === 'paused', null, { timeout: 10000 });
        clean(p);
        await p.context.close();
        return 'speed 30, Pause -> 0 (button Resume), Resume -> 30, Pause -> 0';
    },
    // Save a snapshot from #/clock, make a Job, restore (after the confirmation): the Job
    // leaves the Jobs table of another tab without a reload.
    'snapshot-restore': async () => {
        const p = await openConsole(browser, { hash: '#/clock' });
        await p.page.fill('#snap-name', 'before-later');
        await p.page.click('#snap-save');
        await p.page.waitForSelector('table.snapshots tr[data-name="before-later"]', { timeout: 10000 });
        const jobs = await p.context.newPage();
        await jobs.goto(`${process.env.EMU_URL}/#/k/jobs`);
        await jobs.waitForSelector('table.objects tr[data-name="train"]', { timeout: 10000 });
        await sameDocument(jobs);
        await emu(JOBS, { method: 'POST', body: { apiVersion: 'nodus.dev/v1', kind: 'Job', metadata: { name: 'later' },
            spec: { image: 'nodus/pytorch:2.8-cuda12.8', command: ['true'], resources: { gpu: { model: 'L4', count: 1 } },
                    maxCostUSD: '1.00' } } });
        await jobs.waitForSelector('table.objects tr[data-name="later"]', { timeout: 10000 });
        await p.page.click('button[data-restore="before-later"]');
        const ask = await p.page.locator('.confirm').innerText();
        if (await jobs.locator('table.objects tr[data-name="later"]').count() !== 1) throw new Error('restored before the confirmation');
        await p.page.click('.confirm button.danger');
        await jobs.waitForSelector('table.objects tr[data-name="later"]', { state: 'detached', timeout: 10000 });
        await stillSameDocument(jobs);
        if (!(await jobs.locator('table.objects tr[data-name="train"]').count())) throw new Error('train left too');
        await p.page.waitForFunction(() => /^Restored before-later/.test(document.querySelector('.said')?.textContent || ''), null, { timeout: 10000 });
        await shot(p.page, 'snapshot-restore');
        await shot(jobs, 'snapshot-restore-jobs');
        clean(p);
        await p.context.close();
        return `asked "${ask.replace(/\s+/g, ' ')}"; the Job later left the other tab's table`;
    },
    // An advance made outside the page (the API) moves the header's clock, no reload.
    'header-outside': async () => {
        const p = await openConsole(browser, { hash: '#/' });
        await p.page.waitForSelector('#clock');
        await sameDocument(p.page);
        const before = (await emu('/emulator/v1/clock')).nowMs;
        await headerAt(p.page, before);
        await emu('/emulator/v1/clock', { method: 'POST', body: { advance: '2h' } });
        await headerAt(p.page, before + 7200000);
        await stillSameDocument(p.page);
        await shot(p.page, 'header-outside');
        clean(p);
        await p.context.close();
        return `header at ${new Date(before + 7200000).toISOString()} after an advance of 2h`;
    },
    // A token without admin: the clock page shows the 403 with the fix, and the header
    // says it shows the browser's clock. (The page's only console errors are the 403s.)
    'clock-forbidden': async () => {
        const p = await openConsole(browser, { url: `${process.env.TOKEN_URL}/`, hash: '#/clock', token: process.env.READ_TOKEN });
        await p.page.waitForSelector('.said .error', { timeout: 10000 });
        const said = await p.page.locator('.said').innerText();
        if (!/Forbidden/.test(said) || !/Fix: /.test(said) || !/admin/.test(said)) throw new Error(`the page said: ${said}`);
        await p.page.waitForSelector('#snapshots .error', { timeout: 10000 });
        const header = await p.page.locator('#clock').innerText();
        if (!/browser clock/.test(header)) throw new Error(`header: ${header}`);
        await shot(p.page, 'clock-forbidden');
        const other = p.errors.filter((e) => !/status of 403/.test(e));
        if (other.length) throw new Error(`the page logged errors: ${other.join(' | ')}`);
        await p.context.close();
        return `said "${said.replace(/\s+/g, ' ')}"; header ${header}`;
    },
};

await runScenarios(scenarios, {
    seconds: 60,
    before: async () => { browser = await launch(); },
    after: async () => { await browser?.close(); },
});
