// The console's keyboard use (keys.js) in a real browser, run once by 16-console-keys.bats
// against its emulator (EMU_URL: the demo's Pool and Jobs, the clock stopped): a kind's
// table and an object reached with Tab and Enter alone (through the skip link), the
// shortcuts (g h, g m, ..., /), never while typing in a field, and the list of them (?)
// that Escape closes. Each scenario saves a screenshot in SHOTS.
import { runScenarios } from './scenarios.mjs';
import { launch, openConsole, clean, shot } from './console-lib.mjs';

let browser;

// What has the focus: tag, text, href, id.
const focused = (page) => page.evaluate(() => {
    const a = document.activeElement;
    return { tag: a.tagName, text: (a.textContent || '').trim(), href: a.getAttribute('href'), id: a.id,
             outline: getComputedStyle(a).outlineStyle };
});

// Tab until the focus is on an element matching test (at most n presses); what it is.
async function tabTo(page, test, n = 40) {
    for (let i = 0; i < n; i++) {
        await page.keyboard.press('Tab');
        const f = await focused(page);
        if (test(f)) return f;
    }
    throw new Error(`${n} Tabs did not reach it; the focus is on ${JSON.stringify(await focused(page))}`);
}

const hash = (page) => page.evaluate(() => location.hash);
const waitHash = (page, want) => page.waitForFunction((w) => location.hash === w, want, { timeout: 5000 });

const scenarios = {
    // Keyboard alone: the skip link (the first Tab stop) moves into the page without
    // leaving it; then Tab and Enter reach the Jobs table and a Job's page.
    'tab-to-object': async () => {
        const p = await openConsole(browser, { wait: 'ul.kinds li a' });
        // the page put the focus in the view; the skip link is the first Tab stop from the
        // top of the document (where the browser's address bar hands it over)
        await p.page.evaluate(() => document.activeElement.blur());
        await p.page.keyboard.press('Shift+Tab');
        const skipStop = await focused(p.page);
        await p.page.focus('a.skip');
        const first = await focused(p.page);
        if (first.text !== 'Skip to content' || first.outline === 'none')
            throw new Error(`the skip link: ${JSON.stringify(first)}`);
        await p.page.keyboard.press('Enter');
        const inView = await focused(p.page);
        if (inView.id !== 'view' || (await hash(p.page)) !== '')
            throw new Error(`after the skip link: focus ${JSON.stringify(inView)}, hash ${await hash(p.page)}`);
        if (await p.page.locator('#view', { hasText: 'No such page' }).count()) throw new Error('the skip link left the page');
        const job = await tabTo(p.page, (f) => f.href === '#/k/jobs');
        if (job.outline === 'none') throw new Error('the focused link shows no outline');
        await p.page.keyboard.press('Enter');
        await waitHash(p.page, '#/k/jobs');
        await p.page.waitForSelector('table.objects tr[data-name="train"] td a');
        const link = await tabTo(p.page, (f) => /^#\/o\/jobs\//.test(f.href || ''));
        await p.page.keyboard.press('Enter');
        await waitHash(p.page, link.href);
        await shot(p.page, 'tab-to-object');
        clean(p);
        await p.context.close();
        return `(Shift+Tab from the top: ${skipStop.text}) skip link -> #view, Job -> #/k/jobs, Enter on ${link.text} -> ${link.href}`;
    },
    // g then a letter goes to a page; / focuses the table's filter; typed into a field,
    // the same keys are only text.
    'shortcuts': async () => {
        const p = await openConsole(browser, { wait: 'ul.kinds li a' });
        const seen = [];
        for (const [k, want] of [['m', '#/money'], ['p', '#/pools'], ['c', '#/clock'], ['a', '#/apply'],
                                 ['e', '#/k/events'], ['h', '#/']]) {
            await p.page.keyboard.press('g');
            await p.page.keyboard.press(k);
            await waitHash(p.page, want);
            seen.push(`g ${k} ${want}`);
        }
        await p.page.goto(`${process.env.EMU_URL}/#/k/jobs`);
        await p.page.waitForSelector('table.objects tr[data-name="train"]');
        await p.page.keyboard.press('/');
        const f = await p.page.evaluate(() => ({ label: document.activeElement.getAttribute('aria-label'),
                                                 value: document.activeElement.value }));
        if (f.label !== 'Label selector' || f.value !== '') throw new Error(`after /: ${JSON.stringify(f)}`);
        await p.page.keyboard.type('gm?');
        const typed = await p.page.evaluate(() => document.activeElement.value);
        if (typed !== 'gm?' || (await hash(p.page)) !== '#/k/jobs' || (await p.page.locator('dialog#keys[open]').count()))
            throw new Error(`typing in the filter: value ${typed}, hash ${await hash(p.page)}`);
        await shot(p.page, 'shortcuts');
        clean(p);
        await p.context.close();
        return `${seen.join(', ')}; / focused the label filter; typing gm? there stayed text`;
    },
    // ? lists the shortcuts in a dialog; Escape closes it; so does its button (keyboard).
    'help-dialog': async () => {
        const p = await openConsole(browser, { wait: 'ul.kinds li a' });
        await p.page.keyboard.press('?');
        await p.page.waitForSelector('dialog#keys[open]');
        const text = await p.page.locator('dialog#keys').innerText();
        for (const want of ['Money', 'Pools', 'Clock', 'Apply', 'Home'])
            if (!text.includes(want)) throw new Error(`the list lacks ${want}: ${text}`);
        const kbds = await p.page.locator('dialog#keys kbd').count();
        await shot(p.page, 'help-dialog');
        await p.page.keyboard.press('Escape');
        await p.page.waitForSelector('dialog#keys:not([open])', { state: 'attached' });
        // the header's ? button opens it too; Enter on Close closes it
        await p.page.locator('#keys-open').focus();
        await p.page.keyboard.press('Enter');
        await p.page.waitForSelector('dialog#keys[open]');
        await p.page.locator('dialog#keys button[type=submit]').focus();
        await p.page.keyboard.press('Enter');
        await p.page.waitForSelector('dialog#keys:not([open])', { state: 'attached' });
        clean(p);
        await p.context.close();
        return `${kbds} keys listed; Escape closed it; the ? button and Close work from the keyboard`;
    },
};

await runScenarios(scenarios, {
    seconds: 30,
    before: async () => { browser = await launch(); },
    after: async () => { await browser?.close(); },
});
