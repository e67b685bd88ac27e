// docs/mcp.md, checked under the official MCP client (@modelcontextprotocol/sdk): the host
// registrations it gives start `nodus mcp` as written, and each tool example it shows
// still answers what it shows. Run by 09-mcp-docs.bats against its emulator (three Jobs of
// examples/job.yaml running ten minutes, as the page says).
//
//   node mcp-docs.test.mjs [--out DIR] [SCENARIO...]   (mcp-lib.mjs's runScenarios)
//
// The page marks an example with an HTML comment a reader does not see:
//   <!-- mcp-example: TOOL [given NAME] [FLAG...] [ARGS-JSON] -->
// followed by fenced blocks separated by blank lines only: the call's arguments (a json
// block, unless ARGS-JSON is in the comment), then its answer: a text block is the text
// content, a json block the structuredContent. A line `...` in a text block stands for
// any lines; `, ...]` in JSON for more elements, `{"...": "..."}` for any value. An
// argument "...the same..." is the previous call's value (of the same tool); an `etag`
// argument is the etag of the last review. FLAGs are those of the `nodus mcp` that
// answers (--allow-exec when none), NAME what GIVEN makes first. Compared after masking
// what differs from run to run (times, ages, requestIds, ports, etags, continue tokens)
// and the padding between columns. Every json block of the sections run is an example.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { NODUS, connect, runScenarios, serverEnv } from './mcp-lib.mjs';

const PAGE = new URL('../../docs/mcp.md', import.meta.url);
const lines = readFileSync(PAGE, 'utf8').split('\n');
const EMU = process.env.EMU_URL;
const API = '/apis/nodus.dev/v1/namespaces/default';
let BLOCKS;

// The fenced blocks of the page: {lang, text, line (1-based, the fence's), marker, section}.
function blocks() {
    const out = [];
    let marker = null, section = '';
    for (let i = 0; i < lines.length; i++) {
        const l = lines[i];
        const h = l.match(/^## (.*)/);
        if (h)
            section = h[1];
        const m = l.match(/^<!-- mcp-example: (\S+)\s*(.*?)\s*-->$/);
        if (m) {
            const brace = m[2].indexOf('{');
            const words = (brace < 0 ? m[2] : m[2].slice(0, brace)).split(/\s+/).filter(Boolean);
            const given = words[0] === 'given' ? words.splice(0, 2)[1] : undefined;
            marker = { tool: m[1], given, flags: words, line: i + 1,
                args: brace < 0 ? undefined : JSON.parse(m[2].slice(brace)) };
            continue;
        }
        const f = l.match(/^(\s*)```(\S*)\s*$/);
        if (!f)
            continue;
        const body = [];
        const start = i;
        for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]); i++)
            body.push(lines[i].slice(f[1].length));
        // a block belongs to the marker above it while only blank lines separate them
        const prev = out[out.length - 1];
        const follows = prev && prev.marker && lines.slice(prev.end + 1, start).every((x) => !x.trim());
        out.push({ lang: f[2], text: body.join('\n'), line: start + 1, end: i, section,
            marker: marker || (follows ? prev.marker : null) });
        marker = null;
    }
    return out;
}

// The examples: {tool, args, text?, json?, line}, in the page's order.
function examples() {
    const ex = [];
    for (const b of BLOCKS) {
        if (!b.marker)
            continue;
        let e = ex[ex.length - 1];
        if (!e || e.marker !== b.marker) {
            e = { ...b.marker, marker: b.marker };
            ex.push(e);
            if (e.args === undefined) {
                assert.equal(b.lang, 'json', `docs/mcp.md:${b.line}: the call's arguments`);
                e.args = JSON.parse(b.text);
                continue;
            }
        }
        if (b.lang === 'text')
            e.text = b.text;
        else
            e.json = JSON.parse(b.text.replace(/,\s*\.\.\.\s*\]/g, ', "..."]').replace(/\[\s*\.\.\.\s*,/g, '["...",'));
    }
    return ex;
}

