// nodus mcp over Streamable HTTP, driven by the official MCP client (@modelcontextprotocol/sdk,
// pinned in package.json): its StreamableHTTPClientTransport against `nodus mcp --listen`,
// started by 07-mcp-http.bats (MCP_URL: no token; MCP_TOKEN_URL: with MCP_TOKEN).
//
//   node mcp-http.test.mjs [--out DIR] [SCENARIO...]   (scenarios.mjs's runScenarios)
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { runScenarios, skip } from './mcp-lib.mjs';

const url = process.env.MCP_URL;
const tokenUrl = process.env.MCP_TOKEN_URL;
const token = process.env.MCP_TOKEN;
if ((!url || !tokenUrl || !token) && process.argv[2] !== '--list') {
    console.error('MCP_URL, MCP_TOKEN_URL and MCP_TOKEN are not set: 07-mcp-http.bats sets them');
    process.exit(2);
}

// A connected client (its transport with the given fetch options).
async function connect(to = url, requestInit = undefined) {
    const transport = new StreamableHTTPClientTransport(new URL(to), { requestInit });
    const client = new Client({ name: 'nodus-http-test', version: '1.0.0' });
    await client.connect(transport);
    return { client, transport };
}

// The error a promise fails with (it must fail).
async function failure(promise) {
    try {
        await promise;
    } catch (err) {
        return err;
    }
    throw new Error('it succeeded, and should have failed');
}

const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const post = (to, body, headers = {}) =>
    fetch(to, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) });

let shared = null; // one session for the read scenarios
const session = async () => (shared ??= await connect());

