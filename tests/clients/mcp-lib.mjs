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
//   runScenarios, skip       the runner of scenarios.mjs (one result line per scenario)
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export { runScenarios, skip } from './scenarios.mjs';

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
