// nodus mcp's resources, subscriptions and prompts under the official MCP client
// (@modelcontextprotocol/sdk), against the emulator of 06-mcp-resources.bats (--speed 0).
//
//   node mcp-resources.test.mjs [--out DIR] [SCENARIO...]   (mcp-lib.mjs's runScenarios)
//   node mcp-resources.test.mjs --list
//
// Each scenario works in projects of its own (made with the CLI); subscribe-expired resets
// the emulator and runs last.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { ResourceUpdatedNotificationSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { connect as connectLib, runScenarios, serverEnv, NODUS } from './mcp-lib.mjs';

// Every server started, for the check of their stderr at the end.
const servers = [];
async function connect(args = [], env = {}) {
    const c = await connectLib(args, env);
    servers.push(c);
    return c;
}

// The CLI, against the emulator (or another server): what it printed.
function nodus(args, input, server) {
    return execFileSync(NODUS, args, { env: serverEnv(server ? { NODUS_SERVER: server } : {}), input, encoding: 'utf8' });
}

function volume(name, project, labels = {}, server = undefined) {
    nodus(['create', '-n', project, '-f', '-'], JSON.stringify({
        apiVersion: 'nodus.dev/v1', kind: 'Volume', metadata: { name, labels }, spec: { size: '1Gi' },
    }), server);
}

// An emulator of the scenario's own on state (port 0: a free one), for a scenario that
// stops and starts it: its URL once it serves, and a stop that waits for its exit.
async function ownEmulator(state, port = 0) {
    const portFile = `${state}.port`;
    rmSync(portFile, { force: true });
    const bin = process.env.ND_BIN_DIR ? `${process.env.ND_BIN_DIR}/nodus-emulator` : 'nodus-emulator';
    const p = spawn(bin, ['--state', state, '--listen', `127.0.0.1:${port}`, '--port-file', portFile,
        '--fsync', 'never', '--quiet', '--speed', '0'], { stdio: 'ignore' });
    const exited = new Promise((resolve) => p.on('exit', resolve));
    const deadline = Date.now() + 15000;
    while (!(existsSync(portFile) && readFileSync(portFile, 'utf8').trim())) {
        if (Date.now() > deadline || p.exitCode !== null)
            throw new Error(`the emulator on ${state} did not start`);
        await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const url = `http://127.0.0.1:${readFileSync(portFile, 'utf8').trim()}`;
    return { url, port: Number(url.split(':')[2]), stop: async () => { p.kill('SIGTERM'); await exited; } };
}

function project(name) {
    nodus(['create', 'project', name]);
}

async function emulator(path, body) {
    const r = await fetch(`${process.env.EMU_URL}/emulator/v1/${path}`, body === undefined ? {} : {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    });
    return r.json();
}

// The JSON-RPC error a call fails with (it must fail).
async function rpcError(promise) {
    try {
        await promise;
    } catch (err) {
        assert.ok(err instanceof McpError, `not an McpError: ${err && err.stack}`);
        return err;
    }
    assert.fail('the call succeeded; an error was expected');
}

// Every notifications/resources/updated the client gets, and a wait for one.
function updates(client) {
    const seen = [];
    const waiting = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        seen.push(n.params.uri);
        for (const w of waiting.splice(0))
            w();
    });
    seen.waitFor = async (uri, count = 1) => {
        const deadline = Date.now() + 15000;
        while (seen.filter((u) => u === uri).length < count) {
            if (Date.now() > deadline)
                throw new Error(`no notifications/resources/updated for ${uri} (saw ${JSON.stringify(seen)})`);
            await new Promise((resolve) => { waiting.push(resolve); setTimeout(resolve, 500); });
        }
    };
    return seen;
}

