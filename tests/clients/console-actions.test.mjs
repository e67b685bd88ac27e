// The console's actions in a real browser (Debian's chromium, headless, driven by
// playwright-core), run once by 15-console-actions.bats against its emulator (EMU_URL,
// the clock stopped): #/apply's review before you pay (the estimate first, nothing
// created, then a launch carrying the review's ETag as If-Match; a price book changed in
// between answers PreconditionFailed and a fresh estimate), and the object page's action
// bar (suspend and resume, request, approve, a delete that asks first and names what
// cascades). Each scenario saves a screenshot in SHOTS.
import { runScenarios } from './scenarios.mjs';
import { launch, openConsole, clean, shot, emu } from './console-lib.mjs';

let browser;
const JOBS = '/apis/nodus.dev/v1/namespaces/default/jobs';

// A Job on one market L40S: launching it costs money, so it has an estimate.
const jobYaml = (name) => `apiVersion: nodus.dev/v1
kind: Job
metadata:
  name: ${name}
  labels: {team: console}
spec:
  image: nodus/pytorch:2.8-cuda12.8
  command: [python, train.py]
  resources:
    gpu: {model: L40S, count: 1}
  maxCostUSD: "20.00"
`;

// Whether the API has the object at path (false: NotFound).
async function exists(path) {
    try { await emu(path); return true; } catch (err) {
        if (/: 404 /.test(err.message)) return false;
        throw err;
    }
}

// Waits until fn() is true (every 100 ms, at most ms): the scripts' wait_until.
async function until(fn, what, ms = 10000) {
    const end = Date.now() + ms;
    for (;;) {
        if (await fn()) return;
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 100));
    }
}

// The writes the page sends, with their headers and what answered them.
function recordWrites(page) {
    const seen = [];
    page.on('request', (r) => {
        if (r.method() !== 'GET') seen.push({ method: r.method(), url: r.url(), headers: r.headers(), req: r });
    });
    return seen;
}
const etagOf = async (w) => (await w.req.response())?.headers()?.etag || '';

// A Status the page was meant to show (a 412, a 409): chromium logs the failed fetch as a
// console error of the network, not of the page; take those lines out before clean(p).
function expectStatus(p, code) {
    for (let i = p.errors.length - 1; i >= 0; i--)
        if (p.errors[i].includes(`the server responded with a status of ${code}`)) p.errors.splice(i, 1);
}

async function applyPage(manifest) {
    const p = await openConsole(browser, { hash: '#/apply', wait: '#manifest' });
    const writes = recordWrites(p.page);
    await p.page.fill('#manifest', manifest);
    await p.page.click('#review');
    await p.page.waitForSelector('article.apply-doc[data-state=reviewed]');
    return { p, writes };
}
const field = (page, name, f) => page.locator(`article.apply-doc[data-name="${name}"] dd[data-field=${f}]`).innerText();

