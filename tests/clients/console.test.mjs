// The console's shell in a real browser (Debian's chromium, headless, driven by
// playwright-core), run once by 10-console.bats against its emulators: EMU_URL (no
// tokens; the demo's Pool and Jobs created through the API, the clock stopped) and
// TOKEN_URL (--token-file; TOKEN a token it knows). Each scenario saves a screenshot in
// SHOTS.
import { runScenarios } from './scenarios.mjs';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { launch, openConsole, clean, shot, emu, EMU_URL } from './console-lib.mjs';

let browser;

// An emulator of the scenario's own (in a temp dir, the clock stopped), which it can
// restart on the same port: {url, restart(), stop()}.
async function ownEmulator() {
    const dir = mkdtempSync(`${tmpdir()}/console-watch-`);
    const bin = `${process.env.ND_BIN_DIR}/nodus-emulator`;
    const start = async (listen) => {
        rmSync(`${dir}/port`, { force: true });
        const child = spawn(bin, ['--state', `${dir}/state`, '--listen', listen, '--port-file', `${dir}/port`,
                                  '--fsync', 'never', '--quiet', '--speed', '0'], { stdio: 'ignore' });
        for (let i = 0; i < 200 && !existsSync(`${dir}/port`); i++) await new Promise((r) => setTimeout(r, 25));
        const port = readFileSync(`${dir}/port`, 'utf8').trim();
        if (!port) throw new Error('the emulator did not start');
        return [child, port];
    };
    let [child, port] = await start('127.0.0.1:0');
    const stopChild = () => new Promise((resolve) => { child.once('exit', resolve); child.kill('SIGTERM'); });
    return {
        url: `http://127.0.0.1:${port}`,
        restart: async () => { await stopChild(); [child] = await start(`127.0.0.1:${port}`); },
        stop: async () => { await stopChild(); rmSync(dir, { recursive: true, force: true }); },
    };
}

// The text of the Jobs table's row NAME, by column: {NAME, STATE, PHASE, ...}.
async function row(page, name) {
    const heads = await page.locator('table.objects thead th').allInnerTexts();
    const cells = await page.locator(`table.objects tbody tr[data-name="${name}"] td`).allInnerTexts();
    return Object.fromEntries(heads.map((hd, i) => [hd.replace(/[ ▲▼]+$/, ''), cells[i]]));
}

