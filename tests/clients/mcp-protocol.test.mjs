// The protocol core of nodus mcp under the official MCP client (@modelcontextprotocol/sdk),
// run by 03-mcp.bats against its emulator (EMU_URL, --runtime local) where the Job "slow"
// runs: it printed "started" and sleeps.
//
//   node mcp-protocol.test.mjs [--out DIR] [SCENARIO...]     (see mcp-lib.mjs)
//   node mcp-protocol.test.mjs --list
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { NODUS, connect, runScenarios, serverEnv } from './mcp-lib.mjs';

// A transport that asks for another protocol revision in initialize and keeps the one the
// server answered (the SDK itself always asks for its newest).
function asking(revision) {
    return (inner) => {
        const t = {
            revision: null,
            start: () => inner.start(),
            close: () => inner.close(),
            send: (msg, opts) => {
                if (msg.method === 'initialize')
                    msg = { ...msg, params: { ...msg.params, protocolVersion: revision } };
                return inner.send(msg, opts);
            },
            setProtocolVersion: (v) => { t.revision = v; },
            get pid() { return inner.pid; },
        };
        inner.onmessage = (m, extra) => t.onmessage?.(m, extra);
        inner.onclose = () => t.onclose?.();
        inner.onerror = (e) => t.onerror?.(e);
        return t;
    };
}

// One initialize for revision: the revision the server answered, and tools/list works in it.
async function initializeAs(revision) {
    const client = await connect([], {}, {}, asking(revision));
    try {
        const tools = await client.listTools();
        assert.ok(tools.tools.some((t) => t.name === 'logs'), 'no logs tool');
        assert.equal(client.getServerVersion().name, 'nodus');
        return `asked ${revision}, answered ${client.transport.revision}`;
    } finally {
        await client.close();
    }
}

// A raw session (JSON lines on a child's stdin and stdout), for what the SDK refuses to send.
function rawSession(lines) {
    return new Promise((resolve, reject) => {
        const child = spawn(NODUS, ['mcp'], { env: serverEnv(), stdio: ['pipe', 'pipe', 'ignore'] });
        let out = '';
        child.stdout.on('data', (d) => { out += d; });
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, answers: out.split('\n').filter(Boolean).map((l) => JSON.parse(l)) }));
        child.stdin.end(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    });
}

// The Status an isError result carries.
function status(result) {
    assert.equal(result.isError, true, `not an error: ${JSON.stringify(result)}`);
    const st = result.structuredContent && result.structuredContent.status;
    assert.ok(st, `no Status in structuredContent: ${JSON.stringify(result)}`);
    return st;
}

// The pids of pid's children (a running call is one).
function children(pid) {
    const found = [];
    for (const d of readdirSync('/proc')) {
        if (!/^\d+$/.test(d))
            continue;
        try {
            const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
            const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
            if (Number(fields[1]) === pid && fields[0] !== 'Z')
                found.push(Number(d));
        } catch {
            // gone meanwhile
        }
    }
    return found;
}

async function waitFor(what, fn, ms = 10000) {
    const end = Date.now() + ms;
    while (!fn()) {
        if (Date.now() > end)
            throw new Error(`still waiting for ${what} after ${ms} ms`);
        await new Promise((r) => setTimeout(r, 20));
    }
}

async function withClient(fn) {
    const client = await connect();
    try {
        return await fn(client);
    } finally {
        await client.close();
    }
}

