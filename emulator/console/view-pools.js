// view-pools.js: #/pools: each Pool of the project chosen (or of every project) with its
// Hosts, their devices (GPU model, count, free and in use), what runs on each host (the
// Jobs and Sandboxes placed there) and the PoolActions waiting for a decision. Live from
// three watches (pools, hosts, poolactions); the work on the hosts is listed again when a
// watch says something changed (a host's devices, a Pool's waiting work), never on a timer.
import * as api from './api.js';
import * as clock from './clock.js';
import { h, fill, errorBox } from './dom.js';

const key = (o) => `${o.metadata?.namespace || ''}/${o.metadata?.name || ''}`;
const link = (plural, o, text) => h('a', { href: `#/o/${plural}/${o.metadata?.namespace || '-'}/${o.metadata?.name}` },
                                    text ?? o.metadata?.name);
const cond = (o, type) => (o.status?.conditions || []).find((c) => c.type === type);
const pendingOf = (a) => (a.status?.decision || a.spec?.decision || 'Pending') === 'Pending';

// "8xH100" badges of a host's devices: free / used per model.
function devices(host) {
    const all = host.spec?.gpus || {};
    const used = host.status?.allocated || {};
    const models = Object.keys(all).sort();
    if (!models.length) return h('span.muted', 'no GPUs');
    return models.map((m) => {
        const n = Number(all[m]) || 0, u = Number(used[m]) || 0;
        const bar = h('span.gpubar', { role: 'img', 'aria-label': `${u} of ${n} ${m} in use` },
            Array.from({ length: Math.min(n, 16) }, (_, i) => h(i < u ? 'span.gpu.used' : 'span.gpu.free')));
        return h('div.devices', { dataset: { model: m } }, h('strong', `${n}x${m}`), ' ', bar,
                 h('span.muted', ` ${n - u} free, ${u} used`));
    });
}

