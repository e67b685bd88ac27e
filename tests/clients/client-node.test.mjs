// The @kubernetes/client-node part of the client matrix: scenarios run in one process (node
// and client-node take a second to load), against the emulator at EMU_URL (started by 01-client-node.bats with --speed 0).
//
//   node client-node.test.mjs [--out DIR] [SCENARIO...]   (scenarios.mjs's runScenarios)
//
// Each scenario works in a project of its own (created with CoreV1Api), so they can run
// in any order; informer-expired resets the emulator and runs last.
import assert from 'node:assert/strict';
import net from 'node:net';
import * as k8s from '@kubernetes/client-node';
import { runScenarios } from './scenarios.mjs';
// Not exported from the package's index in 1.x; object.js uses this very module.
import { ObjectSerializer } from '@kubernetes/client-node/dist/serializer.js';

const GROUP = 'nodus.dev';
const VERSION = 'v1';
const PLURAL = 'volumes';
const API_VERSION = `${GROUP}/${VERSION}`;

// KubernetesObjectApi picks a model by kind alone, so nodus.dev/v1 Volume (and Job) would be
// read as the core V1Volume (V1Job) and lose their fields (kubernetes-client/javascript
// issue 2384), and a VolumeList's metadata as an object's (no continue, no
// remainingItemCount). Registering the kinds keeps the objects as the server sent them.
for (const kind of ['Volume', 'VolumeList', 'Job', 'JobList']) {
    ObjectSerializer.registerModel({ group: GROUP, version: VERSION, kind },
        { serialize: (o) => o, deserialize: (o) => o });
}

function kubeconfig(server) {
    const kc = new k8s.KubeConfig();
    // client-node 1.x refuses an http: server unless skipTLSVerify is set
    kc.loadFromOptions({
        clusters: [{ name: 'emulator', server, skipTLSVerify: true }],
        users: [{ name: 'user' }],
        contexts: [{ name: 'emulator', cluster: 'emulator', user: 'user', namespace: 'default' }],
        currentContext: 'emulator',
    });
    return kc;
}

function clients(server) {
    const kc = kubeconfig(server);
    return {
        kc,
        core: kc.makeApiClient(k8s.CoreV1Api),
        custom: kc.makeApiClient(k8s.CustomObjectsApi),
        objects: k8s.KubernetesObjectApi.makeApiClient(kc),
    };
}

const server = process.env.EMU_URL;
if (!server && process.argv[2] !== '--list') {
    console.error('EMU_URL is not set: the bats file starts the emulator and sets it');
    process.exit(2);
}
const { kc, core, custom, objects } = server ? clients(server) : {};

const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const jsonPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch);
const apply = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply);

const names = (list) => list.items.map((o) => o.metadata.name);
const at = (namespace, extra = {}) => ({ group: GROUP, version: VERSION, namespace, plural: PLURAL, ...extra });

function volume(name, labels = {}, size = '10Gi') {
    return { apiVersion: API_VERSION, kind: 'Volume', metadata: { name, labels }, spec: { size } };
}

// The Status of a failed call: asserts the call failed with that code and reason.
async function expectStatus(promise, code, reason) {
    let result;
    try {
        result = await promise;
    } catch (err) {
        assert.ok(err instanceof k8s.ApiException, `not an ApiException: ${err && err.stack}`);
        const st = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
        assert.deepEqual({ http: err.code, kind: st.kind, code: st.code, reason: st.reason },
            { http: code, kind: 'Status', code, reason }, `Status: ${JSON.stringify(st)}`);
        return st;
    }
    assert.fail(`expected ${code} ${reason}, the call succeeded: ${JSON.stringify(result)}`);
}

// Polls fn until it returns a truthy value (every 20 ms, at most ms); the last value it saw
// (from describe) goes into the failure.
async function waitFor(what, fn, describe = () => '', ms = 10000) {
    const end = Date.now() + ms;
    for (;;) {
        const v = await fn();
        if (v)
            return v;
        if (Date.now() > end)
            assert.fail(`timed out waiting for ${what}; last saw ${describe()}`);
        await new Promise((r) => setTimeout(r, 20));
    }
}