const scenarios = {
    'initialize-2025-11-25': async () => {
        const said = await initializeAs('2025-11-25');
        assert.equal(said, 'asked 2025-11-25, answered 2025-11-25');
        return said;
    },
    'initialize-2025-06-18': async () => {
        const said = await initializeAs('2025-06-18');
        assert.equal(said, 'asked 2025-06-18, answered 2025-06-18');
        return said;
    },
    'initialize-2025-03-26': async () => {
        const said = await initializeAs('2025-03-26');
        assert.equal(said, 'asked 2025-03-26, answered 2025-03-26');
        return said;
    },
    'initialize-unknown': async () => {
        const { code, answers } = await rawSession([
            { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2099-01-01', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
            { jsonrpc: '2.0', method: 'notifications/initialized' },
            { jsonrpc: '2.0', id: 2, method: 'ping' },
        ]);
        assert.equal(code, 0);
        assert.equal(answers.length, 2);
        assert.equal(answers[0].result.protocolVersion, '2025-11-25');
        assert.deepEqual(answers[0].result.capabilities.logging, {});
        assert.deepEqual(answers[1], { jsonrpc: '2.0', id: 2, result: {} });
        return 'asked 2099-01-01, answered the newest, 2025-11-25';
    },
    ping: async () => withClient(async (client) => {
        assert.deepEqual(await client.ping(), {});
        // calls run in children: a ping is answered while a follow waits
        let followed = false;
        const follow = client.callTool({ name: 'logs', arguments: { name: 'slow', follow: true, followSeconds: 2 } })
            .then(() => { followed = true; });
        assert.deepEqual(await client.ping(), {});
        assert.equal(followed, false, 'the follow ended before the ping was answered');
        await follow;
        return 'ping answered {}, also while a 2 s follow runs';
    }),
    logging: async () => withClient(async (client) => {
        const seen = [];
        client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { seen.push(n.params); });
        const follow = { name: 'logs', arguments: { name: 'slow', follow: true, followSeconds: 1 } };
        await client.setLoggingLevel('debug');
        await client.callTool(follow);
        assert.equal(seen.length, 1, JSON.stringify(seen));
        assert.equal(seen[0].level, 'debug');
        assert.equal(seen[0].logger, 'logs');
        assert.match(seen[0].data, /following job\/slow for at most 1 s/);
        await client.setLoggingLevel('warning');
        await client.callTool(follow);
        assert.equal(seen.length, 1, `a debug line passed the warning level: ${JSON.stringify(seen)}`);
        await assert.rejects(client.setLoggingLevel('loud'), (e) => e.code === -32602);
        return `debug: "${seen[0].data}"; none at warning; "loud" is -32602`;
    }),
    'tools-list': async () => withClient(async (client) => {
        const { tools } = await client.listTools();
        const logs = tools.find((t) => t.name === 'logs');
        assert.ok(logs, `no logs tool in ${tools.map((t) => t.name)}`);
        for (const t of tools) {
            assert.equal(t.inputSchema.type, 'object', t.name);
            assert.equal(t.outputSchema.type, 'object', t.name);
            assert.equal(typeof t.title, 'string', t.name);
            assert.equal(typeof t.annotations.readOnlyHint, 'boolean', t.name);
        }
        assert.equal(logs.annotations.readOnlyHint, true);
        assert.deepEqual(logs.inputSchema.required, ['name']);
        // the SDK checks each structuredContent against the tool's outputSchema
        const got = await client.callTool({ name: 'get', arguments: { kind: 'jobs', name: 'slow', format: 'json' } });
        assert.equal(got.structuredContent.object.metadata.name, 'slow');
        const log = await client.callTool({ name: 'logs', arguments: { name: 'slow', tail: 5 } });
        assert.equal(log.content[0].text, 'started\n');
        assert.deepEqual(log.structuredContent, { kind: 'Job', name: 'slow', project: 'default', lines: 1 });
        return `${tools.map((t) => t.name).join(', ')}; get and logs answers match their outputSchema`;
    }),
    progress: async () => withClient(async (client) => {
        const seen = [];
        const r = await client.callTool({ name: 'logs', arguments: { name: 'slow', follow: true, followSeconds: 1 } },
            undefined, { onprogress: (p) => seen.push(p) });
        assert.ok(seen.length >= 1, 'no progress');
        assert.equal(seen[0].progress, 1);
        assert.equal(seen[0].message, 'log lines so far: 1');
        assert.equal(r.structuredContent.ended, 'followed for followSeconds');
        assert.equal(r.content[0].text, 'started\n[followed for followSeconds: call logs again with since to read on]\n');
        return `progress ${JSON.stringify(seen[0])}; ended: ${r.structuredContent.ended}`;
    }),
    cancellation: async () => withClient(async (client) => {
        const pid = client.transport.pid;
        const abort = new AbortController();
        let progressed;
        const first = new Promise((r) => { progressed = r; });
        const call = client.callTool({ name: 'logs', arguments: { name: 'slow', follow: true, followSeconds: 120 } },
            undefined, { signal: abort.signal, onprogress: () => progressed(), timeout: 300000 });
        await first;
        const running = children(pid);
        assert.equal(running.length, 1, `the call's child: ${running}`);
        const started = Date.now();
        abort.abort('enough');
        await assert.rejects(call);
        await waitFor('the call\'s child to go', () => children(pid).length === 0);
        const gone = Date.now() - started;
        assert.deepEqual(await client.ping(), {});
        const r = await client.callTool({ name: 'logs', arguments: { name: 'slow', tail: 1 } });
        assert.equal(r.content[0].text, 'started\n');
        return `aborted; the child ${running[0]} gone within ${gone < 1000 ? 'a second' : `${gone} ms`}; later calls answered`;
    }),
    errors: async () => withClient(async (client) => {
        const kind = status(await client.callTool({ name: 'get', arguments: { kind: 'jbos', name: 'x' } }));
        assert.equal(kind.reason, 'NotFound');
        assert.equal(kind.code, 404);
        assert.match(kind.fix, /did you mean jobs\?/);
        assert.match(kind.fix, /call api_resources/);
        const arg = status(await client.callTool({ name: 'logs', arguments: { nmae: 'slow' } }));
        assert.equal(arg.reason, 'BadRequest');
        assert.equal(arg.code, 400);
        assert.match(arg.message, /unknown argument "nmae": did you mean "name"\?/);
        const r = await client.callTool({ name: 'get', arguments: { kind: 'job', name: 'nothing-here' } });
        const missing = status(r);
        assert.equal(missing.reason, 'NotFound');
        assert.match(missing.requestId, /^req_/);
        assert.match(missing.fix, /call list/);
        assert.match(r.content[0].text, /requestId: req_/);
        assert.match(r.content[0].text, /reason: NotFound \(404\)/);
        const nolog = status(await client.callTool({ name: 'logs', arguments: { kind: 'volume', name: 'x' } }));
        assert.equal(nolog.reason, 'BadRequest');
        return `jbos: ${kind.reason} "${kind.fix}"; nmae: ${arg.reason} "${arg.message}"; ` +
            `missing: ${missing.reason} ${missing.requestId}; a volume's log: ${nolog.reason}`;
    }),
};

await runScenarios(scenarios);