// What differs from run to run, and the padding between columns.
const mask = (s) => s
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, 'TIME')
    .replace(/req_[0-9a-z]+/g, 'REQ')
    .replace(/(127\.0\.0\.1|localhost):\d+/g, '$1:PORT')
    .replace(/[0-9a-f]{16}-\d+/g, 'ETAG')
    .replace(/eyJ[A-Za-z0-9_=-]+/g, 'TOKEN')
    .replace(/\b(\d+[smhd])+\b/g, 'AGE')
    .replace(/[ \t]+/g, ' ')
    .trimEnd();

function sameText(shown, got, where) {
    const want = shown.split('\n').map(mask);
    const have = got.split('\n').map(mask);
    while (have.length && have[have.length - 1] === '')
        have.pop();
    const fits = (w, h) => {
        if (w === want.length)
            return h === have.length;
        if (want[w] === '...') {
            for (let k = h; k <= have.length; k++)
                if (fits(w + 1, k))
                    return true;
            return false;
        }
        return h < have.length && want[w] === have[h] && fits(w + 1, h + 1);
    };
    assert.ok(fits(0, 0), `${where}: the text differs\n--- shown\n${shown}\n--- answered\n${got}`);
}

// The fields the page shows are those of the answer (the answer may hold more).
function sameJson(shown, got, path) {
    if (shown === '...')
        return;
    if (Array.isArray(shown) && shown.slice(0, -1).includes('...')) {
        // [..., X, ...]: X and the others shown stand in that order among the elements
        assert.ok(Array.isArray(got), `${path}: not an array: ${JSON.stringify(got)}`);
        let at = 0;
        for (const [i, want] of shown.entries()) {
            if (want === '...')
                continue;
            const fits = (g) => { try { sameJson(want, g, path); return true; } catch { return false; } };
            while (at < got.length && !fits(got[at]))
                at++;
            assert.ok(at < got.length, `${path}: no element like the page's [${i}] ${JSON.stringify(want)}`);
            at++;
        }
    } else if (Array.isArray(shown)) {
        assert.ok(Array.isArray(got), `${path}: not an array: ${JSON.stringify(got)}`);
        const more = shown[shown.length - 1] === '...';
        const n = more ? shown.length - 1 : shown.length;
        assert.ok(more ? got.length >= n : got.length === n,
            `${path}: ${got.length} elements, the page shows ${n}${more ? ' and more' : ''}`);
        for (let i = 0; i < n; i++)
            sameJson(shown[i], got[i], `${path}[${i}]`);
    } else if (shown && typeof shown === 'object') {
        if ('...' in shown)
            return;
        assert.ok(got && typeof got === 'object', `${path}: not an object: ${JSON.stringify(got)}`);
        for (const k of Object.keys(shown))
            sameJson(shown[k], got[k], `${path}.${k}`);
    } else if (typeof shown === 'string' && typeof got === 'string') {
        assert.equal(mask(got), mask(shown), `${path}`);
    } else {
        assert.deepEqual(got, shown, `${path}`);
    }
}

async function emu(method, path, body) {
    const r = await fetch(EMU + path, { method, body: body && JSON.stringify(body),
        headers: body ? { 'Content-Type': 'application/json' } : {} });
    assert.ok(r.ok, `${method} ${path}: ${r.status} ${await r.text()}`);
}

