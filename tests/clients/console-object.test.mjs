// The console's object page (#/o/PLURAL/NS/NAME) in a real browser, run once by
// 11-console-object.bats against its emulator (examples/workflow/*.yaml applied through
// the API, the clock stopped, then advanced 5m: train and eval run). Each scenario saves
// a screenshot in SHOTS. js-yaml (pinned by package-lock.json, with @kubernetes/client-node)
// reads the YAML the page shows back.
import yaml from 'js-yaml';
import { runScenarios } from './scenarios.mjs';
import { launch, openConsole, clean, shot, emu } from './console-lib.mjs';

let browser;
const JOBS = '/apis/nodus.dev/v1/namespaces/default/jobs';
const usd = (v) => `$${Number(v).toFixed(2)}`;
const advance = (d) => emu('/emulator/v1/clock', { method: 'POST', body: { advance: d } });
const job = (name, extra = {}) => ({
    apiVersion: 'nodus.dev/v1', kind: 'Job', metadata: { name, ...extra },
    spec: { image: 'nodus/pytorch:2.8-cuda12.8', command: ['python', 'x.py'],
            resources: { gpu: { model: 'L40S', count: 1 } }, maxCostUSD: '5.00' },
});
const sameDocument = async (page) => {
    if (!(await page.evaluate(() => window.__sameDocument === true))) throw new Error('the page reloaded');
};

