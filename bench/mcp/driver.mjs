// driver.mjs: nodus mcp beside kubernetes-mcp-server, both over stdio, driven by the
// official MCP client (@modelcontextprotocol/sdk, the copy tests/clients pins) against
// one emulator (bench/mcp.sh starts it and creates the Jobs). Per repetition and task the
// servers take turns (nodus, peer, raw HTTP; the next repetition the other way round):
//
//   list    100 Jobs of one project      nodus list {kind, project, limit}   peer resources_list
//   get     one of them                  nodus get                           peer resources_get
//   apply   a new Job (a manifest)       nodus apply: review, then launch    peer resources_create_or_update
//           with the review's ETag (the task is both calls; each is also a row of its own)
//   delete  the Job just applied         nodus delete                        peer resources_delete
//
// The floor is the same work as one raw HTTP request to the emulator (a new connection
// each, as a fresh process would open). Per call: latency on the wire (the request written
// to the server's stdin to its answer read from stdout), the same through the SDK's
// callTool, and bytes (the server's stdout for the call, the JSON-RPC result, its text).
// A task whose tool a server does not serve is reported "n/a: tool X not served".
//
// Repetitions start at most every --pace-ms (an agent thinks between calls; back to back
// the peer's client-go holds it to 5 requests/s), and then --burst gets go back to back.
//
//   node driver.mjs --nodus BIN --peer BIN --kubeconfig FILE --server URL --out TSV
//        [--sdk DIR] [--n 100] [--reps 30] [--starts 3] [--pace-ms 1200] [--burst 20]
//        [--list-project P] [--write-project P]
import http from 'node:http';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { countNames, findEtag, quantile, row, sampleRows, textBytes, treeCpuTicks } from './lib.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const opt = {
    sdk: resolve(HERE, '../../tests/clients/node_modules'),
    n: 100,
    reps: 30,
    starts: 3,
    'pace-ms': 1200,
    'clk-tck': 100,
    burst: 20,
    'list-project': 'mcp-list',
    'write-project': 'mcp-write',
};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || argv[i + 1] === undefined) {
        console.error(`driver: bad argument ${argv[i]} (see the header of ${fileURLToPath(import.meta.url)})`);
        process.exit(2);
    }
    opt[argv[i].slice(2)] = argv[i + 1];
}
for (const k of ['nodus', 'peer', 'kubeconfig', 'server', 'out']) {
    if (!opt[k]) {
        console.error(`driver: --${k} is required`);
        process.exit(2);
    }
}
const N = Number(opt.n);
const REPS = Number(opt.reps);
const PACE = Number(opt['pace-ms']);
const BURST = Number(opt.burst);
const LP = opt['list-project'];
const WP = opt['write-project'];
const say = (s) => console.error(`bench mcp: ${s}`);
const out = (s) => appendFileSync(opt.out, s);

const sdkFile = (p) => pathToFileURL(join(opt.sdk, '@modelcontextprotocol/sdk/dist/esm/client', p)).href;
const { Client } = await import(sdkFile('index.js'));
const { StdioClientTransport } = await import(sdkFile('stdio.js'));
const { ListToolsResultSchema } = await import(
    pathToFileURL(join(opt.sdk, '@modelcontextprotocol/sdk/dist/esm/types.js')).href);

const JOB_SPEC = {
    image: 'nodus/pytorch:2.8-cuda12.8',
    resources: { gpu: { model: 'H100', count: 1 } },
    maxCostUSD: '10.00',
};
// The manifest an agent writes (YAML), the same for both servers but for the name.
const manifest = (name) =>
    `apiVersion: nodus.dev/v1\nkind: Job\nmetadata:\n  name: ${name}\n  namespace: ${WP}\n` +
    `spec:\n  image: ${JOB_SPEC.image}\n  maxCostUSD: "${JOB_SPEC.maxCostUSD}"\n` +
    `  resources:\n    gpu:\n      model: ${JOB_SPEC.resources.gpu.model}\n      count: 1\n`;
const listName = (i) => `bench-${String(i).padStart(3, '0')}`;

// ---- raw HTTP: the floor, and the untimed set-up a missing tool needs ------------------
function request(method, path, body) {
    const u = new URL(opt.server);
    return new Promise((ok, fail) => {
        const t0 = performance.now();
        const req = http.request(
            {
                host: u.hostname, port: u.port, path, method, agent: false,
                headers: body ? { 'Content-Type': 'application/json' } : {},
            },
            (res) => {
                let bytes = 0;
                res.on('data', (c) => (bytes += c.length));
                res.on('end', () => ok({ status: res.statusCode, ms: performance.now() - t0, bytes }));
            },
        );
        req.on('error', fail);
        req.end(body);
    });
}
const jobsPath = (p, name) => `/apis/nodus.dev/v1/namespaces/${p}/jobs${name ? '/' + name : ''}`;
const jobJson = (name) =>
    JSON.stringify({ apiVersion: 'nodus.dev/v1', kind: 'Job', metadata: { name }, spec: JOB_SPEC });

