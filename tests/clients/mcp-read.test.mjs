// The read tools of `nodus mcp`, through the official MCP client (@modelcontextprotocol/sdk,
// pinned in package.json): one `nodus mcp` on stdio against the emulator at EMU_URL (started,
// and filled with objects, by 04-mcp-read.bats), every read tool called and its answer
// checked against what the CLI prints for the same thing. The SDK checks each
// structuredContent against the tool's outputSchema (errors too).
//
//   node mcp-read.test.mjs [--out DIR] [SCENARIO...]   (scenarios.mjs's runScenarios)
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { NODUS, connect, runScenarios } from './mcp-lib.mjs';

const READ_TOOLS = ['api_resources', 'list', 'get', 'describe', 'explain', 'events', 'top',
    'can_i'];

// What the CLI prints (stdout) for args, with the same environment as `nodus mcp`.
function cli(...args) {
    return execFileSync(NODUS, args, { encoding: 'utf8', env: process.env });
}

let client;
async function call(name, args = {}) {
    return client.callTool({ name, arguments: args });
}
const text = (r) => r.content[0].text;
function ok(r) {
    assert.ok(!r.isError, `the call failed: ${r.content?.[0]?.text}`);
    return r;
}
function failed(r, reason) {
    assert.equal(r.isError, true, `expected an error, got: ${text(r)}`);
    assert.equal(r.structuredContent.status.reason, reason, text(r));
    return r.structuredContent.status;
}

