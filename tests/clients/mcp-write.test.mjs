// nodus mcp's write tools and safety modes, driven by the official MCP client
// (@modelcontextprotocol/sdk, pinned in package.json): one node process runs every
// scenario in order against the emulator at EMU_URL (started by 05-mcp-write.bats with
// --speed 0), through several `nodus mcp` servers started with different flags.
//
//   node mcp-write.test.mjs [--out DIR] [SCENARIO...]   (scenarios.mjs's runScenarios)
//
// The SDK checks each structuredContent against the tool's outputSchema, so a call that
// answers does so in the shape tools/list promised.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect as connectLib, runScenarios } from './mcp-lib.mjs';

const EMU = process.env.EMU_URL;
const API = '/apis/nodus.dev/v1/namespaces';
const WRITE_TOOLS = ['apply', 'suspend', 'resume', 'cancel', 'stop', 'start', 'request',
    'approve', 'reject', 'delete', 'exec'];

// A `nodus mcp` with these flags (the emulator's project "default" is the context's).
async function connect(flags) {
    const client = await connectLib(flags, { NO_COLOR: '1' });
    const tools = (await client.listTools()).tools; // also caches the output validators
    return { client, tools, names: tools.map((t) => t.name), stderr: client.stderrText };
}

async function emu(method, path, body) {
    const r = await fetch(EMU + path, {
        method,
        headers: body ? { 'Content-Type': 'application/json' } : {},
        body: body ? JSON.stringify(body) : undefined,
    });
    const text = await r.text();
    return { code: r.status, body: text ? JSON.parse(text) : null };
}

const job = (name, gpus = 2) => `apiVersion: nodus.dev/v1
kind: Job
metadata:
  name: ${name}
spec:
  image: nodus/pytorch:2.8-cuda12.8
  resources:
    gpu: {model: H100, count: ${gpus}}
  maxCostUSD: "40.00"
`;
const sandbox = (name) => `apiVersion: nodus.dev/v1
kind: Sandbox
metadata:
  name: ${name}
spec:
  image: nodus/pytorch:2.8-cuda12.8
  resources:
    gpu: {model: L4, count: 1}
  maxCostUSD: "10.00"
`;
const volume = (name, ns) => `apiVersion: nodus.dev/v1
kind: Volume
metadata:
  name: ${name}${ns ? `\n  namespace: ${ns}` : ''}
spec:
  size: 1Gi
`;

async function call(srv, name, args) {
    return srv.client.callTool({ name, arguments: args });
}

function refusal(r, reason) {
    assert.equal(r.isError, true, `an isError answer, got ${JSON.stringify(r)}`);
    assert.equal(r.structuredContent.status.reason, reason, JSON.stringify(r.structuredContent));
    assert.ok(r.structuredContent.status.fix, 'a fix');
    return r.structuredContent.status;
}

// Launch what apply reviews (the etag of its review), for the scenarios that need objects.
async function launched(srv, manifest) {
    const rev = await call(srv, 'apply', { manifest });
    assert.equal(rev.structuredContent.reviewOnly, true, JSON.stringify(rev));
    const r = await call(srv, 'apply', { manifest, etag: rev.structuredContent.etag });
    assert.ok(!r.isError, JSON.stringify(r));
    return r;
}

let S; // the servers