// ---- one MCP server over stdio, instrumented ------------------------------------------
class Server {
    constructor(label, command, args) {
        this.label = label;
        this.command = command;
        this.args = args;
        this.stderr = '';
    }

    async start() {
        const t0 = performance.now();
        this.transport = new StdioClientTransport({
            command: this.command,
            args: this.args,
            env: { KUBECONFIG: opt.kubeconfig, HOME: process.env.BENCH_HOME ?? process.env.HOME ?? '/tmp' },
            stderr: 'pipe',
        });
        this.transport.stderr?.on('data', (c) => (this.stderr = (this.stderr + c).slice(-4000)));
        this.client = new Client({ name: 'nodus-bench', version: '1' });
        await this.client.connect(this.transport);
        // tools/list as it comes (start), then as the SDK takes it: it compiles a validator
        // for each tool's outputSchema (the client's work, which the server's schemas size)
        const raw = await this.client.request({ method: 'tools/list' }, ListToolsResultSchema);
        const ms = performance.now() - t0;
        const t1 = performance.now();
        const tools = await this.client.listTools();
        this.sdkToolsMs = performance.now() - t1;
        this.toolsBytes = Buffer.byteLength(JSON.stringify(raw));
        this.tools = new Set(tools.tools.map((t) => t.name));
        // the server's stdout, counted before the transport parses it
        this.bytes = 0;
        this.transport._process?.stdout?.prependListener('data', (c) => (this.bytes += c.length));
        const send = this.transport.send.bind(this.transport);
        this.transport.send = (msg, o) => {
            if (msg.method === 'tools/call') this.sent = { id: msg.id, t: performance.now(), b: this.bytes };
            return send(msg, o);
        };
        const onmessage = this.transport.onmessage;
        this.transport.onmessage = (msg, extra) => {
            if (this.sent && msg.id === this.sent.id && msg.method === undefined)
                this.got = { t: performance.now(), b: this.bytes };
            onmessage(msg, extra);
        };
        return ms;
    }

    // CPU: the ticks used since the last call are that call's (the pause between calls
    // lets a forked child be reaped); label: where they go, or null (not recorded)
    settle(label) {
        let now = null;
        try {
            now = treeCpuTicks(this.transport._process.pid, readFileSync);
        } catch {
            return;
        }
        if (this.cpuLabel && this.cpuAt !== undefined) {
            cpu[this.label] ??= {};
            cpu[this.label][this.cpuLabel] = (cpu[this.label][this.cpuLabel] ?? 0) + now - this.cpuAt;
        }
        this.cpuAt = now;
        this.cpuLabel = label;
    }

    async call(name, args, label = null) {
        this.settle(label);
        this.sent = this.got = null;
        const t0 = performance.now();
        let result;
        try {
            result = await this.client.callTool({ name, arguments: args });
        } catch (e) {
            // the SDK refused the answer (e.g. structuredContent against the outputSchema)
            result = { isError: true, content: [{ type: 'text', text: `the MCP client threw: ${e.message}` }] };
        }
        const sdkMs = performance.now() - t0;
        const resultBytes = Buffer.byteLength(JSON.stringify(result));
        return {
            result,
            ms: this.got ? this.got.t - this.sent.t : sdkMs,
            sdkMs,
            wireBytes: this.got && this.transport._process ? this.got.b - this.sent.b : resultBytes + 1,
            resultBytes,
            textBytes: textBytes(result),
        };
    }

    async close() {
        await this.client.close().catch(() => {});
    }
}

// ---- the tasks -----------------------------------------------------------------------
const nodus = new Server('nodus', opt.nodus, ['mcp']);
const peer = new Server('peer', opt.peer, ['--kubeconfig', opt.kubeconfig]);

// tools each server needs per task
const NEEDS = {
    nodus: { list: ['list'], get: ['get'], apply: ['apply'], delete: ['delete'] },
    peer: {
        list: ['resources_list'], get: ['resources_get'],
        apply: ['resources_create_or_update'], delete: ['resources_delete'],
    },
};
const TASKS = ['list', 'get', 'apply', 'delete'];