async function project(name) {
    const ns = await core.createNamespace({ body: { metadata: { name, labels: { suite: 'clients' } } } });
    assert.equal(ns.metadata.name, name);
    return name;
}

// Creates Volumes and waits for each to settle: the emulator's controller writes the Ready
// condition into status just after a create (one MODIFIED event).
async function createVolumes(ns, specs) {
    const made = [];
    for (const [name, labels] of specs) {
        made.push(await custom.createNamespacedCustomObject({ ...at(ns), body: volume(name, labels) }));
        await settled(ns, name);
    }
    return made;
}

async function settled(ns, name) {
    let last;
    return waitFor(`${name}'s Ready condition`, async () => {
        last = await custom.getNamespacedCustomObject({ ...at(ns), name });
        return (last.status.conditions || []).some((c) => c.type === 'Ready') && last;
    }, () => JSON.stringify(last && last.status));
}

// A TCP proxy in front of the emulator whose connections the test can cut: drop() closes
// every connection through it and refuses new ones until restore().
async function proxy(target) {
    const { hostname, port } = new URL(target);
    const pairs = new Set();
    let up = true;
    const srv = net.createServer((c) => {
        if (!up) {
            c.destroy();
            return;
        }
        const u = net.connect(Number(port), hostname);
        const pair = [c, u];
        pairs.add(pair);
        const end = () => {
            c.destroy();
            u.destroy();
            pairs.delete(pair);
        };
        c.on('error', end).on('close', end);
        u.on('error', end).on('close', end);
        c.pipe(u);
        u.pipe(c);
    });
    await new Promise((r) => srv.listen(0, '127.0.0.1', r));
    return {
        url: `http://127.0.0.1:${srv.address().port}`,
        drop() {
            up = false;
            for (const [c, u] of pairs) {
                c.destroy();
                u.destroy();
            }
            pairs.clear();
        },
        restore() {
            up = true;
        },
        close() {
            this.drop();
            srv.close();
        },
    };
}

// name -> resourceVersion of a list of objects (server's list or an informer's cache)
const versions = (items) =>
    Object.fromEntries(items.map((o) => [o.metadata.name, o.metadata.resourceVersion]).sort());