const scenarios = {
    // A running Job's page: the header, its conditions as the API has them, its YAML
    // (reached with the keyboard) and the Events about it.
    'job-page': async () => {
        const api = await emu(`${JOBS}/train`);
        const p = await openConsole(browser, { hash: '#/o/jobs/default/train', wait: 'table.conditions' });
        await p.page.waitForSelector('.phase .badge.phase-Running');
        const types = await p.page.locator('table.conditions tbody tr').evaluateAll((rs) => rs.map((r) => r.dataset.type));
        const want = (api.status.conditions || []).map((c) => c.type);
        if (!want.length || want.join() !== types.join()) throw new Error(`conditions ${types} != ${want}`);
        const image = await p.page.locator('dd[data-field="spec.image"]').innerText();
        if (image !== api.spec.image) throw new Error(`spec.image shown as ${image}`);
        await p.page.focus('#tab-overview');
        await p.page.keyboard.press('ArrowRight');
        await p.page.keyboard.press('ArrowRight');
        const selected = await p.page.getAttribute('#tab-yaml', 'aria-selected');
        if (selected !== 'true') throw new Error('two ArrowRight from Overview did not select YAML');
        const text = await p.page.locator('pre.yaml').innerText();
        for (const line of ['kind: Job', 'image: nodus/pytorch:2.8-cuda12.8', 'maxCostUSD: "50.00"', '- python\n  - train.py'])
            if (!text.includes(line)) throw new Error(`the YAML lacks ${JSON.stringify(line)}:\n${text}`);
        await p.page.keyboard.press('ArrowRight');
        await p.page.waitForSelector('table.events tbody tr');
        const reasons = await p.page.locator('table.events tbody tr').evaluateAll((rs) => rs.map((r) => r.dataset.reason));
        const evs = await emu('/api/v1/namespaces/default/events?fieldSelector=involvedObject.kind%3DJob,involvedObject.name%3Dtrain');
        if (reasons.length !== evs.items.length || !reasons.includes('Created') || !reasons.includes('Running'))
            throw new Error(`events shown ${reasons}, the API has ${evs.items.map((e) => e.reason)}`);
        if (p.page.url().indexOf('?tab=events') < 0) throw new Error(`the tab is not in the address: ${p.page.url()}`);
        await shot(p.page, 'job-page');
        clean(p);
        await p.context.close();
        return `conditions ${types}; YAML with the spec; events ${reasons}`;
    },
    // The Money tab: what a running Job has cost, its rate and maxCostUSD, and a
    // Budget's limit and spending, as the API has them.
    'money': async () => {
        const api = await emu(`${JOBS}/eval`);
        const p = await openConsole(browser, { hash: '#/o/jobs/default/eval?tab=money', wait: 'dl.fields' });
        const field = (f) => p.page.locator(`dd[data-field="${f}"]`).innerText({ timeout: 5000 });
        const seen = { cost: await field('status.costUSD'), rate: await field('status.rateUSDPerHour'),
                       max: await field('spec.maxCostUSD') };
        const want = { cost: usd(api.status.costUSD), rate: `${usd(api.status.rateUSDPerHour)}/h`, max: '$20.00' };
        if (JSON.stringify(seen) !== JSON.stringify(want)) throw new Error(`shown ${JSON.stringify(seen)}, want ${JSON.stringify(want)}`);
        if (!(Number(api.status.costUSD) > 0)) throw new Error(`eval has cost nothing: ${api.status.costUSD}`);
        await p.page.waitForSelector('meter');
        await shot(p.page, 'money');
        const b = await emu('/apis/nodus.dev/v1/namespaces/default/budgets/vision');
        await p.page.goto(p.page.url().replace(/#.*/, '#/o/budgets/default/vision?tab=money'));
        await p.page.waitForSelector('dd[data-field="status.spentUSD"]');
        const spent = await field('status.spentUSD'), limit = await field('spec.limitUSD');
        if (spent !== usd(b.status.spentUSD) || limit !== '$1.00') throw new Error(`budget: spent ${spent} of ${limit}`);
        clean(p);
        await p.context.close();
        return `eval ${JSON.stringify(seen)}; budget vision ${spent} of ${limit}`;
    },
    // A Job created while the page is open: its Events appear as the clock moves.
    'event-live': async () => {
        await emu(JOBS, { method: 'POST', body: job('fresh') });
        const p = await openConsole(browser, { hash: '#/o/jobs/default/fresh?tab=events', wait: 'table.events tr[data-reason="Created"]' });
        await p.page.evaluate(() => { window.__sameDocument = true; });
        await advance('1m');
        await p.page.waitForSelector('table.events tr[data-reason="Running"]', { timeout: 10000 });
        await p.page.waitForSelector('.phase .badge.phase-Running');
        await sameDocument(p.page);
        const reasons = await p.page.locator('table.events tbody tr').evaluateAll((rs) => rs.map((r) => r.dataset.reason));
        if (reasons[0] !== 'Created' || reasons.at(-1) === 'Created') throw new Error(`not newest last: ${reasons}`);
        await shot(p.page, 'event-live');
        clean(p);
        await p.context.close();
        return `events ${reasons}, same document`;
    },
    // A running Job's log follows the clock: new lines appear with no reload.
    'log-streams': async () => {
        const p = await openConsole(browser, { hash: '#/o/jobs/default/train', wait: '#tab-logs' });
        await p.page.click('#tab-logs');
        await p.page.waitForFunction(() => /step \d+/.test(document.querySelector('pre.log')?.textContent || ''));
        await p.page.evaluate(() => { window.__sameDocument = true; });
        const before = (await p.page.locator('pre.log').innerText()).trim().split('\n');
        await advance('3m');
        await p.page.waitForFunction((n) => (document.querySelector('pre.log')?.textContent.trim().split('\n').length || 0) >= n + 3,
                                     before.length, { timeout: 10000 });
        await sameDocument(p.page);
        const after = (await p.page.locator('pre.log').innerText()).trim().split('\n');
        const steps = after.filter((l) => /^step \d+/.test(l));
        if (new Set(after).size !== after.length) throw new Error(`a line shown twice:\n${after.join('\n')}`);
        await shot(p.page, 'log-streams');
        // leaving the tab ends the stream (the browser reports the request aborted)
        const aborted = p.page.waitForEvent('requestfailed', { predicate: (r) => r.url().includes('/train/log?'), timeout: 5000 });
        await p.page.click('#tab-overview');
        await aborted;
        clean(p);
        await p.context.close();
        return `${before.length} lines, then ${after.length}; last: ${steps.at(-1)}; the stream ended on leaving the tab`;
    },
    // A stream the server ends while the Job still runs is asked for again from its last
    // line's time, and no line shows twice. The first answer is cut short here (route).
    'log-resumes': async () => {
        const full = (await emu(`${JOBS}/train/log?timestamps=true`)).trim().split('\n');
        const p = await openConsole(browser, { hash: '#/o/jobs/default/train', wait: '#tab-logs' });
        const asked = [];
        await p.page.route('**/jobs/train/log?*', (route) => {
            asked.push(route.request().url());
            if (asked.length > 1) return route.continue();
            return route.fulfill({ status: 200, contentType: 'text/plain', body: `${full.slice(0, 3).join('\n')}\n` });
        });
        await p.page.click('#tab-logs');
        await p.page.waitForFunction((n) => (document.querySelector('pre.log')?.textContent.trim().split('\n').length || 0) >= n,
                                     full.length, { timeout: 10000 });
        const shown = (await p.page.locator('pre.log').innerText()).trim().split('\n');
        const want = full.map((l) => l.slice(l.indexOf(' ') + 1));
        if (shown.slice(0, want.length).join('\n') !== want.join('\n')) throw new Error(`shown:\n${shown.join('\n')}\nwant:\n${want.join('\n')}`);
        const again = new URL(asked[1]).searchParams;
        if (again.get('sinceTime') !== full[2].split(' ')[0] || again.get('follow') !== 'true')
            throw new Error(`asked again as ${asked[1]}`);
        await shot(p.page, 'log-resumes');
        clean(p);
        await p.context.close();
        return `cut after 3 lines, asked again with sinceTime=${again.get('sinceTime')}; ${shown.length} lines, none twice`;
    },
    // A Job not started yet: the Logs tab shows the server's Status and its fix, then the
    // log once the clock has moved it to Running.
    'log-not-started': async () => {
        await emu(JOBS, { method: 'POST', body: job('later') });
        const p = await openConsole(browser, { hash: '#/o/jobs/default/later?tab=logs', wait: '.log-state .error' });
        const said = await p.page.locator('.log-state .error').innerText();
        if (!/BadRequest/.test(said) || !/has not started yet/.test(said) || !/Fix: /.test(said))
            throw new Error(`no Status with a fix: ${said}`);
        await shot(p.page, 'log-not-started');
        await advance('2m');
        await p.page.waitForFunction(() => /\[nodus\] pulling image/.test(document.querySelector('pre.log')?.textContent || ''),
                                     null, { timeout: 10000 });
        const state = await p.page.locator('.log-state').innerText();
        if (/BadRequest/.test(state)) throw new Error(`the error stays once the log runs: ${state}`);
        // the error the page logged was the browser's note of the 400: nothing else
        p.errors = p.errors.filter((e) => !/status of 400/.test(e));
        clean(p);
        await p.context.close();
        return `${said.split('\n')[0]}; then the log`;
    },
    // A deleted object stays on its page, marked deleted, with no error.
    'deleted': async () => {
        await emu(JOBS, { method: 'POST', body: job('doomed') });
        const p = await openConsole(browser, { hash: '#/o/jobs/default/doomed?tab=yaml', wait: 'pre.yaml' });
        await emu(`${JOBS}/doomed`, { method: 'DELETE' });
        await advance('1m');
        await p.page.waitForSelector('.phase .badge.deleted', { timeout: 10000 });
        const badge = await p.page.locator('.phase .badge.deleted').innerText();
        if (badge !== 'deleted') throw new Error(`badge ${badge}`);
        await p.page.click('#tab-overview');
        await p.page.waitForSelector('dd[data-field="spec.image"]');
        await shot(p.page, 'deleted');
        clean(p);
        await p.context.close();
        return 'marked deleted; its last state still shown';
    },
    // The YAML shown reads back, with js-yaml, as the object the API has: strings that
    // look like numbers, booleans, dates or YAML syntax stay strings.
    'yaml-reads-back': async () => {
        const odd = { money: '50.00', yes: 'true', on: 'off', date: '2026-12-05T21:00:00Z', colon: 'a: b', hash: '#x',
                      lines: 'one\ntwo\n', space: ' lead', empty: '', dash: '- x', star: '*ref', quote: '"q\'', uni: 'é 中 \u2028',
                      'emulator.nodus.dev/duration': '1h' };
        await emu(JOBS, { method: 'POST', body: job('odd', { labels: { app: 'odd', n: '007' }, annotations: odd }) });
        // the simulation moves the new Job on (queued, priced) while the page opens: compare
        // the page with the API at the same resourceVersion, opening it again when they differ
        let p, back, api;
        for (let i = 0; i < 10; i++) {
            p = await openConsole(browser, { hash: '#/o/jobs/default/odd?tab=yaml', wait: 'pre.yaml' });
            back = yaml.load(await p.page.locator('pre.yaml').textContent());
            api = await emu(`${JOBS}/odd`);
            if (back.metadata.resourceVersion === api.metadata.resourceVersion) break;
            await p.context.close();
        }
        delete api.metadata.managedFields;
        if (JSON.stringify(back) !== JSON.stringify(api))
            throw new Error(`the YAML reads back as ${JSON.stringify(back)}\nthe API has ${JSON.stringify(api)}`);
        await shot(p.page, 'yaml-reads-back');
        clean(p);
        await p.context.close();
        return `${Object.keys(odd).length} odd annotations read back alike`;
    },
    // At a phone's width in the dark scheme no tab makes the page scroll sideways.
    'phone-dark': async () => {
        const p = await openConsole(browser, { hash: '#/o/jobs/default/train', viewport: { width: 390, height: 844 },
                                               colorScheme: 'dark', wait: 'table.conditions' });
        const widths = [];
        for (const t of ['overview', 'money', 'yaml', 'events', 'logs']) {
            await p.page.click(`#tab-${t}`);
            await p.page.waitForSelector(`#tab-${t}[aria-selected="true"]`);
            if (t === 'logs') await p.page.waitForFunction(() => /step \d+/.test(document.querySelector('pre.log')?.textContent || ''));
            const m = await p.page.evaluate(() => ({ sw: document.documentElement.scrollWidth, w: innerWidth }));
            if (m.sw > m.w) throw new Error(`the ${t} tab is ${m.sw}px wide in a ${m.w}px window`);
            widths.push(`${t} ${m.sw}`);
        }
        await shot(p.page, 'phone-dark');
        clean(p);
        await p.context.close();
        return widths.join(', ');
    },
    // The Events table links each Event to the object it is about.
    'events-link': async () => {
        const p = await openConsole(browser, { hash: '#/k/events?ns=default', wait: 'table.objects td[data-col="OBJECT"] a' });
        await p.page.click('table.objects td[data-col="OBJECT"] a:text-is("job/eval")');
        await p.page.waitForSelector('.head h1');
        const h1 = await p.page.locator('.head h1').innerText();
        if (!p.page.url().endsWith('#/o/jobs/default/eval') || h1 !== 'Job eval') throw new Error(`at ${p.page.url()}: ${h1}`);
        await shot(p.page, 'events-link');
        clean(p);
        await p.context.close();
        return `job/eval -> ${p.page.url().replace(/^.*#/, '#')}`;
    },
};

await runScenarios(scenarios, {
    seconds: 30,
    before: async () => { browser = await launch(); },
    after: async () => { await browser?.close(); },
});
