// The console's terminal (terminal.js) in a real browser (Debian's chromium, headless,
// driven by playwright-core), run once by 12-console-exec.bats against its emulators:
// EMU_URL (no tokens) and TOKEN_URL (--token-file; TOKEN a token it knows), each with
// the Sandbox dev of examples/workflow/05-sandbox.yaml Running. Each scenario saves a
// screenshot in SHOTS.
import { runScenarios } from './scenarios.mjs';
import { launch, openConsole, clean, shot } from './console-lib.mjs';

let browser;
const PAGE = '#/o/sandboxes/default/dev?tab=terminal'; // the object page's Terminal tab

// Types line into the terminal and waits until its output has a line matching want (after
// the shell's prompt, "# ", when the line was typed before the prompt came: a new session's
// shell prints it once it is up).
async function run(page, line, want) {
    want = new RegExp(want.source.replace(/^\^/, '^(?:# )?'));
    await page.fill('.term-input', line);
    await page.press('.term-input', 'Enter');
    try {
        await page.waitForFunction((re) => new RegExp(re, 'm').test(document.querySelector('.term-screen').textContent),
                                   want.source, { timeout: 10000 });
    } catch (err) {
        const screen = await page.locator('.term-screen').textContent();
        const status = await page.locator('.term-status').textContent();
        throw new Error(`no line ${want} after ${line}: the screen is ${JSON.stringify(screen)}, the status ${JSON.stringify(status)}`);
    }
}

// Opens dev's terminal (on url, with token in sessionStorage when given), runs the
// command of the issue, and returns {p, screen}.
async function hello(url, token, more = {}) {
    const p = await openConsole(browser, { url: `${url}/`, hash: PAGE, token, wait: '.term-input:not([disabled])', ...more });
    await run(p.page, 'echo hello-$((6*7))', /^hello-42\s*$/);
    return { p, screen: await p.page.locator('.term-screen').innerText() };
}

const scenarios = {
    // The Sandbox's terminal runs a command typed in it; exit shows the command's status,
    // Reconnect opens a new session, and the arrows bring back what was typed.
    'terminal-runs': async () => {
        const { p } = await hello(process.env.EMU_URL);
        await run(p.page, '[ -t 0 ] && echo "$TERM-terminal"', /^xterm-terminal\s*$/);
        await p.page.fill('.term-input', 'exit 3');
        await p.page.press('.term-input', 'Enter');
        await p.page.waitForSelector('button:text("Reconnect"):visible', { timeout: 10000 });
        const said = await p.page.locator('.term-status').textContent();
        if (said !== 'The command exited with status 3.') throw new Error(`the status line: ${said}; the screen: ${JSON.stringify(await p.page.locator('.term-screen').textContent())}`);
        const disabled = await p.page.locator('.term-input').isDisabled();
        if (!disabled) throw new Error('the input line is still on after the session ended');
        await shot(p.page, 'terminal-exited');
        await p.page.click('button:text("Reconnect")');
        await p.page.waitForSelector('.term-input:not([disabled])');
        await p.page.press('.term-input', 'ArrowUp');
        await p.page.press('.term-input', 'ArrowUp');
        await p.page.press('.term-input', 'ArrowUp');
        const recalled = await p.page.inputValue('.term-input');
        if (recalled !== 'echo hello-$((6*7))') throw new Error(`history: ${recalled}`);
        await run(p.page, 'echo again-$((40+2))', /^again-42\s*$/);
        await shot(p.page, 'terminal-runs');
        clean(p);
        await p.context.close();
        return 'hello-42 printed, exit 3 shown, reconnected, history recalled';
    },
    // With tokens on, the terminal works with the tab's token: a browser's WebSocket
    // cannot carry Authorization, so it goes as the bearer subprotocol. At a phone's
    // width in the dark scheme, the page does not scroll sideways.
    'terminal-token': async () => {
        const { p } = await hello(process.env.TOKEN_URL, process.env.TOKEN,
                                  { viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
        const stored = await p.page.evaluate(() => sessionStorage.getItem('nodus-token'));
        if (stored !== process.env.TOKEN) throw new Error('the token is not in sessionStorage');
        await run(p.page, 'echo a-long-line-$(printf "%060d" 0)', /^a-long-line-0{60}\s*$/);
        const m = await p.page.evaluate(() => ({ sw: document.documentElement.scrollWidth, w: innerWidth }));
        if (m.sw > m.w) throw new Error(`the page is ${m.sw}px wide in a ${m.w}px window`);
        await shot(p.page, 'terminal-token');
        // (console-lib's EMU_URL is the other emulator: this one is not outside)
        clean({ ...p, outside: p.outside.filter((u) => !u.startsWith(`${process.env.TOKEN_URL}/`) &&
                                                       !u.startsWith(`${process.env.TOKEN_URL.replace(/^http/, 'ws')}/`)) });
        await p.context.close();
        return `hello-42 printed on the emulator with tokens; ${m.sw}px wide in ${m.w}px`;
    },
};

await runScenarios(scenarios, {
    seconds: 40,
    before: async () => { browser = await launch(); },
    after: async () => { await browser?.close(); },
});