const scenarios = {
    async initialize() {
        const { client, transport } = await session();
        const info = client.getServerVersion();
        assert.equal(info.name, 'nodus');
        assert.match(transport.sessionId, /^[0-9a-f]{32}$/);
        assert.equal(transport.protocolVersion, '2025-11-25');
        return `server ${info.name}, revision ${transport.protocolVersion}, a session id of 32 hex digits`;
    },

    async 'tools-list'() {
        const { client } = await session();
        const { tools } = await client.listTools();
        const names = tools.map((t) => t.name);
        assert.ok(names.includes('get') && names.includes('describe'), names.join(' '));
        return `${tools.length} tools, get and describe among them`;
    },

    async 'call-get'() {
        const { client } = await session();
        const r = await client.callTool({ name: 'get', arguments: { kind: 'project', name: 'default' } });
        assert.ok(!r.isError, JSON.stringify(r));
        assert.equal(r.structuredContent.object.metadata.name, 'default');
        assert.match(r.content[0].text, /^kind: Namespace$/m);
        return 'get project default: structuredContent.object and its YAML';
    },

    async 'call-describe'() {
        const { client } = await session();
        const r = await client.callTool({ name: 'describe', arguments: { kind: 'project', name: 'default' } });
        assert.ok(!r.isError, JSON.stringify(r));
        assert.match(r.content[0].text, /^Name: +default$/m);
        return 'describe project default: the text of nodus describe';
    },

    async progress() {
        const { client } = await session();
        const { tools } = await client.listTools();
        if (!tools.some((t) => t.name === 'logs'))
            return skip('no tool on this build sends progress (the logs tool is not in tools/list)');
        const seen = [];
        const r = await client.callTool(
            { name: 'logs', arguments: { kind: 'job', name: process.env.MCP_JOB, follow: true, followSeconds: 1 } },
            undefined, { onprogress: (p) => seen.push(p) });
        assert.ok(!r.isError, JSON.stringify(r));
        assert.ok(seen.length >= 1, 'no notifications/progress came on the stream');
        return `${seen.length} progress notifications on the call's stream, then its answer`;
    },

    async 'cancel-ends-stream'() {
        const { transport } = await session();
        // the emulator holds the call's GET for 8 s (one request): cancelled, it ends at once
        const fault = await fetch(`${process.env.EMU_URL}/emulator/v1/faults`, {
            method: 'POST', headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ path: '/jobs/slowpoke$', verb: 'GET', status: 0, delayMs: 8000, count: 1 }),
        });
        assert.equal(fault.status, 201);
        const headers = { 'Mcp-Session-Id': transport.sessionId, 'MCP-Protocol-Version': transport.protocolVersion };
        const started = Date.now();
        const call = await post(url, { jsonrpc: '2.0', id: 'slow', method: 'tools/call',
            params: { name: 'get', arguments: { kind: 'job', name: 'slowpoke' } } }, headers);
        assert.equal(call.status, 200);
        assert.equal(call.headers.get('content-type'), 'text/event-stream');
        const cancel = await post(url, { jsonrpc: '2.0', method: 'notifications/cancelled',
            params: { requestId: 'slow', reason: 'test' } }, headers);
        assert.equal(cancel.status, 202);
        const text = await call.text(); // the stream's end
        const ms = Date.now() - started;
        assert.ok(ms < 6000, `the stream ended after ${ms} ms, not at the cancel`);
        assert.doesNotMatch(text, /"result"|"error"/);
        return 'the cancelled call\'s stream ended at once, without an answer';
    },

    async 'get-stream'() {
        const { transport } = await session();
        const ac = new AbortController();
        const res = await fetch(url, {
            headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': transport.sessionId },
            signal: ac.signal,
        });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'text/event-stream');
        ac.abort();
        return 'GET with the session id opens its text/event-stream';
    },

    async 'session-required'() {
        const list = { jsonrpc: '2.0', id: 7, method: 'tools/list' };
        const none = await post(url, list);
        assert.equal(none.status, 400);
        const body = await none.json();
        assert.equal(body.error.data.status.reason, 'BadRequest');
        const unknown = await post(url, list, { 'Mcp-Session-Id': '0'.repeat(32) });
        assert.equal(unknown.status, 404);
        return 'without Mcp-Session-Id 400 BadRequest, with an unknown one 404';
    },

    async 'delete-ends-session'() {
        const { client, transport } = await connect();
        const sid = transport.sessionId;
        // its GET stream ends with the session
        const stream = await fetch(url, { headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': sid } });
        assert.equal(stream.status, 200);
        await transport.terminateSession();
        const reader = stream.body.getReader();
        for (;;) {
            const { done } = await reader.read();
            if (done)
                break;
        }
        const after = await post(url, { jsonrpc: '2.0', id: 8, method: 'tools/list' }, { 'Mcp-Session-Id': sid });
        assert.equal(after.status, 404);
        await client.close();
        return 'DELETE ended the session: its GET stream closed, its id is then 404';
    },

    async 'bad-origin'() {
        const err = await failure(connect(url, { headers: { Origin: 'http://evil.example' } }));
        assert.match(String(err), /403/);
        const res = await post(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { Origin: 'http://evil.example' });
        assert.equal(res.status, 403);
        const body = await res.json();
        assert.equal(body.error.data.status.reason, 'Forbidden');
        assert.match(body.error.message, /origin http:\/\/evil\.example/);
        return 'a page\'s Origin is 403 Forbidden, for the client and for a raw POST';
    },

    async token() {
        const none = await failure(connect(tokenUrl));
        assert.match(String(none), /401/);
        const wrong = await failure(connect(tokenUrl, { headers: { Authorization: `Bearer ${token}x` } }));
        assert.match(String(wrong), /401/);
        const { client } = await connect(tokenUrl, { headers: { Authorization: `Bearer ${token}` } });
        const { tools } = await client.listTools();
        assert.ok(tools.length > 0);
        await client.close();
        return 'no token 401, a wrong one 401, the right one serves';
    },
};

await runScenarios(scenarios, {
    seconds: 15,
    async after() {
        if (shared)
            await shared.client.close();
    },
});