const scenarios = {
    async capabilities() {
        const c = await connect();
        try {
            const caps = c.getServerCapabilities();
            assert.deepEqual(caps.resources, { subscribe: true, listChanged: false });
            assert.ok(caps.prompts, 'no prompts capability');
            return `resources ${JSON.stringify(caps.resources)}, prompts ${JSON.stringify(caps.prompts)}`;
        } finally {
            await c.close();
        }
    },

    async 'list-paged'() {
        project('rs-list');
        for (const n of ['v1', 'v2', 'v3', 'v4', 'v5'])
            volume(n, 'rs-list');
        const c = await connect(['-n', 'rs-list'], { NODUS_MCP_PAGE_SIZE: '2' });
        try {
            const uris = [];
            let cursor, pages = 0;
            do {
                const page = await c.listResources(cursor ? { cursor } : {});
                assert.ok(page.resources.length <= 2, `a page of ${page.resources.length}`);
                for (const r of page.resources) {
                    assert.equal(r.mimeType, 'application/yaml');
                    assert.ok(r.name && r.title, JSON.stringify(r));
                    uris.push(r.uri);
                }
                cursor = page.nextCursor;
                pages++;
            } while (cursor && pages < 50);
            const vols = uris.filter((u) => u.includes('/volumes/'));
            assert.deepEqual(vols, ['v1', 'v2', 'v3', 'v4', 'v5'].map((n) => `nodus://rs-list/volumes/${n}`));
            assert.ok(uris.includes('nodus:///namespaces/rs-list'), uris.join(' '));
            assert.equal(new Set(uris).size, uris.length, `duplicates: ${uris.join(' ')}`);
            assert.ok(uris.every((u) => u.startsWith('nodus://rs-list/') || u.startsWith('nodus:///namespaces/')),
                uris.join(' '));
            const bad = await rpcError(c.listResources({ cursor: 'not-a-cursor' }));
            assert.equal(bad.code, -32602);
            return `${uris.length} resources in ${pages} pages of at most 2; a bad cursor is ${bad.code}`;
        } finally {
            await c.close();
        }
    },

    async 'read-yaml-json'() {
        project('rs-read');
        volume('data', 'rs-read', { team: 'ml' });
        const c = await connect();
        try {
            const y = await c.readResource({ uri: 'nodus://rs-read/volumes/data' });
            assert.equal(y.contents[0].uri, 'nodus://rs-read/volumes/data');
            assert.equal(y.contents[0].mimeType, 'application/yaml');
            assert.match(y.contents[0].text, /^kind: Volume$/m);
            assert.match(y.contents[0].text, /^ {4}team: ml$/m);
            const j = await c.readResource({ uri: 'nodus://rs-read/volumes/data?format=json' });
            assert.equal(j.contents[0].mimeType, 'application/json');
            const obj = JSON.parse(j.contents[0].text);
            assert.equal(obj.metadata.labels.team, 'ml');
            assert.equal(obj.metadata.managedFields, undefined);
            const p = await c.readResource({ uri: 'nodus:///namespaces/rs-read' });
            assert.match(p.contents[0].text, /^kind: Namespace$/m);
            return `YAML (${y.contents[0].text.length} bytes), JSON (kind ${obj.kind}), a project (nodus:///namespaces/rs-read)`;
        } finally {
            await c.close();
        }
    },

    async 'read-missing'() {
        const c = await connect();
        try {
            const e = await rpcError(c.readResource({ uri: 'nodus://default/jobs/no-such-job' }));
            assert.equal(e.code, -32002);
            assert.equal(e.data.uri, 'nodus://default/jobs/no-such-job');
            assert.equal(e.data.status.reason, 'NotFound');
            assert.ok(e.data.status.fix, 'the Status has no fix');
            const k = await rpcError(c.readResource({ uri: 'nodus://default/jobz/x' }));
            assert.equal(k.code, -32002);
            assert.match(k.message, /job/);
            const m = await rpcError(c.readResource({ uri: 'http://default/jobs/x' }));
            assert.equal(m.code, -32602);
            return `missing: ${e.code} ${e.data.status.reason} (fix: ${e.data.status.fix}); unknown kind: ${k.code}; not nodus://: ${m.code}`;
        } finally {
            await c.close();
        }
    },

    async templates() {
        const c = await connect();
        try {
            const { resourceTemplates: ts } = await c.listResourceTemplates();
            const jobs = ts.find((t) => t.name === 'job');
            assert.equal(jobs.uriTemplate, 'nodus://{project}/jobs/{name}{?format}');
            const ns = ts.find((t) => t.name === 'namespace');
            assert.equal(ns.uriTemplate, 'nodus:///namespaces/{name}{?format}');
            assert.ok(ts.length >= 10, `${ts.length} templates`);
            // the SDK's own RFC 6570 code expands and matches them
            const t = new UriTemplate(jobs.uriTemplate);
            assert.equal(t.expand({ project: 'default', name: 'train-a' }), 'nodus://default/jobs/train-a');
            assert.deepEqual(t.match('nodus://p/jobs/x?format=json'), { project: 'p', name: 'x', format: 'json' });
            return `${ts.length} templates, e.g. ${jobs.uriTemplate} and ${ns.uriTemplate}`;
        } finally {
            await c.close();
        }
    },

    async 'subscribe-update'() {
        project('rs-sub');
        volume('a', 'rs-sub');
        const c = await connect();
        const seen = updates(c);
        try {
            const uri = 'nodus://rs-sub/volumes/a';
            await c.subscribeResource({ uri });
            nodus(['label', '-n', 'rs-sub', 'volume', 'a', 'seen=yes']);
            await seen.waitFor(uri);
            const now = await c.readResource({ uri });
            assert.match(now.contents[0].text, /seen: "?yes"?/);
            await c.subscribeResource({ uri }); // twice: one watch
            nodus(['label', '-n', 'rs-sub', 'volume', 'a', 'seen=again', '--overwrite']);
            await seen.waitFor(uri, 2);
            return `notifications/resources/updated after nodus label (${seen.length})`;
        } finally {
            await c.close();
        }
    },

    async unsubscribe() {
        project('rs-unsub');
        volume('a', 'rs-unsub');
        volume('b', 'rs-unsub');
        const c = await connect();
        const seen = updates(c);
        try {
            const a = 'nodus://rs-unsub/volumes/a', b = 'nodus://rs-unsub/volumes/b';
            await c.subscribeResource({ uri: a });
            await c.subscribeResource({ uri: b });
            nodus(['label', '-n', 'rs-unsub', 'volume', 'a', 'n=1']);
            await seen.waitFor(a);
            await c.unsubscribeResource({ uri: a });
            // a changes first, then b: b's notification comes, a's never does
            nodus(['label', '-n', 'rs-unsub', 'volume', 'a', 'n=2', '--overwrite']);
            nodus(['label', '-n', 'rs-unsub', 'volume', 'b', 'n=2']);
            await seen.waitFor(b);
            await c.ping();
            assert.equal(seen.filter((u) => u === a).length, 1, JSON.stringify(seen));
            await c.unsubscribeResource({ uri: 'nodus://rs-unsub/volumes/never-subscribed' });
            return `after unsubscribe: ${JSON.stringify(seen)}`;
        } finally {
            await c.close();
        }
    },

    async 'projects-filter'() {
        project('rs-a');
        project('rs-b');
        volume('mine', 'rs-a');
        volume('theirs', 'rs-b');
        const c = await connect(['--projects', 'rs-a']);
        try {
            const uris = [];
            let cursor;
            do {
                const page = await c.listResources(cursor ? { cursor } : {});
                uris.push(...page.resources.map((r) => r.uri));
                cursor = page.nextCursor;
            } while (cursor);
            assert.ok(uris.includes('nodus://rs-a/volumes/mine'), uris.join(' '));
            assert.ok(uris.every((u) => u.startsWith('nodus://rs-a/') || u === 'nodus:///namespaces/rs-a'),
                uris.join(' '));
            const r = await rpcError(c.readResource({ uri: 'nodus://rs-b/volumes/theirs' }));
            assert.equal(r.code, -32002);
            assert.equal(r.data.status.reason, 'Forbidden');
            const p = await rpcError(c.readResource({ uri: 'nodus:///namespaces/rs-b' }));
            assert.equal(p.code, -32002);
            const s = await rpcError(c.subscribeResource({ uri: 'nodus://rs-b/volumes/theirs' }));
            assert.equal(s.code, -32002);
            const g = await rpcError(c.getPrompt({ name: 'spend-review', arguments: { project: 'rs-b' } }));
            assert.equal(g.code, -32602);
            return `listed ${uris.join(' ')}; rs-b refused (read ${r.code} ${r.data.status.reason}, subscribe ${s.code}, prompt ${g.code})`;
        } finally {
            await c.close();
        }
    },

    async prompts() {
        const c = await connect();
        try {
            const { prompts: ps } = await c.listPrompts();
            const names = ps.map((p) => p.name);
            assert.deepEqual(names, ['why-failed', 'spend-review']);
            const wf = ps[0];
            assert.deepEqual(wf.arguments.map((a) => [a.name, a.required]),
                [['kind', false], ['name', true], ['project', false]]);
            const u = await rpcError(c.getPrompt({ name: 'why-not' }));
            assert.equal(u.code, -32602);
            const m = await rpcError(c.getPrompt({ name: 'why-failed', arguments: {} }));
            assert.equal(m.code, -32602);
            const n = await rpcError(c.getPrompt({ name: 'why-failed', arguments: { name: 'nothing-here' } }));
            assert.equal(n.code, -32602);
            assert.equal(n.data.status.reason, 'NotFound');
            return `${names.join(', ')}; unknown ${u.code}, without name ${m.code}, missing object ${n.code} NotFound`;
        } finally {
            await c.close();
        }
    },

    async 'why-failed'() {
        project('rs-fail');
        nodus(['create', '-n', 'rs-fail', '-f', '-'], JSON.stringify({
            apiVersion: 'nodus.dev/v1', kind: 'Job',
            metadata: { name: 'boom', annotations: { 'emulator.nodus.dev/fail-at': '20s', 'emulator.nodus.dev/exit-code': '137' } },
            spec: { image: 'nodus/pytorch:2.8-cuda12.8', command: ['python', 'train.py'], resources: { gpu: { model: 'H100', count: 1 } }, maxCostUSD: '10.00' },
        }));
        await emulator('clock', { advance: '2m' });
        const c = await connect();
        try {
            const p = await c.getPrompt({ name: 'why-failed', arguments: { name: 'boom', project: 'rs-fail' } });
            const text = p.messages.map((m) => m.content.text).join('\n');
            assert.ok(p.messages.every((m) => m.role === 'user' && m.content.type === 'text'));
            assert.match(text, /Job boom in project rs-fail/);
            assert.match(text, /Phase: +Failed/); // describe
            assert.match(text, /Exit Code: +137/);
            assert.match(text, /Warning +Error +job\/boom +the command failed/); // the events
            assert.match(text, /exited with code 137/); // the log's tail
            return `${p.messages.length} messages: describe (Failed, exit code 137), events, log tail`;
        } finally {
            await c.close();
        }
    },

    async 'spend-review'() {
        project('rs-spend');
        nodus(['create', '-n', 'rs-spend', '-f', '-'], JSON.stringify({
            apiVersion: 'nodus.dev/v1', kind: 'Job', metadata: { name: 'trainer', labels: { app: 'trainer' } },
            spec: { image: 'nodus/pytorch:2.8-cuda12.8', command: ['python', 'train.py'], resources: { gpu: { model: 'H100', count: 1 } }, maxCostUSD: '40.00' },
        }));
        nodus(['create', '-n', 'rs-spend', '-f', '-'], JSON.stringify({
            apiVersion: 'nodus.dev/v1', kind: 'Budget', metadata: { name: 'monthly' },
            spec: { limitUSD: '500.00', period: 'Monthly', action: 'Suspend' },
        }));
        await emulator('clock', { advance: '5m' });
        const c = await connect(['-n', 'rs-spend']);
        try {
            const p = await c.getPrompt({ name: 'spend-review', arguments: {} });
            const text = p.messages.map((m) => m.content.text).join('\n');
            assert.match(text, /project rs-spend/);
            assert.match(text, /^trainer +Running +1xH100 +market +\$[0-9.]+\/h +\$[0-9.]+/m); // top jobs
            assert.match(text, /1 running, \$[0-9.]+\/h, \$[0-9.]+ so far/);
            assert.match(text, /Name: +monthly/); // describe budgets
            assert.match(text, /Spent USD: +[0-9.]+/);
            assert.match(text, /Remaining USD: +[0-9.]+/);
            const rate = text.match(/1 running, (\$[0-9.]+\/h), (\$[0-9.]+) so far/);
            return `${p.messages.length} messages: trainer at ${rate[1]}, ${rate[2]} so far; Budget monthly with spent and remaining`;
        } finally {
            await c.close();
        }
    },

    async 'subscribe-dropped'() {
        const dir = mkdtempSync(`${tmpdir()}/mcp-drop-`);
        let emu = await ownEmulator(`${dir}/state`);
        volume('kept', 'default', {}, emu.url);
        const c = await connect([], { NODUS_SERVER: emu.url });
        const seen = updates(c);
        try {
            const uri = 'nodus://default/volumes/kept';
            await c.subscribeResource({ uri });
            // the server goes away under the open watch and comes back on the same port
            // and state: the subscription resumes and sees the next change
            await emu.stop();
            emu = await ownEmulator(`${dir}/state`, emu.port);
            nodus(['label', '-n', 'default', 'volume', 'kept', 'after=restart'], undefined, emu.url);
            await seen.waitFor(uri);
            return `updated after the server restarted under the watch (${seen.length})`;
        } finally {
            await c.close();
            await emu.stop();
            rmSync(dir, { recursive: true, force: true });
        }
    },

    // after the others: what every nodus mcp of this file said on stderr
    async 'no-sanitizer-report'() {
        const reports = servers.map((c) => c.stderrText())
            .filter((t) => /ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error/.test(t));
        assert.equal(reports.length, 0, reports.join('\n----\n'));
        return `${servers.length} servers, no sanitizer report (under make asan)`;
    },

    // last: it resets the emulator
    async 'subscribe-expired'() {
        volume('keep', 'default');
        const c = await connect();
        const seen = updates(c);
        try {
            const uri = 'nodus://default/volumes/keep';
            await c.subscribeResource({ uri });
            // the reset ends every watch with 410 Expired and removes the Volume: the
            // subscription gets the object again (gone: an update), then watches on
            await emulator('reset', {});
            await seen.waitFor(uri);
            volume('keep', 'default');
            await seen.waitFor(uri, 2);
            const now = await c.readResource({ uri });
            assert.match(now.contents[0].text, /name: keep/);
            return `updated on the reset (410 Expired, gone) and on the create after it (${seen.length})`;
        } finally {
            await c.close();
        }
    },
};

await runScenarios(scenarios);
