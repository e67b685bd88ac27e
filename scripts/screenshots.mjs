// The pictures of scripts/screenshots.sh (which starts the emulator, EMU_URL, and says
// what is in it): the console at a laptop's and a phone's width, written to OUT.
import { launch, openConsole, clean } from '../tests/clients/console-lib.mjs';

const shots = [
    { file: 'console.png', hash: '#/k/jobs', viewport: { width: 1280, height: 720 }, colorScheme: 'light' },
    { file: 'console-phone.png', hash: '#/k/jobs', viewport: { width: 390, height: 844 }, colorScheme: 'dark' },
];

const browser = await launch();
try {
    for (const s of shots) {
        const p = await openConsole(browser, { hash: s.hash, viewport: s.viewport, colorScheme: s.colorScheme });
        await p.page.waitForSelector('table.objects tr[data-name="train-a"]');
        await p.page.screenshot({ path: `${process.env.OUT}/${s.file}`, animations: 'disabled', caret: 'hide' });
        clean(p);
        await p.context.close();
        console.log(`${process.env.OUT}/${s.file}: ${s.viewport.width}x${s.viewport.height}, ${s.colorScheme}`);
    }
} finally {
    await browser.close();
}