// samples[server][task] = [{ms, sdkMs, wireBytes, resultBytes, textBytes}]
const samples = {};
const errors = {};
const firstError = {};
const listNames = {};
const notes = {};
const cpu = {}; // cpu[server][task]: clock ticks over the recorded calls
const addSample = (srv, task, s) => ((samples[srv] ??= {})[task] ??= []).push(s);
function check(srv, task, r) {
    if (!r.result.isError) return true;
    const k = `${srv}\t${task}`;
    errors[k] = (errors[k] ?? 0) + 1;
    if (!firstError[k]) {
        firstError[k] = JSON.stringify(r.result.content?.[0]?.text ?? r.result).slice(0, 300);
        say(`${srv} ${task}: isError: ${firstError[k]}`);
    }
    return false;
}

const nodusArgs = {
    list: () => ({ kind: 'jobs', project: LP, limit: N }),
    get: (name) => ({ kind: 'jobs', name, project: LP }),
    delete: (name) => ({ kind: 'jobs', name, project: WP }),
};
const peerArgs = {
    list: () => ({ apiVersion: 'nodus.dev/v1', kind: 'Job', namespace: LP }),
    get: (name) => ({ apiVersion: 'nodus.dev/v1', kind: 'Job', name, namespace: LP }),
    apply: (name) => ({ resource: manifest(name) }),
    delete: (name) => ({ apiVersion: 'nodus.dev/v1', kind: 'Job', name, namespace: WP }),
};

// the name a repetition applies and deletes, per server
const writeName = (srv, rep) => `mcp-${srv[0]}-${rep < 0 ? 'w' : rep}`;

async function nodusApply(name, record) {
    const review = await nodus.call('apply', { manifest: manifest(name), project: WP }, record ? 'apply-review' : null);
    if (!check('nodus', 'apply', review)) return;
    const etag = findEtag(review.result);
    if (!etag) {
        notes.apply = 'the first apply launched at once (its answer has no ETag): one call';
        if (record) addSample('nodus', 'apply', review);
        return;
    }
    const launch = await nodus.call('apply', { manifest: manifest(name), project: WP, etag },
        record ? 'apply-launch' : null);
    if (!check('nodus', 'apply', launch)) return;
    if (launch.result.structuredContent?.reviewOnly === true) {
        // the ETag did not launch it: count it as a failed task, with what it said
        check('nodus', 'apply', { result: { isError: true, content: [{ type: 'text',
            text: `the launch with the review's ETag was another review: ${launch.result.content?.[0]?.text}` }] } });
        return;
    }
    if (!record) return;
    addSample('nodus', 'apply-review', review);
    addSample('nodus', 'apply-launch', launch);
    const sum = {};
    for (const k of ['ms', 'sdkMs', 'wireBytes', 'resultBytes', 'textBytes']) sum[k] = review[k] + launch[k];
    addSample('nodus', 'apply', sum);
}

async function runTask(srv, task, rep, record) {
    const pick = () => listName(((rep + 1) * 37 + 11) % N);
    if (srv === 'http') {
        let r;
        if (task === 'list') r = await request('GET', `${jobsPath(LP)}?limit=${N}`);
        else if (task === 'get') r = await request('GET', jobsPath(LP, pick()));
        else if (task === 'apply') r = await request('POST', jobsPath(WP), jobJson(writeName(srv, rep)));
        else r = await request('DELETE', jobsPath(WP, writeName(srv, rep)));
        if (r.status >= 300) {
            say(`http ${task}: HTTP ${r.status}`);
            errors[`http\t${task}`] = (errors[`http\t${task}`] ?? 0) + 1;
        } else if (record) {
            addSample('http', task, { ms: r.ms, sdkMs: r.ms, wireBytes: r.bytes, resultBytes: r.bytes, textBytes: r.bytes });
        }
        return;
    }
    const S = srv === 'nodus' ? nodus : peer;
    const missing = NEEDS[srv][task].filter((t) => !S.tools.has(t));
    if (missing.length) {
        // what the task acts on still has to be there (or go) for the next tasks
        if (task === 'apply') await request('POST', jobsPath(WP), jobJson(writeName(srv, rep)));
        if (task === 'delete') await request('DELETE', jobsPath(WP, writeName(srv, rep)));
        return;
    }
    if (srv === 'nodus' && task === 'apply') return nodusApply(writeName(srv, rep), record);
    const name = task === 'get' ? pick() : writeName(srv, rep);
    const args = srv === 'nodus' ? nodusArgs[task](name) : peerArgs[task](name);
    const r = await S.call(NEEDS[srv][task][0], args, record ? task : null);
    if (!check(srv, task, r)) return;
    if (task === 'list') {
        const k = countNames(r.result, /bench-\d{3}/g);
        listNames[srv] = Math.min(listNames[srv] ?? Infinity, k);
    }
    if (record) addSample(srv, task, r);
}