export default function render(el, params, shell) {
    const kinds = ['pools', 'hosts', 'poolactions', 'jobs', 'sandboxes'].map((p) => shell.kinds.byPlural(p));
    if (kinds.slice(0, 3).some((k) => !k)) { fill(el, h('p', 'This server has no Pools.')); return null; }
    const [poolK, hostK, actK, jobK, boxK] = kinds;
    const project = shell.project();
    const pools = new Map(), hosts = new Map(), acts = new Map();
    let work = []; // Jobs and Sandboxes placed in a Pool: {kind, plural, obj}
    const ctl = new AbortController();
    const state = h('span.live', { role: 'status' }, 'connecting…');
    const body = h('div#pools-body', h('p.muted', 'loading…'));
    fill(el, h('div.head', h('h1', 'Pools'), h('span.muted', project ? ` in ${project}` : ' in every project'), state), body);

    const draw = () => {
        if (!pools.size) { fill(body, h('p.muted', 'No Pools. A Pool groups your own Hosts: see docs/pools.md.')); return; }
        const list = [...pools.values()].sort((a, b) => key(a).localeCompare(key(b)));
        fill(body, list.map((p) => {
            const ns = p.metadata.namespace, name = p.metadata.name;
            const hs = [...hosts.values()].filter((x) => x.metadata.namespace === ns && x.spec?.pool === name)
                .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
            const mine = work.filter((w) => w.obj.metadata.namespace === ns && w.obj.status?.placement?.target === `pool/${name}`);
            const pending = [...acts.values()].filter((a) => a.metadata.namespace === ns && a.spec?.pool === name && pendingOf(a));
            const cap = p.status?.capacity || {};
            const gpus = Object.entries(cap.gpus || {}).map(([m, c]) => `${m} ${c.free}/${c.total} free`).join(', ');
            const waiting = p.status?.routing?.waiting || 0;
            return h('section.pool', { dataset: { pool: name, project: ns }, 'aria-label': `Pool ${name}` },
                h('h2', 'Pool ', link('pools', p), h('span.muted', ` ${ns} · ${p.status?.phase || 'Pending'}`)),
                h('p.summary', `${cap.readyNodes ?? 0}/${cap.nodes ?? 0} hosts ready`, gpus ? ` · ${gpus}` : '',
                  waiting ? ` · ${waiting} waiting` : '', ` · Act ${p.spec?.act?.mode || 'Off'}`,
                  p.status?.utilization ? ` · ${p.status.utilization.gpuPercent ?? 0}% used (${p.status.utilization.window || '24h'})` : ''),
                h('div.scroll', h('table.hosts', { 'aria-label': `Hosts of pool ${name}` },
                    h('thead', h('tr', h('th', 'HOST'), h('th', 'PHASE'), h('th', 'DEVICES'), h('th', 'RUNNING HERE'))),
                    h('tbody', hs.length ? hs.map((x) => {
                        const here = mine.filter((w) => w.obj.status?.placement?.host === x.metadata.name);
                        return h('tr', { dataset: { name: x.metadata.name } },
                            h('td', link('hosts', x), x.spec?.cordoned ? h('span.tag', ' cordoned') : null),
                            h('td', x.status?.phase || 'Pending'),
                            h('td', devices(x)),
                            h('td.work', here.length ? here.map((w) => h('div', { dataset: { work: w.obj.metadata.name } },
                                link(w.plural, w.obj, `${w.kind} ${w.obj.metadata.name}`),
                                h('span.muted', ` ${w.obj.status?.phase || ''} · ${w.obj.status?.placement?.gpuModel || ''}`)))
                                : h('span.muted', 'idle')));
                    }) : h('tr', h('td.muted', { colspan: 4 }, 'No hosts enrolled.'))))),
                h('h3', 'Waiting for a decision'),
                pending.length ? h('ul.actions-list', pending.map((a) => h('li', { dataset: { name: a.metadata.name } },
                    link('poolactions', a), ` ${a.spec?.action || ''} ${a.spec?.target || ''}`,
                    h('span.muted', ` · ${a.status?.phase || 'Queued'} · ${clock.ago(a.metadata.creationTimestamp)}`),
                    a.spec?.reason ? h('div.muted', a.spec.reason) : null)))
                    : h('p.muted', 'No PoolAction is waiting.'));
        }));
    };

    // The Jobs and Sandboxes placed in Pools: listed again after a change a watch saw
    // (at most one listing at a time; a change during one asks for one more).
    let listing = false, again = false;
    const listWork = async () => {
        if (listing) { again = true; return; }
        listing = true;
        try {
            do {
                again = false;
                const got = await Promise.all([jobK, boxK].filter(Boolean).map(async (k) =>
                    ((await api.get(api.collection(k, project), { signal: ctl.signal })).items || [])
                        .filter((o) => o.status?.placement?.target?.startsWith('pool/'))
                        .map((obj) => ({ kind: k.kind, plural: k.plural, obj }))));
                work = got.flat();
                draw();
            } while (again && !ctl.signal.aborted);
        } catch (err) {
            if (!ctl.signal.aborted) fill(state, errorBox(err));
        } finally { listing = false; }
    };

    const live = (kind, map, onChange) => api.watch(api.collection(kind, project), {
        onList: (list) => { map.clear(); for (const o of list.items || []) map.set(key(o), o); onChange(); },
        onEvent: (ev) => { if (ev.type === 'DELETED') map.delete(key(ev.object)); else map.set(key(ev.object), ev.object); onChange(); },
        onState: (s, err) => {
            state.textContent = s === 'live' ? '● live' : s;
            state.className = `live ${s}`;
            if (err) fill(body, errorBox(err));
        },
    });
    const watches = [
        live(poolK, pools, () => { draw(); listWork(); }),
        live(hostK, hosts, () => { draw(); listWork(); }),
        live(actK, acts, draw),
    ];
    const unsub = clock.subscribe(draw);
    return () => { ctl.abort(); for (const w of watches) w.stop(); unsub(); };
}