const scenarios = {
    // Review shows the estimate and creates nothing; Launch sends the review's ETag as
    // If-Match (with an Idempotency-Key) and the Job exists.
    'apply-review-launch': async () => {
        const { p, writes } = await applyPage(jobYaml('reviewed'));
        const expected = await field(p.page, 'reviewed', 'expected');
        const rate = await field(p.page, 'reviewed', 'rate');
        if (!/^\$\d+\.\d+$/.test(expected) || rate !== '$0.99/h') throw new Error(`estimate shown: ${expected}, ${rate}`);
        if (await exists(`${JOBS}/reviewed`)) throw new Error('the review created the Job');
        const dry = writes.filter((w) => w.method === 'PATCH' && /[?&]dryRun=All/.test(w.url));
        if (dry.length !== 1 || writes.length !== 1) throw new Error(`review sent: ${writes.map((w) => `${w.method} ${w.url}`).join(', ')}`);
        if (dry[0].headers['content-type'] !== 'application/apply-patch+yaml' || !/fieldManager=nodus&/.test(dry[0].url))
            throw new Error(`the dry run is not the CLI's apply: ${dry[0].url} ${dry[0].headers['content-type']}`);
        const etag = await etagOf(dry[0]);
        const shown = await p.page.locator('article.apply-doc[data-name=reviewed]').getAttribute('data-etag');
        if (!etag || shown !== etag) throw new Error(`ETag answered ${etag}, kept ${shown}`);
        await shot(p.page, 'apply-review');
        await p.page.click('#launch');
        await p.page.waitForSelector('article.apply-doc[data-state=launched]');
        const real = writes.filter((w) => w.method === 'PATCH' && !/dryRun/.test(w.url));
        if (real.length !== 1) throw new Error(`launch sent ${real.length} applies`);
        if (real[0].headers['if-match'] !== etag) throw new Error(`If-Match ${real[0].headers['if-match']}, review's ETag ${etag}`);
        if (!/^[0-9a-f]{32}$/.test(real[0].headers['idempotency-key'] || '')) throw new Error('no Idempotency-Key on the launch');
        const job = await emu(`${JOBS}/reviewed`);
        const by = job.metadata.labels?.['nodus.dev/launched-by'];
        if (by !== 'console') throw new Error(`launched-by ${by}, not console`);
        await p.page.waitForSelector('#banner.ok:not([hidden])');
        await shot(p.page, 'apply-review-launch');
        clean(p);
        await p.context.close();
        return `review: ${rate}, expected ${expected}, nothing created; launch If-Match ${etag}; job ${job.metadata.name} ${job.status?.phase}, launched-by console`;
    },
    // The price book changes between review and launch: PreconditionFailed, the fresh
    // estimate beside the reviewed one, still nothing created; Launch again creates it.
    'apply-pricebook-changed': async () => {
        const book = await emu('/emulator/v1/pricebook');
        const { p, writes } = await applyPage(jobYaml('repriced'));
        const rate = await field(p.page, 'repriced', 'rate');
        const first = await p.page.locator('article.apply-doc[data-name=repriced]').getAttribute('data-etag');
        const changed = structuredClone(book);
        // a new market rate alone keeps the book's version (a reviewed launch still goes
        // through, capped); a change of the holds moves it
        changed.gpu.market.L40S = '1.49';
        changed.holds.firstHoldHours = (book.holds?.firstHoldHours || 1) + 1;
        await emu('/emulator/v1/pricebook', { method: 'PUT', body: changed });
        try {
            await p.page.click('#launch');
            await p.page.waitForSelector('#banner.error:not([hidden])');
            const said = await p.page.locator('#banner').innerText();
            if (!/PreconditionFailed/.test(said) || !/Fix: /.test(said)) throw new Error(`banner: ${said}`);
            await p.page.waitForSelector('article.apply-doc[data-name=repriced][data-state=reviewed] .was');
            const fresh = await field(p.page, 'repriced', 'rate');
            const second = await p.page.locator('article.apply-doc[data-name=repriced]').getAttribute('data-etag');
            if (rate !== '$0.99/h' || fresh !== '$1.49/h' || second === first)
                throw new Error(`no fresh estimate: rate ${rate} -> ${fresh}, etag ${first} -> ${second}`);
            if (await exists(`${JOBS}/repriced`)) throw new Error('the refused launch created the Job');
            await shot(p.page, 'apply-pricebook-changed');
            await p.page.click('#launch');
            await p.page.waitForSelector('article.apply-doc[data-name=repriced][data-state=launched]');
            const launches = writes.filter((w) => w.method === 'PATCH' && !/dryRun/.test(w.url)).map((w) => w.headers['if-match']);
            if (launches.join() !== [first, second].join()) throw new Error(`If-Match sent: ${launches.join(', ')}`);
            await emu(`${JOBS}/repriced`);
            expectStatus(p, 412);
            clean(p);
            return `rate ${rate} -> ${fresh}: PreconditionFailed shown, etag ${first} -> ${second}, launched at the fresh one`;
        } finally {
            await emu('/emulator/v1/pricebook', { method: 'PUT', body: { ...book, version: undefined } }).catch(() => {});
            await p.context.close();
        }
    },
    // A file of two documents, loaded with the file input: each reviewed, its own estimate
    // (a Budget costs nothing to launch), nothing created; at a phone's width in the dark
    // scheme, the page does not scroll sideways.
    'apply-file': async () => {
        const p = await openConsole(browser, { hash: '#/apply', wait: '#manifest', viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
        const { readFileSync } = await import('node:fs');
        const budget = readFileSync(new URL('../../examples/budget.yaml', import.meta.url), 'utf8');
        await p.page.setInputFiles('#manifest-file', { name: 'two.yaml', mimeType: 'application/yaml',
                                                        buffer: Buffer.from(`${jobYaml('from-file')}---\n${budget}`) });
        await p.page.waitForSelector('article.apply-doc[data-state=reviewed] >> nth=1');
        const cards = await p.page.locator('article.apply-doc').evaluateAll((as) => as.map((a) => `${a.dataset.kind}/${a.dataset.name}`));
        const free = await p.page.locator('article.apply-doc[data-kind=Budget] .free').count();
        const expected = await field(p.page, 'from-file', 'expected');
        if (cards.join() !== 'Job/from-file,Budget/team-monthly' || free !== 1 || !/^\$/.test(expected))
            throw new Error(`cards ${cards.join()}, free ${free}, expected ${expected}`);
        if (!/name: from-file/.test(await p.page.inputValue('#manifest'))) throw new Error('the file is not in the text box');
        if (await exists(`${JOBS}/from-file`) || await exists('/apis/nodus.dev/v1/namespaces/default/budgets/team-monthly'))
            throw new Error('the review created an object');
        const m = await p.page.evaluate(() => ({ sw: document.documentElement.scrollWidth, w: innerWidth }));
        if (m.sw > m.w) throw new Error(`the page is ${m.sw}px wide in a ${m.w}px window`);
        await shot(p.page, 'apply-file');
        clean(p);
        await p.context.close();
        return `${cards.join(', ')} reviewed from the file (Job expected ${expected}, Budget free); nothing created`;
    },
    // A manifest with an error: its Status (reason, fix) on the page, nothing created.
    'apply-shows-status': async () => {
        const p = await openConsole(browser, { hash: '#/apply', wait: '#manifest' });
        await p.page.fill('#manifest', jobYaml('bad').replace('maxCostUSD: "20.00"', 'maxCostUSD: "20.00"\n  colour: blue'));
        await p.page.click('#review');
        await p.page.waitForSelector('article.apply-doc[data-state=error] .error');
        const said = await p.page.locator('article.apply-doc[data-name=bad]').innerText();
        if (!/Invalid|BadRequest/.test(said) || !/Fix: /.test(said)) throw new Error(`shown: ${said}`);
        if (!(await p.page.locator('#launch').isDisabled())) throw new Error('Launch is enabled after a failed review');
        await p.page.fill('#manifest', 'kind: [');
        await p.page.click('#review');
        await p.page.waitForSelector('#banner.error:not([hidden])');
        const parse = await p.page.locator('#banner').innerText();
        if (!/not YAML or JSON/.test(parse)) throw new Error(`parse error shown: ${parse}`);
        if (await exists(`${JOBS}/bad`)) throw new Error('a refused manifest created its Job');
        await shot(p.page, 'apply-shows-status');
        expectStatus(p, 400);
        expectStatus(p, 422);
        clean(p);
        await p.context.close();
        return `${said.split('\n').slice(1, 2).join(' ')}; ${parse.split('\n')[0]}`;
    },
    // Suspend then resume a Job from its page: spec.state changes, each reported.
    'suspend-resume': async () => {
        await emu(`${JOBS}`, { method: 'POST', body: { apiVersion: 'nodus.dev/v1', kind: 'Job', metadata: { name: 'pausable' },
            spec: { image: 'nodus/pytorch:2.8-cuda12.8', command: ['python', 'x.py'], maxCostUSD: '5.00' } } });
        const p = await openConsole(browser, { hash: '#/o/jobs/default/pausable', wait: '.action-bar button[data-action=suspend]' });
        const writes = recordWrites(p.page);
        await p.page.click('.action-bar button[data-action=suspend]');
        await p.page.waitForSelector('#banner.ok:not([hidden])');
        const s1 = (await emu(`${JOBS}/pausable`)).spec.state;
        await shot(p.page, 'suspend-resume');
        await p.page.waitForSelector('.action-bar button[data-action=resume]:not([disabled])');
        await p.page.click('.action-bar button[data-action=resume]');
        await until(async () => (await emu(`${JOBS}/pausable`)).spec.state === 'Running', 'spec.state Running');
        const sent = writes.map((w) => `${w.headers['content-type']} ${new URL(w.url).search}`);
        if (s1 !== 'Suspended') throw new Error(`after suspend spec.state is ${s1}`);
        if (!sent[0]?.startsWith('application/merge-patch+json ?fieldManager=nodus-suspend') || !/nodus-resume/.test(sent[1] || ''))
            throw new Error(`sent: ${sent.join(' | ')}`);
        clean(p);
        await p.context.close();
        return `Suspended, then Running; sent ${sent.join(' | ')}`;
    },
    // Request restart of a Sandbox: the annotation nodus.dev/restart-requested-at.
    'request-restart': async () => {
        await emu('/apis/nodus.dev/v1/namespaces/default/sandboxes', { method: 'POST', body: { apiVersion: 'nodus.dev/v1', kind: 'Sandbox',
            metadata: { name: 'box' }, spec: { image: 'nodus/pytorch:2.8-cuda12.8', maxCostUSD: '5.00' } } });
        const p = await openConsole(browser, { hash: '#/o/sandboxes/default/box', wait: '.action-bar button[data-action=request-restart]' });
        await p.page.click('.action-bar button[data-action=request-restart]');
        await p.page.waitForSelector('#banner.ok:not([hidden])');
        const at = (await emu('/apis/nodus.dev/v1/namespaces/default/sandboxes/box')).metadata.annotations?.['nodus.dev/restart-requested-at'];
        if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(at || '')) throw new Error(`annotation: ${at}`);
        await shot(p.page, 'request-restart');
        clean(p);
        await p.context.close();
        return `nodus.dev/restart-requested-at: ${at}`;
    },
    // Approve a pending PoolAction (a burst of work its Pool has no room for).
    'approve-poolaction': async () => {
        await emu('/apis/nodus.dev/v1/namespaces/default/pools', { method: 'POST', body: { apiVersion: 'nodus.dev/v1', kind: 'Pool',
            metadata: { name: 'spill' }, spec: { routing: { waitPolicy: 'Never', burstToMarket: 'Approve' } } } });
        await emu(JOBS, { method: 'POST', body: { apiVersion: 'nodus.dev/v1', kind: 'Job', metadata: { name: 'overflow' },
            spec: { image: 'nodus/pytorch:2.8-cuda12.8', command: ['python', 'x.py'], resources: { gpu: { model: 'H100', count: 1 } },
                    placement: { pool: 'spill' }, maxCostUSD: '10.00' } } });
        let pa;
        await until(async () => {
            pa = (await emu('/apis/nodus.dev/v1/poolactions')).items.find((o) => o.spec.pool === 'spill' && o.spec.decision === 'Pending');
            return pa;
        }, 'a pending PoolAction');
        const path = `/apis/nodus.dev/v1/namespaces/${pa.metadata.namespace}/poolactions/${pa.metadata.name}`;
        const p = await openConsole(browser, { hash: `#/o/poolactions/${pa.metadata.namespace}/${pa.metadata.name}`,
                                               wait: '.action-bar button[data-action=approve]:not([disabled])' });
        await p.page.click('.action-bar button[data-action=approve]');
        await p.page.waitForSelector('#banner.ok:not([hidden])');
        const decision = (await emu(path)).spec.decision;
        if (decision !== 'Approved') throw new Error(`decision ${decision}`);
        if (!(await p.page.locator('.action-bar button[data-action=reject]').isDisabled())) throw new Error('reject still offered');
        await shot(p.page, 'approve-poolaction');
        clean(p);
        await p.context.close();
        return `${pa.metadata.name}: Pending -> ${decision}`;
    },
    // Delete asks first: the dialog names the Pipeline's Jobs, Cancel deletes nothing,
    // Delete deletes it.
    'delete-asks-first': async () => {
        const { readFileSync } = await import('node:fs');
        const manifest = readFileSync(new URL('../../examples/workflow/04-pipeline.yaml', import.meta.url), 'utf8');
        const pipe = '/apis/nodus.dev/v1/namespaces/default/pipelines/nightly';
        await emu(`${pipe}?fieldManager=nodus`, { method: 'PATCH', body: manifest, headers: { 'Content-Type': 'application/apply-patch+yaml' } });
        const uid = (await emu(pipe)).metadata.uid;
        const owned = async () => (await emu(JOBS)).items.filter((j) => (j.metadata.ownerReferences || []).some((r) => r.uid === uid))
            .map((j) => j.metadata.name).sort();
        for (const d of ['21m', '1m']) // prep runs and ends; tune is made
            await emu('/emulator/v1/clock', { method: 'POST', body: { advance: d } });
        await until(async () => (await owned()).length >= 2, 'the Pipeline owning two Jobs');
        const jobs = await owned();
        const p = await openConsole(browser, { hash: '#/o/pipelines/default/nightly', wait: '.action-bar button[data-action=delete]' });
        const writes = recordWrites(p.page);
        await p.page.click('.action-bar button[data-action=delete]');
        await p.page.waitForSelector('dialog.confirm-delete[open] ul.dependents li');
        const named = (await p.page.locator('dialog.confirm-delete ul.dependents li').evaluateAll((ls) => ls.map((l) => l.dataset.name))).sort();
        if (named.join() !== jobs.join()) throw new Error(`the dialog names ${named.join()}; the Pipeline owns ${jobs.join()}`);
        if (!(await p.page.locator('dialog.confirm-delete input[value=Orphan]').count())) throw new Error('no orphan choice');
        await shot(p.page, 'delete-asks-first');
        await p.page.click('dialog.confirm-delete button:text-is("Cancel")');
        await p.page.waitForSelector('dialog.confirm-delete', { state: 'detached' });
        if (!(await p.page.evaluate(() => document.activeElement?.dataset?.action === 'delete')))
            throw new Error('the focus did not go back to Delete…');
        if (writes.length || !(await exists(pipe)) || (await owned()).length !== jobs.length)
            throw new Error(`Cancel deleted something (${writes.map((w) => w.method).join()})`);
        await p.page.click('.action-bar button[data-action=delete]');
        await p.page.waitForSelector('dialog.confirm-delete[open] ul.dependents li');
        await p.page.click('dialog.confirm-delete button.danger');
        await p.page.waitForSelector('#banner.ok:not([hidden])');
        const del = writes.find((w) => w.method === 'DELETE');
        if (!del || JSON.parse(del.req.postData() || '{}').propagationPolicy !== 'Background') throw new Error('no Background DELETE sent');
        await until(async () => !(await exists(pipe)) || Boolean((await emu(pipe)).metadata.deletionTimestamp), 'the Pipeline deleted');
        const banner = await p.page.locator('#banner').innerText();
        await shot(p.page, 'delete-confirmed');
        clean(p);
        await p.context.close();
        return `dialog named ${named.join(', ')}; Cancel kept them; Delete: ${banner.split('\n')[0]}`;
    },
};

await runScenarios(scenarios, {
    seconds: 40,
    before: async () => { browser = await launch(); },
    after: async () => { await browser?.close(); },
});