const scenarios = {
    // The page, its scripts and styles load; nothing logs an error and nothing is asked
    // of any host but the emulator.
    'loads-clean': async () => {
        const p = await openConsole(browser);
        await p.page.waitForSelector('ul.kinds li .count');
        const nav = await p.page.locator('#nav a').allInnerTexts();
        if (!nav.includes('Job') || !nav.includes('Money')) throw new Error(`nav: ${nav.join(' ')}`);
        const clock = await p.page.locator('#clock').innerText();
        if (!/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/.test(clock)) throw new Error(`clock: ${clock}`);
        await shot(p.page, 'loads-clean');
        clean(p);
        await p.context.close();
        return `nav ${nav.length} links, clock ${clock}, no errors, no outside requests`;
    },
    // The demo's objects, created through the API, are listed with their columns.
    'lists-demo': async () => {
        const p = await openConsole(browser, { hash: '#/k/jobs' });
        await p.page.waitForSelector('table.objects tr[data-name="train"]');
        const r = await row(p.page, 'train');
        if (r.PHASE === undefined || r.GPU !== '8xH100' || r['MAX-COST'] !== '$50.00')
            throw new Error(`row train: ${JSON.stringify(r)}`);
        await p.page.goto(`${EMU_URL}/#/k/pools`);
        await p.page.waitForSelector('table.objects tr[data-name="lab"]');
        await shot(p.page, 'lists-demo');
        clean(p);
        await p.context.close();
        return `train: ${JSON.stringify(r)}; pool lab listed`;
    },
    // A clock advance moves a Job's phase in its row, with no reload of the page.
    'phase-live': async () => {
        const p = await openConsole(browser, { hash: '#/k/jobs' });
        await p.page.waitForSelector('table.objects tr[data-name="eval"] td a');
        await p.page.evaluate(() => { window.__sameDocument = true; });
        const before = (await row(p.page, 'eval')).PHASE;
        await emu('/emulator/v1/clock', { method: 'POST', body: { advance: '2m' } });
        await p.page.waitForFunction((b) => {
            const td = document.querySelector('table.objects tr[data-name="eval"] td[data-col="PHASE"]');
            return td && td.textContent !== b;
        }, before, { timeout: 10000 });
        const after = (await row(p.page, 'eval')).PHASE;
        if (!(await p.page.evaluate(() => window.__sameDocument === true))) throw new Error('the page reloaded');
        await shot(p.page, 'phase-live');
        clean(p);
        await p.context.close();
        return `eval ${before} -> ${after}, same document`;
    },
    // With tokens on, the page without a token shows its sign-in and no data; with one it
    // shows the objects.
    'tokens-login': async () => {
        const url = process.env.TOKEN_URL;
        const p = await openConsole(browser, { url: `${url}/`, hash: '#/k/jobs', wait: 'dialog#login[open]' });
        const body = await p.page.locator('#view').innerText();
        const rows = await p.page.locator('table.objects tbody tr').count();
        if (rows || /secret-job/.test(body)) throw new Error(`data shown without a token: ${body}`);
        await shot(p.page, 'tokens-login');
        await p.page.fill('#login-token', 'not-a-token-0123456789');
        await p.page.click('#login-form button[type=submit]');
        await p.page.waitForSelector('#login-error:not([hidden])');
        await p.page.fill('#login-token', process.env.TOKEN);
        await p.page.click('#login-form button[type=submit]');
        await p.page.waitForSelector('table.objects tr[data-name="secret-job"]');
        const stored = await p.page.evaluate(() => sessionStorage.getItem('nodus-token'));
        if (stored !== process.env.TOKEN) throw new Error('the token is not in sessionStorage');
        await shot(p.page, 'tokens-signed-in');
        await p.context.close();
        return 'sign-in shown and no rows without a token; a wrong token refused; the right one lists secret-job';
    },
    // The CSP blocks inline script and inline style on the console's page.
    'csp-blocks-inline': async () => {
        const p = await openConsole(browser);
        const said = await p.page.evaluate(async () => {
            const seen = [];
            document.addEventListener('securitypolicyviolation', (e) => seen.push(e.violatedDirective));
            const s = document.createElement('script');
            s.textContent = 'window.__inline = 1';
            document.body.append(s);
            document.body.insertAdjacentHTML('beforeend', '<img id="x" src="data:," onerror="window.__handler = 1">');
            const st = document.createElement('style');
            st.textContent = 'body { background: rgb(1, 2, 3) !important }';
            document.head.append(st);
            await new Promise((r) => setTimeout(r, 300));
            return { inline: window.__inline, handler: window.__handler, bg: getComputedStyle(document.body).backgroundColor, seen };
        });
        await shot(p.page, 'csp-blocks-inline');
        await p.context.close();
        if (said.inline || said.handler || said.bg === 'rgb(1, 2, 3)')
            throw new Error(`inline code ran: ${JSON.stringify(said)}`);
        if (!said.seen.some((d) => d.startsWith('script-src')) || !said.seen.some((d) => d.startsWith('style-src')))
            throw new Error(`no violation reported: ${JSON.stringify(said.seen)}`);
        return `blocked: ${[...new Set(said.seen)].join(', ')}`;
    },
    // The watch behind a table lists again after a 410 (Expired: a reset empties the
    // history), and resumes from the last resourceVersion when the stream drops (the
    // emulator restarted on the same port): the rows follow both with no reload.
    'watch-relist-resume': async () => {
        const emu2 = await ownEmulator();
        const url = emu2.url;
        const api = (path, opts) => fetch(url + path, { headers: { 'Content-Type': 'application/json' }, ...opts });
        const job = (name) => JSON.stringify({ apiVersion: 'nodus.dev/v1', kind: 'Job', metadata: { name },
            spec: { image: 'nodus/pytorch:2.8-cuda12.8', command: ['python', 'x.py'], resources: { gpu: { model: 'L40S', count: 1 } }, maxCostUSD: '5.00' } });
        await api('/apis/nodus.dev/v1/namespaces/default/jobs', { method: 'POST', body: job('before-reset') });
        const p = await openConsole(browser, { url: `${url}/`, hash: '#/k/jobs' });
        const reqs = [];
        p.page.on('request', (r) => { if (r.url().includes('/jobs')) reqs.push(r.url()); });
        await p.page.waitForSelector('table.objects tr[data-name="before-reset"]');
        await p.page.evaluate(() => { window.__sameDocument = true; });
        // 410: a reset empties the state and its history; the page lists again
        await api('/emulator/v1/reset', { method: 'POST', body: '{}' });
        await p.page.waitForSelector('table.objects tr[data-name="before-reset"]', { state: 'detached', timeout: 10000 });
        const relisted = reqs.filter((u) => !/[?&]watch=/.test(u)).length;
        if (!relisted) throw new Error(`no list after the 410: ${reqs.join(' ')}`);
        const made = await (await api('/apis/nodus.dev/v1/namespaces/default/jobs', { method: 'POST', body: job('after-reset') })).json();
        await p.page.waitForSelector('table.objects tr[data-name="after-reset"]', { timeout: 10000 });
        // a dropped stream: the emulator restarts on the same port; the page resumes from
        // the last resourceVersion it saw: at least the one that showed after-reset (the
        // simulation may have moved the Job on since, and the page may or may not have
        // seen that before the stream dropped)
        const rv = Number(made.metadata.resourceVersion);
        const lists = reqs.filter((u) => !/[?&]watch=/.test(u)).length;
        const n = reqs.length;
        await emu2.restart();
        await api('/apis/nodus.dev/v1/namespaces/default/jobs', { method: 'POST', body: job('after-restart') });
        await p.page.waitForSelector('table.objects tr[data-name="after-restart"]', { timeout: 15000 });
        const again = reqs.slice(n);
        const resumedAt = again.filter((u) => /[?&]watch=/.test(u))
            .map((u) => Number(new URL(u).searchParams.get('resourceVersion')));
        if (!resumedAt.some((r) => r >= rv))
            throw new Error(`no watch resumed from ${rv} or later: ${again.join(' ')}`);
        if (reqs.filter((u) => !/[?&]watch=/.test(u)).length !== lists)
            throw new Error(`the page listed again instead of resuming: ${again.join(' ')}`);
        if (!(await p.page.evaluate(() => window.__sameDocument === true))) throw new Error('the page reloaded');
        await shot(p.page, 'watch-relist-resume');
        p.outside = p.outside.filter((u) => !u.startsWith(`${url}/`)); // this scenario's own emulator
        // the browser's own lines for the dropped stream and the reconnects refused while
        // the emulator stops and starts (no connection, or a 503 while it is not serving)
        p.errors = p.errors.filter((e) => !/net::ERR_(CONNECTION_REFUSED|INCOMPLETE_CHUNKED_ENCODING|EMPTY_RESPONSE|CONNECTION_RESET)|status of 503 \(Service Unavailable\)/.test(e));
        clean(p);
        await p.context.close();
        await emu2.stop();
        return `relisted after the reset's 410; resumed from ${Math.max(...resumedAt)} (>= ${rv}) after the restart; no reload`;
    },
    // A phone's width in the dark scheme: the page does not scroll sideways (tables do,
    // inside their box), and the colours are the dark ones.
    'phone-dark': async () => {
        const p = await openConsole(browser, { hash: '#/k/jobs', viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
        await p.page.waitForSelector('table.objects tr[data-name="train"]');
        const m = await p.page.evaluate(() => ({ sw: document.documentElement.scrollWidth, w: innerWidth,
                                                 bg: getComputedStyle(document.body).backgroundColor }));
        await shot(p.page, 'phone-dark');
        clean(p);
        await p.context.close();
        if (m.sw > m.w) throw new Error(`the page is ${m.sw}px wide in a ${m.w}px window`);
        if (m.bg === 'rgb(255, 255, 255)') throw new Error('light colours in the dark scheme');
        return `width ${m.sw} <= ${m.w}, background ${m.bg}`;
    },
};

await runScenarios(scenarios, {
    seconds: 40,
    before: async () => { browser = await launch(); },
    after: async () => { await browser?.close(); },
});
