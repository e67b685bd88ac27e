// What the MCP test scripts of tests/clients share (mcp-*.test.mjs, run by 03..07-*.bats):
// starting `nodus mcp` under the official client, and the runner that writes one result
// line per scenario for tests/lib/clients.bash's `scenario`.
//
//   connect(args, env)       a Client of @modelcontextprotocol/sdk connected (initialized)
//                            to `nodus mcp ARGS...` over stdio, against the bats file's
//                            emulator (NODUS_SERVER=$EMU_URL); env adds to or overrides the
//                            environment (a value undefined removes a variable). The
//                            server's stderr is kept: client.stderrText() returns it.
//                            client.transport.pid is the server's pid. Close with
//                            client.close(). connect(args, env, clientOptions, wrap):
//                            the Client's options, and wrap(transport) returning the
//                            transport the Client uses (to watch or change messages).
//   runScenarios(scenarios)  the script's main: `node X.test.mjs --list` prints the
//                            scenarios' names; `node X.test.mjs [--out DIR] [NAME...]` runs
//                            them (all, in order, without names), each at most 30 s, and
//                            writes "ok NAME: <what it returned>" or "FAILED NAME: <why>"
//                            to DIR/NAME.out and stdout (stderr when failed). Exits 1 when
//                            one failed.
import { writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

// The nodus of the bats file's tree (common.bash puts ND_BIN_DIR first on PATH).
export const NODUS = process.env.ND_BIN_DIR ? `${process.env.ND_BIN_DIR}/nodus` : 'nodus';

// The environment `nodus mcp` runs with: this process's, pointed at the emulator, with no
// user configuration that could point it elsewhere.
export function serverEnv(env = {}) {
    const e = { ...process.env };
    for (const k of ['NODUS_TOKEN', 'NODUS_CONFIG', 'KUBECONFIG', 'NODUS_TRACE', 'NO_COLOR'])
        delete e[k];
    if (process.env.EMU_URL)
        e.NODUS_SERVER = process.env.EMU_URL;
    for (const [k, v] of Object.entries(env)) {
        if (v === undefined)
            delete e[k];
        else
            e[k] = v;
    }
    return e;
}

export async function connect(args = [], env = {}, clientOptions = {}, wrap = (t) => t) {
    const transport = new StdioClientTransport({
        command: NODUS,
        args: ['mcp', ...args],
        env: serverEnv(env),
        stderr: 'pipe',
    });
    let said = '';
    transport.stderr.on('data', (chunk) => { said += chunk; });
    const client = new Client({ name: 'nodus-tests', version: '1.0.0' }, clientOptions);
    client.stderrText = () => said;
    await client.connect(wrap(transport));
    return client;
}

// Runs one scenario, at most 30 s; its line: "ok NAME: ..." or "FAILED NAME: ...".
async function runOne(scenarios, name) {
    let timer;
    try {
        const said = await Promise.race([scenarios[name](), new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error('timed out after 30 s')), 30000);
        })]);
        return [true, `ok ${name}: ${said}`];
    } catch (err) {
        return [false, `FAILED ${name}: ${err && err.stack ? err.stack : err}`];
    } finally {
        clearTimeout(timer);
    }
}

export async function runScenarios(scenarios) {
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
    const chosen = args.length ? args : Object.keys(scenarios);
    const unknown = chosen.filter((n) => !scenarios[n]);
    if (unknown.length) {
        console.error(`no scenario ${unknown.join(' ')}; they are: ${Object.keys(scenarios).join(' ')}`);
        process.exit(2);
    }
    let failed = 0;
    for (const name of chosen) {
        const [ok, line] = await runOne(scenarios, name);
        if (!ok)
            failed++;
        if (out)
            writeFileSync(`${out}/${name}.out`, line + '\n');
        (ok ? console.log : console.error)(line);
    }
    process.exit(failed ? 1 : 0);
}