const scenarios = {
    // CoreV1Api: projects are Namespaces
    async namespaces() {
        const ns = await core.createNamespace({
            body: { metadata: { name: 'cn-projects', labels: { suite: 'clients', team: 'a' } } },
        });
        assert.deepEqual([ns.kind, ns.metadata.name, ns.status.phase], ['Namespace', 'cn-projects', 'Active']);
        const read = await core.readNamespace({ name: 'cn-projects' });
        assert.equal(read.metadata.uid, ns.metadata.uid);
        const list = await core.listNamespace({ labelSelector: 'team=a' });
        assert.deepEqual(names(list), ['cn-projects']);
        // a create of a name that exists with the same spec is a retry: the object as it is
        const again = await core.createNamespace({ body: { metadata: { name: 'cn-projects' } } });
        assert.deepEqual([again.metadata.uid, again.metadata.labels.team], [ns.metadata.uid, 'a']);
        await core.deleteNamespace({ name: 'cn-projects' });
        await waitFor('the project to go', async () => {
            try {
                await core.readNamespace({ name: 'cn-projects' });
                return false;
            } catch (err) {
                return err.code === 404;
            }
        });
        await expectStatus(core.readNamespace({ name: 'cn-projects' }), 404, 'NotFound');
        await expectStatus(core.deleteNamespace({ name: 'default' }), 403, 'Forbidden');
        return `created, read, listed by label, created again (same uid), deleted (then 404), default is Forbidden`;
    },

    async 'create-get'() {
        const ns = await project('cn-create');
        const made = await custom.createNamespacedCustomObject({ ...at(ns), body: volume('data', { tier: 'fast' }) });
        assert.deepEqual([made.kind, made.metadata.name, made.metadata.namespace, made.spec.size, made.status.phase],
            ['Volume', 'data', ns, '10Gi', 'Pending']);
        assert.match(made.metadata.uid, /^vol_[0-9a-z]{26}$/);
        const got = await settled(ns, 'data');
        assert.deepEqual([got.metadata.uid, got.metadata.labels.tier, got.status.conditions[0].reason],
            [made.metadata.uid, 'fast', 'Pending']);
        // the generic client, by apiVersion and kind (discovery finds the plural)
        const made2 = await objects.create({ ...volume('logs'), metadata: { name: 'logs', namespace: ns } });
        assert.deepEqual([made2.kind, made2.metadata.name, made2.spec.size], ['Volume', 'logs', '10Gi']);
        const read2 = await objects.read({ apiVersion: API_VERSION, kind: 'Volume', metadata: { name: 'logs', namespace: ns } });
        assert.equal(read2.metadata.uid, made2.metadata.uid);
        const st = await expectStatus(custom.createNamespacedCustomObject({ ...at(ns), body: volume('data', {}, '20Gi') }),
            409, 'AlreadyExists');
        assert.equal(st.details.name, 'data');
        await expectStatus(custom.getNamespacedCustomObject({ ...at(ns), name: 'nothing' }), 404, 'NotFound');
        await expectStatus(custom.createNamespacedCustomObject({ ...at(ns), body: volume('Bad_Name') }), 422, 'Invalid');
        return `created data (${made.metadata.uid}) and logs, read both back, AlreadyExists, NotFound, Invalid`;
    },

    async 'list-selectors-pages'() {
        const ns = await project('cn-list');
        await createVolumes(ns, [['v1', { tier: 'fast' }], ['v2', { tier: 'fast' }], ['v3', { tier: 'slow' }],
            ['v4', { tier: 'slow', archived: 'yes' }], ['v5', { tier: 'slow' }]]);
        const all = await custom.listNamespacedCustomObject(at(ns));
        assert.deepEqual([all.kind, names(all)], ['VolumeList', ['v1', 'v2', 'v3', 'v4', 'v5']]);
        assert.deepEqual(names(await custom.listNamespacedCustomObject({ ...at(ns), labelSelector: 'tier=fast' })),
            ['v1', 'v2']);
        assert.deepEqual(names(await custom.listNamespacedCustomObject({ ...at(ns), labelSelector: 'tier in (slow),!archived' })),
            ['v3', 'v5']);
        assert.deepEqual(names(await custom.listNamespacedCustomObject({ ...at(ns), fieldSelector: 'metadata.name!=v1' })),
            ['v2', 'v3', 'v4', 'v5']);
        await expectStatus(custom.listNamespacedCustomObject({ ...at(ns), labelSelector: 'tier in (' }), 400, 'BadRequest');
        // across every project
        const across = await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL,
            labelSelector: 'tier=slow', fieldSelector: `metadata.namespace=${ns}` });
        assert.deepEqual(across.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
            [`${ns}/v3`, `${ns}/v4`, `${ns}/v5`]);

        // pages of 2: continue and remainingItemCount, and the first page's resourceVersion
        const pages = [];
        let token;
        do {
            const page = await custom.listNamespacedCustomObject({ ...at(ns), limit: 2, _continue: token });
            pages.push([names(page), page.metadata.remainingItemCount, page.metadata.resourceVersion]);
            token = page.metadata.continue;
            if (pages.length === 1) // a change between pages shows in no page
                await custom.deleteNamespacedCustomObject({ ...at(ns), name: 'v5' });
        } while (token && pages.length < 10);
        const rv = all.metadata.resourceVersion;
        assert.deepEqual(pages, [[['v1', 'v2'], 3, rv], [['v3', 'v4'], 1, rv], [['v5'], undefined, rv]]);

        // the generic client pages too, with a label selector
        const first = await objects.list(API_VERSION, 'Volume', ns, undefined, undefined, undefined, undefined,
            'tier=slow', 1);
        assert.deepEqual([names(first), first.metadata.remainingItemCount], [['v3'], 1]);
        const second = await objects.list(API_VERSION, 'Volume', ns, undefined, undefined, undefined, undefined,
            'tier=slow', 1, first.metadata.continue);
        assert.deepEqual([names(second), second.metadata.remainingItemCount, second.metadata.continue],
            [['v4'], undefined, undefined]);
        return `selectors and pages ${JSON.stringify(pages.map((p) => p[0]))}`;
    },

    async 'merge-patch'() {
        const ns = await project('cn-merge');
        await createVolumes(ns, [['data', { stage: 'raw', team: 'a' }]]);
        const p = await custom.patchNamespacedCustomObject(
            { ...at(ns), name: 'data', body: { metadata: { labels: { stage: null, owner: 'ana' } } } }, merge);
        assert.deepEqual([p.metadata.labels.stage, p.metadata.labels.owner, p.metadata.labels.team],
            [undefined, 'ana', 'a']);
        // the generic client: patch strategy as an argument
        const q = await objects.patch({ apiVersion: API_VERSION, kind: 'Volume', metadata: { name: 'data', namespace: ns, labels: { owner: 'bo' } } },
            undefined, undefined, undefined, undefined, k8s.PatchStrategy.MergePatch);
        assert.equal(q.metadata.labels.owner, 'bo');
        assert.notEqual(q.metadata.resourceVersion, p.metadata.resourceVersion);
        // a conditional merge patch with a stale resourceVersion
        const st = await expectStatus(custom.patchNamespacedCustomObject({ ...at(ns), name: 'data',
            body: { metadata: { resourceVersion: p.metadata.resourceVersion, labels: { owner: 'cy' } } } }, merge),
        409, 'Conflict');
        assert.equal(st.details.name, 'data');
        // without a patch content type the client sends a JSON patch, which a merge body is not
        await expectStatus(custom.patchNamespacedCustomObject({ ...at(ns), name: 'data', body: { metadata: {} } }),
            400, 'BadRequest');
        await expectStatus(custom.patchNamespacedCustomObject({ ...at(ns), name: 'none', body: {} }, merge), 404, 'NotFound');
        return `labels ${JSON.stringify(q.metadata.labels)}; stale resourceVersion is Conflict`;
    },

    async 'json-patch'() {
        const ns = await project('cn-json');
        await createVolumes(ns, [['data', { stage: 'raw' }]]);
        const p = await custom.patchNamespacedCustomObject({ ...at(ns), name: 'data', body: [
            { op: 'test', path: '/metadata/labels/stage', value: 'raw' },
            { op: 'replace', path: '/metadata/labels/stage', value: 'clean' },
            { op: 'add', path: '/metadata/annotations', value: { note: 'json patch' } },
        ] }, jsonPatch);
        assert.deepEqual([p.metadata.labels.stage, p.metadata.annotations.note], ['clean', 'json patch']);
        const st = await expectStatus(custom.patchNamespacedCustomObject({ ...at(ns), name: 'data', body: [
            { op: 'test', path: '/metadata/labels/stage', value: 'raw' },
            { op: 'replace', path: '/metadata/labels/stage', value: 'again' },
        ] }, jsonPatch), 422, 'Invalid');
        assert.match(st.message, /test failed/);
        const after = await custom.getNamespacedCustomObject({ ...at(ns), name: 'data' });
        assert.deepEqual([after.metadata.labels.stage, after.metadata.resourceVersion],
            ['clean', p.metadata.resourceVersion]);
        await expectStatus(custom.patchNamespacedCustomObject({ ...at(ns), name: 'data', body: { op: 'add' } }, jsonPatch),
            400, 'BadRequest'); // not a list of operations
        return `test+replace+add applied; failed test is Invalid and changes nothing`;
    },

    async 'server-side-apply'() {
        const ns = await project('cn-apply');
        const manifest = (size) => ({ apiVersion: API_VERSION, kind: 'Volume', metadata: { name: 'data', namespace: ns }, spec: { size } });
        const a = await custom.patchNamespacedCustomObject(
            { ...at(ns), name: 'data', body: manifest('100Gi'), fieldManager: 'alice', force: true }, apply);
        assert.deepEqual([a.spec.size, a.metadata.managedFields.map((m) => `${m.manager}/${m.operation}`)],
            ['100Gi', ['alice/Apply']]);
        const b = await custom.patchNamespacedCustomObject({ ...at(ns), name: 'data', body: { spec: { size: '200Gi' } },
            fieldManager: 'bob' }, merge);
        assert.equal(b.spec.size, '200Gi');
        const st = await expectStatus(custom.patchNamespacedCustomObject(
            { ...at(ns), name: 'data', body: manifest('300Gi'), fieldManager: 'alice' }, apply), 409, 'Conflict');
        assert.deepEqual(st.details.causes.map((c) => [c.reason, c.field]), [['FieldManagerConflict', '.spec.size']]);
        // the generic client: fieldManager and force as arguments
        const c = await objects.patch(manifest('300Gi'), undefined, undefined, 'alice', true,
            k8s.PatchStrategy.ServerSideApply);
        assert.deepEqual([c.spec.size, c.metadata.managedFields.map((m) => `${m.manager}/${m.operation}`)],
            ['300Gi', ['alice/Apply']]);
        await expectStatus(custom.patchNamespacedCustomObject({ ...at(ns), name: 'data', body: manifest('1Gi') }, apply),
            400, 'BadRequest'); // fieldManager is required
        return `created by apply, Conflict with bob on .spec.size, force took it over`;
    },

    async 'replace-conflict'() {
        const ns = await project('cn-replace');
        await createVolumes(ns, [['data', { stage: 'raw' }]]);
        const stale = await custom.getNamespacedCustomObject({ ...at(ns), name: 'data' });
        const fresh = structuredClone(stale);
        fresh.metadata.labels.stage = 'tuned';
        const r = await custom.replaceNamespacedCustomObject({ ...at(ns), name: 'data', body: fresh });
        assert.equal(r.metadata.labels.stage, 'tuned');
        assert.notEqual(r.metadata.resourceVersion, stale.metadata.resourceVersion);
        stale.metadata.labels.stage = 'overwritten';
        const st = await expectStatus(custom.replaceNamespacedCustomObject({ ...at(ns), name: 'data', body: stale }),
            409, 'Conflict');
        assert.deepEqual([st.status, st.details.name, st.details.group, st.details.kind],
            ['Failure', 'data', GROUP, 'volumes']);
        assert.match(st.message, /the object has been modified/);
        const gen = await expectStatus(objects.replace(stale), 409, 'Conflict');
        assert.equal(gen.details.name, 'data');
        const now = await custom.getNamespacedCustomObject({ ...at(ns), name: 'data' });
        assert.deepEqual([now.metadata.labels.stage, now.metadata.resourceVersion],
            ['tuned', r.metadata.resourceVersion]);
        return `stale resourceVersion ${stale.metadata.resourceVersion} is 409 Conflict; object unchanged`;
    },

    async delete() {
        const ns = await project('cn-delete');
        await createVolumes(ns, [['owner', {}], ['plain', {}]]);
        const owner = await custom.getNamespacedCustomObject({ ...at(ns), name: 'owner' });
        const ref = [{ apiVersion: API_VERSION, kind: 'Volume', name: 'owner', uid: owner.metadata.uid }];
        for (const name of ['kept', 'taken']) {
            const v = volume(name);
            v.metadata.ownerReferences = ref;
            await custom.createNamespacedCustomObject({ ...at(ns), body: v });
        }
        await expectStatus(custom.deleteNamespacedCustomObject({ ...at(ns), name: 'owner', propagationPolicy: 'Sometimes' }),
            400, 'BadRequest');
        // Orphan: the owner goes, its dependents stay without the reference
        const orphan = await custom.deleteNamespacedCustomObject({ ...at(ns), name: 'owner', propagationPolicy: 'Orphan' });
        assert.equal(orphan.metadata.name, 'owner');
        await waitFor('owner to go', async () => !names(await custom.listNamespacedCustomObject(at(ns))).includes('owner'));
        const kept = await custom.getNamespacedCustomObject({ ...at(ns), name: 'kept' });
        assert.equal(kept.metadata.ownerReferences, undefined);

        // Foreground through the generic client: the dependent goes, then the owner
        const boss = await objects.create({ ...volume('boss'), metadata: { name: 'boss', namespace: ns } });
        await custom.patchNamespacedCustomObject({ ...at(ns), name: 'taken', body: { metadata: { ownerReferences:
            [{ apiVersion: API_VERSION, kind: 'Volume', name: 'boss', uid: boss.metadata.uid }] } } }, merge);
        await objects.delete({ apiVersion: API_VERSION, kind: 'Volume', metadata: { name: 'boss', namespace: ns } },
            undefined, undefined, undefined, undefined, 'Foreground');
        await waitFor('boss and taken to go', async () => {
            const left = names(await custom.listNamespacedCustomObject(at(ns)));
            return !left.includes('boss') && !left.includes('taken');
        });
        await custom.deleteNamespacedCustomObject({ ...at(ns), name: 'plain', propagationPolicy: 'Background' });
        await expectStatus(custom.getNamespacedCustomObject({ ...at(ns), name: 'plain' }), 404, 'NotFound');
        assert.deepEqual(names(await custom.listNamespacedCustomObject(at(ns))), ['kept']);
        await expectStatus(custom.deleteNamespacedCustomObject({ ...at(ns), name: 'plain' }), 404, 'NotFound');
        return `bad policy 400, Orphan kept its dependent, Foreground took it, Background removed plain`;
    },

    async watch() {
        const ns = await project('cn-watch');
        await createVolumes(ns, [['before', { watched: 'yes' }]]);
        const start = await custom.listNamespacedCustomObject(at(ns));
        const path = `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}`;
        const w = new k8s.Watch(kc);
        const events = [];
        const initial = [];
        let ended = 'no';
        const from = await w.watch(path, { resourceVersion: start.metadata.resourceVersion, labelSelector: 'watched=yes' },
            (type, obj) => events.push([type, obj.metadata.name, obj.metadata.resourceVersion,
                obj.metadata.labels.stage ?? '', obj.status.conditions?.[0]?.reason ?? '-']),
            (err) => { ended = err ? String(err) : 'done'; });
        // a watch without resourceVersion first sends what exists, as ADDED
        const all = await w.watch(path, {}, (type, obj) => initial.push(`${type} ${obj.metadata.name}`), () => {});

        await createVolumes(ns, [['unseen', {}]]); // not selected
        const [made] = await createVolumes(ns, [['w1', { watched: 'yes' }]]); // ADDED, then its status
        const patched = await custom.patchNamespacedCustomObject(
            { ...at(ns), name: 'w1', body: { metadata: { labels: { stage: 'two' } } } }, merge);
        await custom.deleteNamespacedCustomObject({ ...at(ns), name: 'w1' });
        await waitFor('ADDED, MODIFIED and DELETED of w1', () => events.some((e) => e[0] === 'DELETED'),
            () => JSON.stringify(events));
        await waitFor('the unwatched list', () => initial.length >= 2, () => JSON.stringify(initial));
        assert.equal(ended, 'no'); // the server never ends a watch on its own
        from.abort();
        all.abort();
        assert.deepEqual(events.map((e) => `${e[0]} ${e[1]} ${e[3]} ${e[4]}`),
            ['ADDED w1  -', 'MODIFIED w1  Pending', 'MODIFIED w1 two Pending', 'DELETED w1 two Pending'],
            `events: ${JSON.stringify(events)}`);
        // the events carry the versions the writes answered, in order
        assert.deepEqual([events[0][2], events[2][2]], [made.metadata.resourceVersion, patched.metadata.resourceVersion]);
        const rvs = events.map((e) => Number(e[2]));
        assert.deepEqual(rvs, [...rvs].sort((a, b) => a - b), `resourceVersions in order: ${rvs}`);
        assert.equal(new Set(rvs).size, 4);
        assert.deepEqual(initial.slice(0, 2), ['ADDED before', 'ADDED unseen']);
        return events.map((e) => `${e[0]} ${e[1]}@${e[2]}`).join(', ');
    },

    async 'informer-drop'() {
        const ns = await project('cn-informer');
        await createVolumes(ns, [['a', {}], ['b', {}], ['c', {}]]);
        const px = await proxy(server);
        const via = clients(px.url);
        const path = `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}`;
        const inf = k8s.makeInformer(via.kc, path, () => via.custom.listNamespacedCustomObject(at(ns)));
        const seen = [];
        let errors = 0;
        let connects = 0;
        let restart = null;
        inf.on('add', (o) => seen.push(`add ${o.metadata.name}`));
        inf.on('update', (o) => seen.push(`update ${o.metadata.name}`));
        inf.on('delete', (o) => seen.push(`delete ${o.metadata.name}`));
        inf.on('connect', () => connects++);
        // as client-node's examples do: on an error, start again a little later
        inf.on('error', () => {
            errors++;
            if (!restart)
                restart = setTimeout(() => { restart = null; inf.start(); }, 50);
        });
        const serverList = async () => versions((await custom.listNamespacedCustomObject(at(ns))).items);
        const inSync = async () => {
            const want = await serverList();
            return JSON.stringify(versions(inf.list(ns))) === JSON.stringify(want);
        };
        const show = () => JSON.stringify({ cache: versions(inf.list(ns)), seen, errors });
        try {
            await inf.start();
            await waitFor('the first list', inSync, show);
            await custom.patchNamespacedCustomObject({ ...at(ns), name: 'a', body: { metadata: { labels: { n: '1' } } } }, merge);
            await waitFor('the change to a', inSync, show);

            px.drop(); // the watch connection goes, and the informer cannot reconnect
            await waitFor('the informer to see the drop', () => errors > 0, show);
            await custom.deleteNamespacedCustomObject({ ...at(ns), name: 'b' });
            await custom.createNamespacedCustomObject({ ...at(ns), body: volume('d') });
            await custom.patchNamespacedCustomObject({ ...at(ns), name: 'c', body: { metadata: { labels: { n: '2' } } } }, merge);
            // a reconnect while the proxy is down fails too: the changes above are unseen
            const errorsAtDrop = errors;
            await waitFor('a reconnect to fail', () => errors > errorsAtDrop, show);
            assert.notEqual(JSON.stringify(versions(inf.list(ns))), JSON.stringify(await serverList()));
            const errorsWhileDown = errors;

            px.restore();
            await waitFor('the informer to catch up', inSync, show);
            assert.deepEqual(Object.keys(versions(inf.list(ns))), ['a', 'c', 'd']);
            // adds and deletes exactly, in order; the updates the test made, each after the
            // drop's delete or before it as made (the emulator's own status writes may add
            // updates of their own, or fold into a relist, depending on timing)
            assert.deepEqual(seen.filter((e) => !e.startsWith('update ')),
                             ['add a', 'add b', 'add c', 'delete b', 'add d'], show());
            const pos = (e) => seen.indexOf(e);
            assert.ok(pos('update a') > pos('add c') && pos('update a') < pos('delete b'), show());
            assert.ok(seen.lastIndexOf('update c') > pos('delete b'), show());
            assert.equal(inf.get('c', ns).metadata.labels.n, '2');
            // and it follows again after the reconnect
            await custom.deleteNamespacedCustomObject({ ...at(ns), name: 'a' });
            await waitFor('the delete after the reconnect', inSync, show);
            assert.equal(seen.at(-1), 'delete a');
            return `cache ${JSON.stringify(versions(inf.list(ns)))} after ${errorsWhileDown} errors, ${connects} connects`;
        } finally {
            await inf.stop();
            clearTimeout(restart);
            px.close();
        }
    },

    // The emulator's reset sends open watches 410 Expired: the informer lists again.
    async 'informer-expired'() {
        const ns = 'default';
        await createVolumes(ns, [['old-1', {}], ['old-2', {}]]);
        const path = `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}`;
        const inf = k8s.makeInformer(kc, path, () => custom.listNamespacedCustomObject(at(ns)));
        const seen = [];
        inf.on('add', (o) => seen.push(`add ${o.metadata.name}`));
        inf.on('delete', (o) => seen.push(`delete ${o.metadata.name}`));
        inf.on('error', (err) => seen.push(`error ${err}`));
        const show = () => JSON.stringify({ cache: versions(inf.list(ns)), seen });
        try {
            await inf.start();
            await waitFor('the first list', () => inf.list(ns).length === 2, show);
            const res = await fetch(`${server}/emulator/v1/reset`, {
                method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}',
            });
            assert.equal(res.status, 200);
            await waitFor('the relist', () => inf.list(ns).length === 0, show);
            await createVolumes(ns, [['new-1', {}]]);
            await waitFor('the new object', () => inf.list(ns).length === 1, show);
            assert.deepEqual(seen, ['add old-1', 'add old-2', 'delete old-1', 'delete old-2', 'add new-1']);
            return seen.join(', ');
        } finally {
            await inf.stop();
        }
    },
};

await runScenarios(scenarios);