const scenarios = {
    async 'tools-listed'() {
        const { tools } = await client.listTools();
        const names = tools.map((t) => t.name);
        for (const n of READ_TOOLS) {
            const t = tools.find((x) => x.name === n);
            assert.ok(t, `${n} is not listed (listed: ${names})`);
            assert.ok(t.title && t.description, `${n} has no title or description`);
            assert.equal(t.inputSchema.type, 'object');
            assert.equal(t.outputSchema?.type, 'object', `${n} has no outputSchema`);
            assert.equal(t.annotations.readOnlyHint, true, `${n} is not readOnlyHint`);
            assert.equal(t.annotations.destructiveHint, false);
        }
        return `${READ_TOOLS.length} read tools, each with title, schemas, readOnlyHint`;
    },
    async 'api-resources'() {
        const r = ok(await call('api_resources'));
        assert.equal(text(r), cli('api-resources', '-o', 'wide'));
        const jobs = r.structuredContent.resources.find((x) => x.name === 'jobs');
        assert.equal(jobs.kind, 'Job');
        assert.equal(jobs.group, 'nodus.dev');
        assert.equal(jobs.namespaced, true);
        assert.ok(jobs.verbs.includes('create') && jobs.verbs.includes('watch'), jobs.verbs);
        assert.deepEqual(jobs.shortNames, ['nj']);
        assert.ok(jobs.subresources.includes('log'), jobs.subresources);
        const images = r.structuredContent.resources.find((x) => x.name === 'images');
        assert.deepEqual(images.verbs, ['get', 'list', 'watch']);
        return `text = api-resources -o wide; jobs: ${jobs.verbs.length} verbs, `
            + `short ${jobs.shortNames}, subresources ${jobs.subresources}`;
    },
    async 'list-table'() {
        const r = ok(await call('list', { kind: 'jobs' }));
        assert.equal(text(r), cli('get', 'jobs'));
        const s = r.structuredContent;
        assert.equal(s.kind, 'Job');
        assert.equal(s.project, 'default');
        assert.deepEqual(s.items.map((i) => i.name), ['train-a', 'train-b', 'train-c']);
        assert.equal(s.continue, undefined);
        const a = s.items[0];
        assert.equal(a.project, 'default');
        assert.equal(a.phase, 'Running');
        assert.equal(a.gpu, '1xH100');
        assert.equal(a.cost, cli('get', 'jobs', 'train-a', '--no-headers').split(/ +/)[4]);
        assert.equal(a.metadata, undefined, 'a compact row carries no object');
        return `text = nodus get jobs; rows ${JSON.stringify(a)}`;
    },
    async 'list-pages'() {
        const p1 = ok(await call('list', { kind: 'job', limit: 2 }));
        const s1 = p1.structuredContent;
        assert.deepEqual(s1.items.map((i) => i.name), ['train-a', 'train-b']);
        assert.ok(s1.continue, 'no continue token on the first page');
        assert.equal(s1.remainingItemCount, 1);
        assert.ok(text(p1).includes(`"continue": "${s1.continue}"`), text(p1));
        assert.ok(text(p1).includes('2 shown, 1 more'), text(p1));
        const p2 = ok(await call('list', { kind: 'job', limit: 2, continue: s1.continue }));
        const s2 = p2.structuredContent;
        assert.deepEqual(s2.items.map((i) => i.name), ['train-c']);
        assert.equal(s2.continue, undefined);
        assert.ok(!text(p2).includes('continue'), text(p2));
        const big = await call('list', { kind: 'jobs', limit: 501 });
        const st = failed(big, 'BadRequest');
        assert.match(st.message, /limit 501/);
        return `page 1 ${s1.items.length} + remaining ${s1.remainingItemCount}, page 2 `
            + `${s2.items.length}; limit 501: ${st.reason}`;
    },
    async 'list-selectors'() {
        const l = ok(await call('list', { kind: 'jobs', labelSelector: 'app=trainer' }));
        assert.equal(text(l), cli('get', 'jobs', '-l', 'app=trainer'));
        assert.deepEqual(l.structuredContent.items.map((i) => i.name), ['train-a', 'train-b']);
        const f = ok(await call('list', { kind: 'jobs', fieldSelector: 'metadata.name=train-c' }));
        assert.deepEqual(f.structuredContent.items.map((i) => i.name), ['train-c']);
        const all = ok(await call('list', { kind: 'jobs', allProjects: true }));
        assert.equal(text(all), cli('get', 'jobs', '-A'));
        assert.deepEqual(all.structuredContent.items.map((i) => `${i.project}/${i.name}`),
            ['default/train-a', 'default/train-b', 'default/train-c', 'lab/probe']);
        const other = ok(await call('list', { kind: 'jobs', project: 'lab' }));
        assert.equal(text(other), cli('get', 'jobs', '-n', 'lab'));
        const none = ok(await call('list', { kind: 'jobs', project: 'empty' }));
        assert.equal(text(none), 'No resources found in empty namespace.\n');
        return `-l 2 rows, field selector 1, -A ${all.structuredContent.items.length} rows, `
            + `project lab ${other.structuredContent.items.length}, empty: ${text(none).trim()}`;
    },
    async 'list-full'() {
        const r = ok(await call('list', { kind: 'jobs', full: true, limit: 1 }));
        const [o] = r.structuredContent.items;
        assert.equal(o.kind, 'Job');
        assert.equal(o.metadata.name, 'train-a');
        assert.equal(o.spec.resources.gpu.model, 'H100');
        assert.equal(o.metadata.managedFields, undefined);
        assert.ok(r.structuredContent.continue);
        return `the whole object: spec.maxCostUSD ${o.spec.maxCostUSD}, status.phase `
            + `${o.status.phase}, no managedFields`;
    },
    async 'misspelt-kind'() {
        const st = failed(await call('list', { kind: 'jbos' }), 'NotFound');
        assert.equal(st.code, 404);
        assert.match(st.message, /jbos/);
        assert.match(st.fix, /did you mean jobs\?/);
        const g = failed(await call('get', { kind: 'jbo', name: 'x' }), 'NotFound');
        assert.match(g.fix, /did you mean job\?/);
        return `${st.reason}: ${st.message}; fix: ${st.fix}`;
    },
    async 'get-describe'() {
        const g = ok(await call('get', { kind: 'job', name: 'train-a' }));
        assert.equal(text(g), cli('get', 'job', 'train-a', '-o', 'yaml'));
        assert.equal(g.structuredContent.object.metadata.name, 'train-a');
        const j = ok(await call('get', { kind: 'job', name: 'train-a', format: 'json' }));
        assert.equal(JSON.parse(text(j)).metadata.name, 'train-a');
        const nf = failed(await call('get', { kind: 'job', name: 'nope' }), 'NotFound');
        const empty = failed(await call('get', { kind: 'job', name: '' }), 'BadRequest');
        const d = ok(await call('describe', { kind: 'jobs', name: 'train-a' }));
        assert.equal(text(d), cli('describe', 'job', 'train-a'));
        assert.deepEqual(d.structuredContent, { kind: 'Job', name: 'train-a', project: 'default' });
        const dn = failed(await call('describe', { kind: 'job', name: 'nope' }), 'NotFound');
        return `get = get -o yaml, describe = nodus describe; missing: ${nf.reason}, `
            + `${dn.reason}; empty name: ${empty.reason}`;
    },
    async 'explain'() {
        const r = ok(await call('explain', { field: 'job.spec.resources' }));
        assert.equal(text(r), cli('explain', 'job.spec.resources'));
        assert.deepEqual(r.structuredContent, { field: 'job.spec.resources' });
        const st = failed(await call('explain', { field: 'job.spec.resourcez' }), 'NotFound');
        assert.equal(st.code, 404);
        assert.equal(st.message, 'field "resourcez" does not exist');
        assert.match(st.fix, /did you mean resources\? list the fields: nodus explain jobs.spec/);
        const kind = failed(await call('explain', { field: 'jbo.spec' }), 'NotFound');
        assert.match(kind.fix, /did you mean job\?/);
        return `text = nodus explain; misspelt: ${st.message}; fix: ${st.fix}`;
    },
    async 'events'() {
        const r = ok(await call('events', { kind: 'job', name: 'train-a' }));
        assert.equal(text(r), cli('get', 'events', '--field-selector',
            'involvedObject.name=train-a,involvedObject.kind=Job'));
        const reasons = r.structuredContent.events.map((e) => e.reason);
        assert.deepEqual(reasons, ['Created', 'Provisioning', 'Running']);
        assert.equal(r.structuredContent.events[0].type, 'Normal');
        assert.equal(r.structuredContent.events[0].count, 1);
        const nf = failed(await call('events', { kind: 'job', name: 'nope' }), 'NotFound');
        return `text = get events --field-selector ...; ${reasons}; missing object: ${nf.reason}`;
    },
    async 'top'() {
        const r = ok(await call('top', { what: 'jobs' }));
        const verb = cli('top', 'jobs');
        assert.ok(text(r).startsWith(verb), `${text(r)}\n--- does not start with ---\n${verb}`);
        const s = r.structuredContent;
        assert.equal(s.what, 'jobs');
        assert.deepEqual(s.spend.map((x) => `${x.project}/${x.kind}/${x.running}`),
            ['default/Job/3']);
        // the verb's total line: "3 running, $9.39/h, $1.41 so far"
        const [, rate, cost] = verb.match(/3 running, \$([0-9.]+)\/h, \$([0-9.]+) so far/);
        assert.equal(Number(s.total.rateUSDPerHour).toFixed(2), rate);
        assert.equal((Math.round(Number(s.total.costUSD) * 100) / 100).toFixed(2), cost);
        assert.match(text(r), /Spend, per project and kind:\nPROJECT +KIND +RUNNING +RATE +COST\n/);
        const all = ok(await call('top', { what: 'jobs', allProjects: true }));
        assert.deepEqual(all.structuredContent.spend.map((x) => `${x.project}/${x.running}`),
            ['default/3', 'lab/1']);
        const pools = ok(await call('top', { what: 'pools' }));
        assert.ok(text(pools).startsWith(cli('top', 'pools')), text(pools));
        return `text starts with nodus top jobs; spend default/Job 3 running at `
            + `$${s.total.rateUSDPerHour}/h, $${s.total.costUSD} so far; -A 2 projects`;
    },
    async 'can-i'() {
        const yes = ok(await call('can_i', { verb: 'create', kind: 'jobs' }));
        assert.deepEqual(yes.structuredContent, { allowed: true, reason: '' });
        assert.equal(text(yes), cli('auth', 'can-i', 'create', 'jobs'));
        const log = ok(await call('can_i', { verb: 'get', kind: 'job', name: 'train-a',
            subresource: 'log' }));
        assert.equal(log.structuredContent.allowed, true);
        const no = ok(await call('can_i', { verb: 'create', kind: 'images' }));
        assert.equal(no.structuredContent.allowed, false);
        assert.match(no.structuredContent.reason, /cannot be changed/);
        const bad = failed(await call('can_i', { verb: 'get', kind: 'nodes' }), 'NotFound');
        return `create jobs: yes; create images: no - ${no.structuredContent.reason}; `
            + `unknown kind: ${bad.reason}`;
    },
};

await runScenarios(scenarios, {
    async before() {
        client = await connect();
    },
    async after() {
        await client?.close();
        // what the server said (a sanitizer's report, under make asan) goes to node.log
        process.stderr.write(client?.stderrText() ?? '');
    },
});
