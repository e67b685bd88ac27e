// The runner of the node scripts of the client matrix (client-node.test.mjs and the
// mcp-*.test.mjs, run by tests/clients/*.bats): one result line per scenario for
// tests/lib/clients.bash's `scenario`. Without the MCP SDK, so client-node's script
// does not load it (mcp-lib.mjs re-exports it).
//
//   runScenarios(scenarios, {before, after, seconds})
//       the script's main: `node X.test.mjs --list` prints the scenarios' names;
//       `node X.test.mjs [--out DIR] [NAME...]` runs them (all, in order, without names),
//       each at most `seconds` (30), and writes "ok NAME: <what it returned>",
//       "skip NAME: <why>" (it returned skip(why)) or "FAILED NAME: <why>" to DIR/NAME.out
//       and stdout (stderr when failed), and the names to DIR/scenarios.list. before() runs first (a failure fails every
//       scenario), after() last, with DIR. Exits 1 when one failed.
//   skip(why)   what a scenario returns when it cannot run here
import { writeFileSync } from 'node:fs';

const SKIP = Symbol('skip');
export const skip = (why) => ({ [SKIP]: why });

// Runs one scenario; its line.
async function runOne(scenarios, name, seconds) {
    let timer;
    try {
        const said = await Promise.race([scenarios[name](), new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`timed out after ${seconds} s`)), seconds * 1000);
        })]);
        if (said && said[SKIP])
            return [true, `skip ${name}: ${said[SKIP]}`];
        return [true, `ok ${name}: ${said}`];
    } catch (err) {
        return [false, `FAILED ${name}: ${err && err.stack ? err.stack : err}`];
    } finally {
        clearTimeout(timer);
    }
}

export async function runScenarios(scenarios, { before, after, seconds = 30 } = {}) {
    const args = process.argv.slice(2);
    if (args[0] === '--list') {
        console.log(Object.keys(scenarios).join('\n'));
        process.exit(0);
    }
    let out = null;
    if (args[0] === '--out') {
        out = args[1];
        args.splice(0, 2);
    }
    if (!process.env.EMU_URL) {
        console.error('EMU_URL is not set: the bats file starts the emulator and sets it');
        process.exit(2);
    }
    if (out) // for the bats file's check that each has its test
        writeFileSync(`${out}/scenarios.list`, Object.keys(scenarios).join('\n') + '\n');
    const chosen = args.length ? args : Object.keys(scenarios);
    const unknown = chosen.filter((n) => !scenarios[n]);
    if (unknown.length) {
        console.error(`no scenario ${unknown.join(' ')}; they are: ${Object.keys(scenarios).join(' ')}`);
        process.exit(2);
    }
    let failed = 0, broken = null;
    try {
        await before?.();
    } catch (err) {
        broken = err;
    }
    for (const name of chosen) {
        const [ok, line] = broken ? [false, `FAILED ${name}: the set-up failed: ${broken.stack}`]
            : await runOne(scenarios, name, seconds);
        if (!ok)
            failed++;
        if (out)
            writeFileSync(`${out}/${name}.out`, line + '\n');
        (ok ? console.log : console.error)(line);
    }
    await after?.(out);
    process.exit(failed ? 1 : 0);
}