const scenarios = {
    async 'tools-list'() {
        const t = Object.fromEntries(S.main.tools.map((x) => [x.name, x]));
        for (const n of WRITE_TOOLS) {
            assert.ok(t[n], `${n} listed`);
            assert.ok(t[n].title && t[n].outputSchema && t[n].inputSchema, `${n}: title, schemas`);
            assert.equal(t[n].annotations.readOnlyHint, false, n);
            assert.equal(t[n].annotations.destructiveHint, n === 'delete' || n === 'exec', `${n} destructiveHint`);
        }
        assert.equal(t.suspend.annotations.idempotentHint, true);
        assert.equal(t.request.annotations.idempotentHint, false);
        const kinds = t.suspend.inputSchema.properties.kind.description;
        assert.match(kinds, /job/);
        assert.doesNotMatch(kinds, /sandbox/, 'a Sandbox has no Suspended state');
        assert.match(t.stop.inputSchema.properties.kind.description, /sandbox/);
        assert.ok(!S.plain.names.includes('exec'), 'exec only with --allow-exec');
        return `${WRITE_TOOLS.length} write tools; delete and exec destructive; exec needs --allow-exec`;
    },

    async review() {
        const r = await call(S.main, 'apply', { manifest: job('train') });
        const sc = r.structuredContent;
        assert.equal(sc.reviewOnly, true);
        const o = sc.objects[0];
        assert.deepEqual([o.kind, o.name, o.project], ['Job', 'train', 'default']);
        for (const f of ['rateUSDPerHour', 'expectedCostUSD', 'firstHoldUSD', 'startTime'])
            assert.ok(o.estimate[f], `estimate.${f}`);
        assert.equal(sc.etag, o.etag);
        assert.match(r.content[0].text, /nothing was applied/);
        assert.equal((await emu('GET', `${API}/default/jobs/train`)).code, 404, 'not launched');
        return `rate $${o.estimate.rateUSDPerHour}/h, expected $${o.estimate.expectedCostUSD}, etag ${o.etag}; nothing launched`;
    },

    async launch() {
        const rev = await call(S.main, 'apply', { manifest: job('train') });
        const r = await call(S.main, 'apply', { manifest: job('train'), etag: rev.structuredContent.etag });
        assert.ok(!r.isError, JSON.stringify(r));
        assert.equal(r.structuredContent.reviewOnly, false);
        assert.equal(r.structuredContent.objects[0].operation, 'created');
        const g = await emu('GET', `${API}/default/jobs/train`);
        assert.equal(g.code, 200);
        assert.ok(['Queued', 'Pending', 'Running'].includes(g.body.status.phase), g.body.status.phase);
        // If-Match went with it: the reviewed rate + 10 % caps the Job
        assert.ok(g.body.status.maxRateUSDPerHour, 'status.maxRateUSDPerHour (sent If-Match)');
        return `created, ${g.body.status.phase}, capped at $${g.body.status.maxRateUSDPerHour}/h`;
    },

    async 'precondition-failed'() {
        const rev = await call(S.main, 'apply', { manifest: job('tuned') });
        const book = (await emu('GET', '/emulator/v1/pricebook')).body;
        book.cpuCoreHourUSD = '0.05';
        assert.equal((await emu('PUT', '/emulator/v1/pricebook', book)).code, 200);
        const r = await call(S.main, 'apply', { manifest: job('tuned'), etag: rev.structuredContent.etag });
        const st = refusal(r, 'PreconditionFailed');
        assert.ok(st.details.estimate.expectedCostUSD, 'the fresh estimate');
        assert.ok(st.details.etag && st.details.etag !== rev.structuredContent.etag, 'a fresh etag');
        assert.equal((await emu('GET', `${API}/default/jobs/tuned`)).code, 404, 'not launched');
        const again = await call(S.main, 'apply', { manifest: job('tuned'), etag: st.details.etag });
        assert.ok(!again.isError, JSON.stringify(again));
        assert.equal((await emu('GET', `${API}/default/jobs/tuned`)).code, 200);
        return `PreconditionFailed with fresh etag ${st.details.etag}; launched with it`;
    },

    async 'several-documents'() {
        const manifest = [volume('shared'), job('first'), job('second', 1)].join('---\n');
        const rev = await call(S.main, 'apply', { manifest });
        const sc = rev.structuredContent;
        assert.equal(sc.reviewOnly, true);
        assert.deepEqual(sc.objects.map((o) => [o.kind, o.name, !!o.etag]),
            [['Volume', 'shared', false], ['Job', 'first', true], ['Job', 'second', true]]);
        assert.deepEqual(Object.keys(sc.etag), ['Job/first', 'Job/second']);
        assert.equal((await emu('GET', `${API}/default/volumes/shared`)).code, 404, 'nothing written');
        const one = await call(S.main, 'apply', { manifest, etag: sc.etag['Job/first'] });
        refusal(one, 'BadRequest');
        const r = await call(S.main, 'apply', { manifest, etag: sc.etag });
        assert.ok(!r.isError, JSON.stringify(r));
        assert.deepEqual(r.structuredContent.objects.map((o) => o.operation), ['created', 'created', 'created']);
        for (const p of ['volumes/shared', 'jobs/first', 'jobs/second'])
            assert.equal((await emu('GET', `${API}/default/${p}`)).code, 200, p);
        return `etag ${JSON.stringify(sc.etag)}; a lone string refused; the map launched all three`;
    },

    async 'max-cost'() {
        const r = await call(S.maxcost, 'apply', { manifest: job('costly', 8) });
        const st = refusal(r, 'Forbidden');
        assert.match(st.message, /--max-cost \$1\.00/);
        assert.match(st.message, /expected cost \$\d+\.\d\d/);
        const launch = await call(S.maxcost, 'apply', { manifest: job('costly', 8), etag: '"x"' });
        refusal(launch, 'Forbidden');
        assert.equal((await emu('GET', `${API}/default/jobs/costly`)).code, 404, 'not launched');
        return st.message;
    },

    async 'free-apply'() {
        const r = await call(S.main, 'apply', { manifest: volume('data') });
        assert.ok(!r.isError, JSON.stringify(r));
        assert.equal(r.structuredContent.reviewOnly, false);
        assert.equal((await emu('GET', `${API}/default/volumes/data`)).code, 200);
        return r.content[0].text.trim();
    },

    async 'bad-manifest'() {
        const r = await call(S.main, 'apply', { manifest: 'apiVersion: nodus.dev/v1\nkind: Job\nmetadata: [\n' });
        const st = refusal(r, 'BadRequest');
        assert.match(st.message, /^manifest:4:1: /, 'the line and column');
        return st.message;
    },

    async 'suspend-resume-cancel'() {
        const s = await call(S.main, 'suspend', { kind: 'job', name: 'train' });
        assert.equal(s.structuredContent.state, 'Suspended', JSON.stringify(s));
        const r = await call(S.main, 'resume', { kind: 'jobs', name: 'train' });
        assert.equal(r.structuredContent.state, 'Running', JSON.stringify(r));
        const c = await call(S.main, 'cancel', { kind: 'job', name: 'tuned' });
        assert.equal(c.structuredContent.state, 'Cancelled', JSON.stringify(c));
        const no = await call(S.main, 'suspend', { kind: 'volume', name: 'data' });
        assert.match(refusal(no, 'BadRequest').message, /a Volume has no spec.state Suspended: suspend takes job, /);
        return `${s.content[0].text.split('\n')[0]}; ${r.content[0].text.split('\n')[0]}; ${c.content[0].text.split('\n')[0]}`;
    },

    async 'stop-start-request'() {
        await launched(S.main, sandbox('dev'));
        await emu('POST', '/emulator/v1/clock', { advance: '15s' });
        const q = await call(S.main, 'request', { kind: 'sandbox', name: 'dev', action: 'restart' });
        assert.equal(q.structuredContent.action, 'restart', JSON.stringify(q));
        const stop = await call(S.main, 'stop', { kind: 'sandbox', name: 'dev' });
        assert.equal(stop.structuredContent.state, 'Stopped', JSON.stringify(stop));
        const start = await call(S.main, 'start', { kind: 'sandbox', name: 'dev' });
        assert.equal(start.structuredContent.state, 'Running', JSON.stringify(start));
        await emu('POST', '/emulator/v1/clock', { advance: '15s' });
        const resumed = await call(S.main, 'start', { kind: 'sandbox', name: 'dev' });
        assert.ok(resumed.structuredContent.rateUSDPerHour, `the rate: ${JSON.stringify(resumed)}`);
        assert.match(resumed.content[0].text, /it costs \$[\d.]+\/h while it runs/);
        return `${q.content[0].text.split('\n')[0]}; ${stop.content[0].text.split('\n')[0]}; ${start.content[0].text.split('\n')[0]}`;
    },

    async 'approve-reject'() {
        await emu('POST', `${API}/default/pools`, { apiVersion: 'nodus.dev/v1', kind: 'Pool', metadata: { name: 'lab' }, spec: {} });
        for (const n of ['pa1', 'pa2'])
            await emu('POST', `${API}/default/poolactions`, {
                apiVersion: 'nodus.dev/v1', kind: 'PoolAction', metadata: { name: n },
                spec: { pool: 'lab', action: 'IdleReclaim', target: 'host/h1', reason: 'idle for 2h', decision: 'Pending' },
            });
        const a = await call(S.main, 'approve', { name: 'pa1' });
        assert.equal(a.structuredContent.decision, 'Approved', JSON.stringify(a));
        const r = await call(S.main, 'reject', { name: 'pa2' });
        assert.equal(r.structuredContent.decision, 'Rejected', JSON.stringify(r));
        return `${a.content[0].text.split('\n')[0]}; ${r.content[0].text.split('\n')[0]}`;
    },

    async exec() {
        await emu('POST', '/emulator/v1/clock', { advance: '15s' });
        const r = await call(S.main, 'exec', { name: 'dev', command: ['sh', '-c', 'echo out; echo err >&2; exit 3'] });
        assert.ok(!r.isError, JSON.stringify(r));
        const sc = r.structuredContent;
        assert.deepEqual([sc.stdout, sc.stderr, sc.exitCode, sc.timedOut], ['out\n', 'err\n', 3, false]);
        const ok = await call(S.main, 'exec', { kind: 'sandbox', name: 'dev', command: ['echo', 'hi'] });
        assert.equal(ok.structuredContent.exitCode, 0, JSON.stringify(ok));
        const big = await call(S.main, 'exec', { name: 'dev', command: ['sh', '-c', 'head -c 100000 /dev/zero | tr "\\0" a'] });
        assert.deepEqual([big.structuredContent.stdout.length, big.structuredContent.stdoutBytes], [32768, 100000],
            'each stream is cut past half of --max-output (65536)');
        const slow = await call(S.main, 'exec', { name: 'dev', command: ['sleep', '30'], timeoutSeconds: 1 });
        assert.deepEqual([slow.structuredContent.timedOut, slow.structuredContent.exitCode], [true, -1]);
        const no = await call(S.plain, 'exec', { name: 'dev', command: ['echo', 'hi'] });
        assert.match(refusal(no, 'Forbidden').message, /--allow-exec/);
        return `stdout ${JSON.stringify(sc.stdout)}, stderr ${JSON.stringify(sc.stderr)}, exit ${sc.exitCode}; 100000 bytes cut to 32768; sleep 30 timed out after 1 s; refused without --allow-exec`;
    },

    async delete() {
        const r = await call(S.main, 'delete', { kind: 'volume', name: 'data', cascade: 'foreground' });
        assert.ok(!r.isError, JSON.stringify(r));
        const sc = r.structuredContent;
        assert.deepEqual([sc.kind, sc.name, sc.cascade], ['Volume', 'data', 'foreground']);
        // the clock stands still (--speed 0): the Volume is Terminating until it moves
        const g = await emu('GET', `${API}/default/volumes/data`);
        assert.ok(sc.gone ? g.code === 404 : g.body.metadata.deletionTimestamp, JSON.stringify(sc));
        const missing = await call(S.main, 'delete', { kind: 'volume', name: 'nope' });
        refusal(missing, 'NotFound');
        return r.content[0].text.trim().replace(/\n/g, '; ');
    },

    async 'read-only'() {
        for (const n of WRITE_TOOLS)
            assert.ok(!S.ro.names.includes(n), `${n} not listed with --read-only`);
        assert.ok(S.ro.names.includes('get'));
        const r = await call(S.ro, 'apply', { manifest: volume('ro') });
        assert.match(refusal(r, 'Forbidden').message, /--read-only/);
        const s = await call(S.ro, 'suspend', { kind: 'job', name: 'train' });
        refusal(s, 'Forbidden');
        assert.equal((await emu('GET', `${API}/default/volumes/ro`)).code, 404);
        return `${S.ro.names.length} tools listed, none writes; apply and suspend refused`;
    },

    async 'disable-destructive'() {
        assert.ok(!S.nodestroy.names.includes('delete'));
        assert.ok(S.nodestroy.names.includes('apply') && S.nodestroy.names.includes('cancel'));
        const r = await call(S.nodestroy, 'delete', { kind: 'job', name: 'train' });
        assert.match(refusal(r, 'Forbidden').message, /--disable-destructive/);
        assert.equal((await emu('GET', `${API}/default/jobs/train`)).code, 200, 'still there');
        return 'delete not listed and refused; apply and cancel served';
    },

    async projects() {
        await emu('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
        const out = await call(S.proj, 'suspend', { kind: 'job', name: 'train', project: 'default' });
        assert.match(refusal(out, 'Forbidden').message, /"default"/);
        const doc = await call(S.proj, 'apply', { manifest: volume('sneaky', 'default') });
        assert.match(refusal(doc, 'Forbidden').message, /Volume\/sneaky: project "default"/);
        assert.equal((await emu('GET', `${API}/default/volumes/sneaky`)).code, 404);
        const inside = await call(S.proj, 'apply', { manifest: volume('mine') });
        assert.ok(!inside.isError, JSON.stringify(inside));
        assert.equal((await emu('GET', `${API}/team-a/volumes/mine`)).code, 200);
        return 'another project refused (argument and manifest); team-a served';
    },

    async audit() {
        const lines = readFileSync(process.env.AUDIT_FILE, 'utf8').trim().split('\n');
        const recs = lines.map((l) => {
            assert.match(l, /^nodus-mcp audit: \{/);
            return JSON.parse(l.slice('nodus-mcp audit: '.length));
        });
        for (const a of recs) {
            assert.match(a.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
            assert.equal(a.client, 'nodus-tests');
            assert.ok(WRITE_TOOLS.includes(a.tool), `only mutating calls: ${a.tool}`);
            assert.equal(a.project, 'default');
        }
        const find = (tool, outcome) => recs.find((a) => a.tool === tool && a.outcome === outcome);
        const rev = find('apply', 'reviewed');
        assert.deepEqual(rev.objects[0], { kind: 'Job', name: 'train', project: 'default' });
        assert.ok(find('apply', 'ok'));
        const pf = find('apply', 'PreconditionFailed');
        assert.ok(pf && pf.requestId, `the PreconditionFailed line has a requestId: ${JSON.stringify(pf)}`);
        assert.equal(pf.objects[0].name, 'tuned');
        assert.deepEqual(find('suspend', 'ok').objects, [{ kind: 'Job', name: 'train' }]);
        assert.ok(find('delete', 'NotFound'));
        assert.ok(find('exec', 'ok'));
        // a write refused by a safety mode is audited too (on stderr without --audit-file)
        const ro = S.ro.stderr().split('\n').filter((l) => l.startsWith('nodus-mcp audit: '))
            .map((l) => JSON.parse(l.slice('nodus-mcp audit: '.length)));
        assert.ok(ro.find((a) => a.tool === 'apply' && a.outcome === 'Forbidden'), `--read-only's refusal: ${JSON.stringify(ro)}`);
        return `${recs.length} lines; e.g. ${lines[0].slice(0, 160)}`;
    },
};

await runScenarios(scenarios, {
    async before() {
        const [main, plain, ro, nodestroy, proj, maxcost] = await Promise.all([
            connect(['--allow-exec', '--audit-file', process.env.AUDIT_FILE]),
            connect([]),
            connect(['--read-only']),
            connect(['--disable-destructive']),
            connect(['--projects', 'team-a', '-n', 'team-a']),
            connect(['--max-cost', '1.00']),
        ]);
        S = { main, plain, ro, nodestroy, proj, maxcost };
    },
    async after(out) {
        const servers = Object.values(S ?? {});
        await Promise.all(servers.map((s) => s.client.close()));
        // what the servers said on stderr (a sanitizer's report, under make asan)
        if (out)
            writeFileSync(`${out}/mcp-stderr.log`, servers.map((s) => s.stderr()).join(''));
    },
});