// ---- the run -------------------------------------------------------------------------
writeFileSync(opt.out, '');
const starts = { nodus: [], peer: [] };
const sdkTools = { nodus: [], peer: [] };
for (let i = 0; i < Number(opt.starts); i++) {
    for (const S of i % 2 ? [peer, nodus] : [nodus, peer]) {
        if (i) await S.close();
        try {
            starts[S.label].push(await S.start());
            sdkTools[S.label].push(S.sdkToolsMs);
        } catch (e) {
            say(`${S.label} did not start: ${e.message}; its stderr:\n${S.stderr}`);
            process.exit(1);
        }
    }
}
for (const srv of ['nodus', 'peer']) {
    const S = srv === 'nodus' ? nodus : peer;
    for (const task of TASKS) {
        const missing = NEEDS[srv][task].filter((t) => !S.tools.has(t));
        if (missing.length) {
            const msg = `n/a: tool ${missing.join(', ')} not served`;
            say(`${srv} ${task}: ${msg}`);
            out(row(srv, N, task, 'na', msg));
        }
    }
    const st = starts[srv];
    out(row(srv, N, 'start', 'p50_ms', quantile(st, 0.5).toFixed(3)));
    out(row(srv, N, 'start', 'calls', st.length));
    out(row(srv, N, 'sdk-tools', 'p50_ms', quantile(sdkTools[srv], 0.5).toFixed(3)));
    out(row(srv, N, 'tools', 'result_bytes', S.toolsBytes));
    out(row(srv, N, 'tools', 'count', S.tools.size));
}
say(`${REPS} repetitions of ${TASKS.join(', ')} (after one not recorded), servers taking turns`);
const sleep = (ms) => new Promise((ok) => setTimeout(ok, Math.max(0, ms)));
for (let rep = -1; rep < REPS; rep++) {
    const t0 = performance.now();
    const order = rep % 2 ? ['peer', 'http', 'nodus'] : ['nodus', 'http', 'peer'];
    for (const task of TASKS) {
        for (const srv of order) await runTask(srv, task, rep, rep >= 0);
    }
    // an agent thinks between calls: pace the repetitions so that client-go's client-side
    // rate limit (5 requests/s, bursts of 10) never holds the peer back; the burst below
    // measures it
    await sleep(PACE - (performance.now() - t0));
}
// back to back: BURST gets in a row per server, the last half recorded
for (const S of [nodus, peer]) S.settle(null);
for (const S of [nodus, peer]) {
    const tool = NEEDS[S.label].get[0];
    if (!S.tools.has(tool)) continue;
    await sleep(PACE * 2);
    for (let i = 0; i < BURST; i++) {
        const name = listName((i * 7) % N);
        const r = await S.call(tool, S === nodus ? nodusArgs.get(name) : peerArgs.get(name));
        if (check(S.label, 'get-burst', r) && i >= BURST / 2) addSample(S.label, 'get-burst', r);
    }
}
// CPU per call, in ms (apply as a task: its two calls)
const TICK = 1000 / Number(opt['clk-tck']);
if (cpu.nodus?.['apply-review'] !== undefined)
    cpu.nodus.apply = cpu.nodus['apply-review'] + (cpu.nodus['apply-launch'] ?? 0);
for (const srv of ['nodus', 'peer']) {
    for (const [task, ticks] of Object.entries(cpu[srv] ?? {})) {
        const calls = samples[srv]?.[task]?.length;
        if (calls) out(row(srv, N, task, 'cpu_ms', ((ticks * TICK) / calls).toFixed(2)));
    }
}
for (const srv of ['nodus', 'peer', 'http']) {
    for (const task of ['list', 'get', 'apply', 'apply-review', 'apply-launch', 'delete', 'get-burst']) {
        const ss = samples[srv]?.[task] ?? [];
        const e = errors[`${srv}\t${task}`] ?? 0;
        if (!ss.length && !e) continue;
        out(sampleRows(srv, N, task, ss, e));
        if (firstError[`${srv}\t${task}`]) out(row(srv, N, task, 'error', firstError[`${srv}\t${task}`]));
    }
    if (listNames[srv] !== undefined) out(row(srv, N, 'list', 'names', listNames[srv]));
}
if (notes.apply) out(row('nodus', N, 'apply', 'note', notes.apply));
await nodus.close();
await peer.close();
say('done');
