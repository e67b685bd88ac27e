// The console's Money page (#/money, view-money.js) in a real browser, run once by
// 13-console-money.bats against its emulators: EMU_URL (no tokens; the workflow's Pool,
// Budget and Jobs applied, the clock stopped) and TOKEN_URL (--token-file; READ_TOKEN
// a token without admin). Each scenario saves a screenshot in SHOTS.
import { runScenarios } from './scenarios.mjs';
import { launch, openConsole, clean, shot, emu } from './console-lib.mjs';

let browser;

const usd = (v) => `$${Number(v).toFixed(2)}`;

// The totals table as {"project/kind": costUSD} and its total, as the page shows them.
async function pageTotals(page) {
    return page.evaluate(() => {
        const rows = {};
        for (const tr of document.querySelectorAll('table.totals tbody tr[data-project]'))
            rows[`${tr.dataset.project}/${tr.dataset.kind}`] = tr.dataset.usd;
        return { rows, total: document.querySelector('table.totals td.total')?.dataset.usd };
    });
}
const samplesShown = (page) => page.evaluate(() => Number(document.querySelector('svg.chart')?.dataset.samples || 0));

const scenarios = {
    // The price book: each GPU model's market and Pool rate, as the API has them.
    'pricebook': async () => {
        const p = await openConsole(browser, { hash: '#/money' });
        await p.page.waitForSelector('table.prices tr[data-model="H100"]');
        const book = await emu('/emulator/v1/pricebook');
        const seen = [];
        for (const [model, rate] of Object.entries(book.gpu.market)) {
            const cell = await p.page.locator(`table.prices tr[data-model="${model}"] td[data-col="market"]`).innerText();
            if (cell !== `${usd(rate)}/h`) throw new Error(`${model} market: ${cell}, the API says ${rate}`);
            seen.push(`${model} ${cell}`);
        }
        const pool = await p.page.locator('table.prices tr[data-model="H100"] td[data-col="pool"]').innerText();
        if (pool !== `${usd(book.gpu.pool.H100)}/h`) throw new Error(`H100 pool: ${pool}`);
        await shot(p.page, 'pricebook');
        clean(p);
        await p.context.close();
        return `market ${seen.join(', ')}; H100 pool ${pool}`;
    },
    // A clock advance: the chart gains samples and the totals grow, with no reload, and
    // the numbers are the API's.
    'spend-live': async () => {
        const p = await openConsole(browser, { hash: '#/money' });
        await p.page.waitForSelector('table.totals tfoot td.total');
        await p.page.evaluate(() => { window.__sameDocument = true; });
        const n0 = await samplesShown(p.page);
        const t0 = Number((await pageTotals(p.page)).total);
        await emu('/emulator/v1/clock', { method: 'POST', body: { advance: '30m' } });
        await p.page.waitForFunction(([n, t]) =>
            Number(document.querySelector('svg.chart')?.dataset.samples || 0) > n &&
            Number(document.querySelector('table.totals td.total')?.dataset.usd || 0) > t, [n0, t0], { timeout: 10000 });
        const api = await emu('/emulator/v1/spend');
        const shown = await pageTotals(p.page);
        const want = Object.fromEntries(api.totals.map((r) => [`${r.project}/${r.kind}`, r.costUSD]));
        if (JSON.stringify(shown.rows) !== JSON.stringify(want) || shown.total !== api.totalUSD)
            throw new Error(`page ${JSON.stringify(shown)} != API ${JSON.stringify(want)} ${api.totalUSD}`);
        const n1 = await samplesShown(p.page);
        if (n1 !== api.samples.length) throw new Error(`chart ${n1} samples, the API keeps ${api.samples.length}`);
        const lines = await p.page.locator('svg.chart polyline').count();
        const legend = await p.page.locator('ul.legend li').allInnerTexts();
        if (!lines || lines !== legend.length) throw new Error(`${lines} lines, legend ${legend.join(' | ')}`);
        if (!(await p.page.evaluate(() => window.__sameDocument === true))) throw new Error('the page reloaded');
        await shot(p.page, 'spend-live');
        clean(p);
        await p.context.close();
        return `samples ${n0} -> ${n1}, total ${t0} -> ${shown.total} (the API's), legend ${legend.join(' | ')}`;
    },
    // The Budget: its limit, thresholds, first hold and what it has spent (the API's).
    'budget': async () => {
        const p = await openConsole(browser, { hash: '#/money' });
        await p.page.waitForSelector('table.budgets tr[data-name="vision"] td[data-col="limit"]');
        await p.page.waitForSelector('table.prices tr[data-model="H100"]');
        const b = await emu('/apis/nodus.dev/v1/namespaces/default/budgets/vision');
        const cell = async (c) => p.page.locator(`table.budgets tr[data-name="vision"] td[data-col="${c}"]`).innerText();
        await p.page.waitForFunction((want) =>
            document.querySelector('table.budgets tr[data-name="vision"] td[data-col="spent"]')?.textContent === want,
            usd(b.status.spentUSD), { timeout: 10000 });
        const got = { limit: await cell('limit'), spent: await cell('spent'), remaining: await cell('remaining'),
                      thresholds: await cell('thresholds') };
        if (got.limit !== usd(b.spec.limitUSD) || !got.remaining.startsWith(usd(b.status.remainingUSD)))
            throw new Error(`row ${JSON.stringify(got)}, the API says ${JSON.stringify(b.spec)} ${JSON.stringify(b.status)}`);
        if (!/^50%.* 80%.* 100%/.test(got.thresholds)) throw new Error(`thresholds ${got.thresholds}`);
        const row = await p.page.locator('table.budgets tr[data-name="vision"]').innerText();
        if (!/1 h at the rate/.test(row)) throw new Error(`no first hold in ${row}`);
        await shot(p.page, 'budget');
        clean(p);
        await p.context.close();
        return `vision ${JSON.stringify(got)}`;
    },
    // Without admin the spend endpoint is 403: the page says so, with the fix.
    'spend-forbidden': async () => {
        const url = process.env.TOKEN_URL;
        const p = await openConsole(browser, { url: `${url}/`, hash: '#/money', token: process.env.READ_TOKEN });
        await p.page.waitForSelector('.money-denied');
        const text = await p.page.locator('.money-denied').innerText();
        if (!/Forbidden/.test(text) || !/use a token with the admin scope/.test(text) || !/admin/.test(text))
            throw new Error(`denied box: ${text}`);
        if (await p.page.locator('svg.chart').count()) throw new Error('a chart without admin');
        await shot(p.page, 'spend-forbidden');
        // the browser logs each refused request (403) as a console error: those only; and
        // this page's own emulator is TOKEN_URL
        p.errors = p.errors.filter((e) => !/status of 403/.test(e));
        p.outside = p.outside.filter((u) => !u.startsWith(`${url}/`));
        clean(p);
        await p.context.close();
        return `denied: ${text.split('\n')[0]}`;
    },
};

await runScenarios(scenarios, {
    seconds: 40,
    before: async () => { browser = await launch(); },
    after: async () => { await browser?.close(); },
});