// What a write example needs first, made before the first example that names it (in its
// arguments' name, or as its tool) runs.
const GIVEN = {
    async dev(c) { // a running Sandbox dev, and the Volume it mounts
        const manifest = ['volume.yaml', 'sandbox.yaml'].map((f) =>
            readFileSync(new URL(`../../examples/${f}`, import.meta.url), 'utf8')).join('---\n');
        const rev = await c.callTool({ name: 'apply', arguments: { manifest } });
        await c.callTool({ name: 'apply', arguments: { manifest, etag: rev.structuredContent.etag } });
        await emu('POST', '/emulator/v1/clock', { advance: '1m' });
    },
    async 'reclaim-h1'() {
        await emu('POST', `${API}/pools`, { apiVersion: 'nodus.dev/v1', kind: 'Pool', metadata: { name: 'lab' }, spec: {} });
        await emu('POST', `${API}/poolactions`, { apiVersion: 'nodus.dev/v1', kind: 'PoolAction',
            metadata: { name: 'reclaim-h1' },
            spec: { pool: 'lab', action: 'IdleReclaim', target: 'host/h1', reason: 'idle for 2h', decision: 'Pending' } });
    },
    async exec() { // dev runs again after its restart (the request example)
        await emu('POST', '/emulator/v1/clock', { advance: '1m' });
    },
    async 'no-train'() { // the Job train is gone (it was launched), so apply creates it
        await fetch(`${EMU}${API}/jobs/train`, { method: 'DELETE' });
        for (let i = 0; i < 100; i++) {
            await emu('POST', '/emulator/v1/clock', { advance: '1m' }); // its final charge
            if ((await fetch(`${EMU}${API}/jobs/train`)).status === 404)
                return;
        }
        throw new Error('the Job train is not gone');
    },
    // a review of the manifest `apply` last sent, then a change of the price book: its
    // etag no longer matches (the price book is put back by `train`)
    async 'price-change'(c, ctx) {
        await GIVEN['no-train']();
        const rev = await c.callTool({ name: 'apply', arguments: { manifest: ctx.last.apply.manifest } });
        ctx.etag = rev.structuredContent.etag;
        ctx.book = await (await fetch(`${EMU}/emulator/v1/pricebook`)).json();
        await emu('PUT', '/emulator/v1/pricebook', { ...ctx.book, cpuCoreHourUSD: '0.05' });
    },
    async train(c, ctx) { // the price book as it was, and the Job train launched again
        if (ctx.book)
            await emu('PUT', '/emulator/v1/pricebook', ctx.book);
        const manifest = ctx.last.apply.manifest;
        const rev = await c.callTool({ name: 'apply', arguments: { manifest } });
        await c.callTool({ name: 'apply', arguments: { manifest, etag: rev.structuredContent.etag } });
    },
    async data() { // a Volume data
        await emu('POST', `${API}/volumes`, { apiVersion: 'nodus.dev/v1', kind: 'Volume',
            metadata: { name: 'data' }, spec: { size: '1Gi' } });
    },
};

// Runs the examples of the sections named through `nodus mcp --allow-exec` (or the
// flags an example names: one server per set of flags).
async function runExamples(...sections) {
    const ex = examples().filter((e) => sections.some((s) =>
        BLOCKS.find((b) => b.marker === e.marker).section.startsWith(s)));
    assert.ok(ex.length > 0, `no example marked in "${sections}"`);
    const unmarked = BLOCKS.filter((b) => b.lang === 'json' && !b.marker
        && sections.some((s) => b.section.startsWith(s)));
    assert.deepEqual(unmarked.map((b) => `docs/mcp.md:${b.line}`), [],
        'json blocks that are no example: mark each <!-- mcp-example: TOOL ... -->');
    const servers = new Map();
    const server = async (flags) => {
        const key = (flags.length ? flags : ['--allow-exec']).join(' ');
        if (!servers.has(key))
            servers.set(key, await connect([...key.split(' '), '--audit-file', '/dev/null']));
        return servers.get(key);
    };
    const made = new Set();
    const ctx = { last: {} }; // the last arguments of each tool, the last review's etag
    try {
        for (const e of ex) {
            const where = `docs/mcp.md:${e.line} (${e.tool})`;
            const c = await server(e.flags);
            const args = { ...e.args };
            for (const [k, v] of Object.entries(args))
                if (v === '...the same...')
                    args[k] = ctx.last[e.tool][k];
            if ('etag' in args)
                args.etag = ctx.etag;
            for (const name of [args.name, e.tool, e.given].filter((n) => GIVEN[n] && !made.has(n))) {
                made.add(name);
                await GIVEN[name](await server([]), ctx);
            }
            const r = await c.callTool({ name: e.tool, arguments: args });
            if (r.structuredContent?.reviewOnly)
                ctx.etag = r.structuredContent.etag;
            ctx.last[e.tool] = args;
            assert.ok(e.text !== undefined || e.json !== undefined, `${where}: no answer shown`);
            if (e.text !== undefined)
                sameText(e.text, r.content[0].text, where);
            if (e.json !== undefined) {
                assert.equal(!!r.isError, 'status' in e.json, `${where}: isError ${r.isError}: ${r.content[0].text}`);
                try {
                    sameJson(e.json, r.structuredContent, where);
                } catch (err) {
                    err.message += `\n--- answered\n${JSON.stringify(r.structuredContent)}`;
                    throw err;
                }
            }
        }
    } finally {
        await Promise.all([...servers.values()].map((c) => c.close()));
        // what the servers said (a sanitizer's report, under make asan) goes to node.log
        for (const c of servers.values())
            process.stderr.write(c.stderrText());
    }
    return `${ex.length} examples answer what the page shows (${ex.map((e) => e.tool).join(', ')})`;
}

// A host's registration, started as the host would: the command, args and env it names
// (the command is this tree's nodus; a NODUS_SERVER it names is this file's emulator;
// without one, nodus finds the emulator in the current context of ~/.nodus/config).
async function register(name, { command, args = [], env = {} }, where) {
    assert.ok(/(^|\/)nodus$/.test(command), `${where}: the command is nodus, not ${command}`);
    assert.equal(args[0], 'mcp', `${where}: the args start with mcp`);
    const e = serverEnv({ ...env, NODUS_SERVER: 'NODUS_SERVER' in env ? EMU : undefined });
    const transport = new StdioClientTransport({ command: NODUS, args, env: e, stderr: 'inherit' });
    const client = new Client({ name: `docs-${name}`, version: '1.0.0' });
    try {
        await client.connect(transport);
        assert.equal(client.getServerVersion().name, 'nodus', where);
        const { tools } = await client.listTools();
        const r = await client.callTool({ name: 'list', arguments: { kind: 'jobs' } });
        assert.equal(r.structuredContent.items?.length, 3, `${where}: the emulator's Jobs: ${r.content[0].text}`);
        return `${name}: ${args.join(' ')}${'NODUS_SERVER' in env ? ' (env NODUS_SERVER)' : ''} serves ${tools.length} tools`;
    } finally {
        await client.close();
    }
}

const scenarios = {
    async 'host-configs'() {
        const configs = BLOCKS.filter((b) => b.section.startsWith('Register') && b.lang === 'json');
        assert.ok(configs.length >= 2, 'the Claude Desktop/Cursor/.mcp.json and VS Code blocks');
        const said = [];
        for (const b of configs) {
            const where = `docs/mcp.md:${b.line}`;
            const cfg = JSON.parse(b.text);
            const servers = cfg.mcpServers ?? cfg.servers;
            assert.ok(servers && servers.nodus, `${where}: mcpServers.nodus or servers.nodus`);
            if (cfg.servers)
                assert.equal(servers.nodus.type, 'stdio', `${where}: VS Code says the transport`);
            said.push(await register(cfg.servers ? 'vscode' : 'mcpServers', servers.nodus, where));
        }
        return said.join('; ');
    },
    async 'claude-mcp-add'() {
        const sh = BLOCKS.filter((b) => b.section.startsWith('Register') && b.lang === 'sh');
        const adds = sh.flatMap((b) => b.text.split('\n').map((l, i) => [l, b.line + 1 + i]))
            .filter(([l]) => l.startsWith('claude mcp add '));
        assert.ok(adds.length > 0, 'a claude mcp add line');
        const said = [];
        for (const [l, n] of adds) {
            const m = l.match(/^claude mcp add (\S+)((?: -e \S+)*) -- (\S+) (.*)$/);
            assert.ok(m, `docs/mcp.md:${n}: claude mcp add NAME [-e K=V] -- COMMAND ARGS: ${l}`);
            const env = Object.fromEntries([...m[2].matchAll(/-e (\w+)=(\S+)/g)].map((x) => [x[1], x[2]]));
            said.push(await register(m[1], { command: m[3], args: m[4].split(' '), env }, `docs/mcp.md:${n}`));
        }
        return said.join('; ');
    },
    async 'read-tools'() {
        return runExamples('Read tools');
    },
    async 'write-tools'() {
        return runExamples('Write tools', 'Safety modes');
    },
};

BLOCKS = blocks();
await runScenarios(scenarios);
