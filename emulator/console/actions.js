// actions.js: what a user may do to an object, through the public API with the CLI's
// rules. actionBar(kind, obj, shell) returns the object page's bar of buttons (the page
// places it and calls it again when the object changes):
//   suspend / resume / cancel   spec.state Suspended / Running / Cancelled (Jobs,
//                               Pipelines), stop / start spec.state Stopped / Running
//                               (Sandboxes, Functions, Budgets): `nodus suspend` etc.
//   approve / reject            spec.decision Approved / Rejected of a PoolAction while it
//                               is Pending: `nodus approve`, `nodus reject`
//   request ACTION              the annotation nodus.dev/ACTION-requested-at set to now:
//                               `nodus request restart sandbox/NAME`
//   delete                      asks first in a <dialog> naming what cascades (the objects
//                               whose ownerReferences name this one, and theirs), with the
//                               CLI's --cascade: background, or orphan to keep them
// Each write is a merge patch with the CLI's field manager (nodus-VERB) and an
// Idempotency-Key; each reports in the page's banner: done, or the Status (reason,
// message, fix).
import * as api from './api.js';
import { h, fill, banner, errorBox } from './dom.js';

// spec.state per kind, as the CLI's kinds table (pkg/kinds/kinds.c) says: the verbs and
// the state each sets. A kind not here has no spec.state to set.
const RUN = [['Suspend', 'Suspended', 'suspended'], ['Resume', 'Running', 'resumed'],
             ['Cancel', 'Cancelled', 'cancelled']];
const LONG = [['Stop', 'Stopped', 'stopped'], ['Start', 'Running', 'started']];
const STATES = { Job: RUN, Pipeline: RUN, Sandbox: LONG, Function: LONG, Budget: LONG };
// The one-off actions a kind takes (`nodus request ACTION`).
const REQUESTS = { Sandbox: ['restart'], Function: ['restart'] };
// Phases after which an object takes no more state changes.
const ENDED = ['Succeeded', 'Failed', 'Cancelled'];

// A fresh Idempotency-Key: 32 lower-case hex characters, as the CLI's.
export function idempotencyKey() {
    const b = crypto.getRandomValues(new Uint8Array(16));
    return [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
}

const label = (kind, obj) => `${kind.kind} ${obj.metadata?.name}`;
const pathOf = (kind, obj) => api.item(kind, obj.metadata?.namespace || '', obj.metadata?.name);

// A merge patch of obj as the CLI's verb sends it; resolves to the object it answered.
async function patch(kind, obj, verb, body) {
    const res = await api.call(api.withQuery(pathOf(kind, obj), { fieldManager: `nodus-${verb}` }), {
        method: 'PATCH', body,
        headers: { 'Content-Type': 'application/merge-patch+json', 'Idempotency-Key': idempotencyKey() },
    });
    return res.body;
}

// RFC 3339 to the second, as `nodus request` writes it.
const rfc3339 = (ms) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

// The objects that obj's deletion takes with it: those whose ownerReferences name it, and
// theirs in turn (as the emulator's garbage collector walks them), in obj's project (a
// cluster-scoped owner: every project). [{kind, obj}] in kind and name order.
export async function dependents(obj, kinds, signal) {
    const ns = obj.metadata?.namespace || '';
    const lists = kinds.filter((k) => k.group === 'nodus.dev' && k.namespaced && k.verbs.includes('list'));
    const all = (await Promise.all(lists.map(async (k) => {
        const list = await api.get(api.collection(k, ns), { signal });
        return (list.items || []).map((o) => ({ kind: k, obj: o }));
    }))).flat();
    const out = [];
    const seen = new Set([obj.metadata?.uid]);
    const walk = (uid) => {
        for (const d of all) {
            const u = d.obj.metadata?.uid;
            if (seen.has(u) || !(d.obj.metadata?.ownerReferences || []).some((r) => r.uid === uid)) continue;
            seen.add(u);
            out.push(d);
            walk(u);
        }
    };
    walk(obj.metadata?.uid);
    return out;
}

// The delete dialog: names what cascades, Cancel deletes nothing, Delete sends the
// DELETE with the policy chosen. Resolves when the dialog closes.
function confirmDelete(kind, obj, shell, trigger, done) {
    const name = obj.metadata?.name;
    const what = h('div.cascade', { 'aria-live': 'polite' }, h('p.muted', 'Looking for the objects it owns…'));
    const policy = (value, text, checked) => h('label.radio',
        h('input', { type: 'radio', name: 'cascade', value, checked }), ' ', text);
    const policies = h('fieldset.cascade-policy', { hidden: true },
        h('legend', 'Its dependents'),
        policy('Background', 'delete them too (the default)', true),
        policy('Orphan', 'keep them: orphan (--cascade=orphan)', false));
    const go = h('button.danger', { type: 'button', disabled: true }, 'Delete');
    const cancel = h('button', { type: 'button', autofocus: true }, 'Cancel');
    const dlg = h('dialog.confirm-delete', { 'aria-labelledby': 'delete-title' },
        h('h2#delete-title', `Delete ${kind.kind} ${name}?`),
        obj.metadata?.namespace ? h('p.muted', 'In project ', obj.metadata.namespace, '.') : null,
        what, policies, h('div.actions', cancel, go));
    const ctl = new AbortController();
    // closed, the focus goes back to the button that opened it (keyboard users)
    const back = () => { if (trigger.isConnected && !trigger.disabled) trigger.focus(); };
    const close = () => { ctl.abort(); dlg.close(); dlg.remove(); back(); };
    cancel.addEventListener('click', close);
    dlg.addEventListener('cancel', () => { ctl.abort(); dlg.remove(); back(); }); // Escape
    go.addEventListener('click', async () => {
        const propagationPolicy = policies.querySelector('input:checked')?.value || 'Background';
        go.disabled = true;
        try {
            await api.call(pathOf(kind, obj), {
                method: 'DELETE',
                body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy },
                headers: { 'Idempotency-Key': idempotencyKey() },
            });
            const n = Number(dlg.dataset.dependents || 0);
            close();
            banner(h('span', `${label(kind, obj)} deleted`,
                n ? (propagationPolicy === 'Orphan' ? `; its ${n} dependent${n > 1 ? 's were' : ' was'} kept`
                                                     : `, with its ${n} dependent${n > 1 ? 's' : ''}`) : '',
                '. ', h('a', { href: `#/k/${kind.plural}` }, `All ${shell.kinds.title(kind)}`)), 'ok');
            done?.();
        } catch (err) {
            close();
            banner(errorBox(err));
        }
    });
    document.body.append(dlg);
    dlg.showModal();
    dependents(obj, shell.kinds.all(), ctl.signal).then((deps) => {
        dlg.dataset.dependents = String(deps.length);
        if (!deps.length) {
            fill(what, h('p', 'It owns no other object: only it is deleted.'));
        } else {
            fill(what, h('p', `It owns ${deps.length} object${deps.length > 1 ? 's' : ''}, deleted with it unless you keep them:`),
                 h('ul.dependents', deps.map((d) => h('li', { dataset: { kind: d.kind.kind, name: d.obj.metadata.name } },
                     `${d.kind.kind} ${d.obj.metadata.name}`,
                     d.obj.status?.phase ? h('span.muted', ` (${d.obj.status.phase})`) : null))));
            policies.hidden = false;
        }
        go.disabled = false;
    }).catch((err) => {
        if (ctl.signal.aborted) return;
        fill(what, errorBox(err), h('p', 'What it owns is not known: delete only if you are sure.'));
        go.disabled = false;
    });
}

// The bar of buttons for obj of kind (kinds.js's), as the kind allows and its state
// says. shell: the console's shell (kinds, go).
export function actionBar(kind, obj, shell) {
    const bar = h('div.actions.action-bar', { role: 'group', 'aria-label': 'Actions' });
    const draw = (o) => {
        const spec = o.spec || {};
        const phase = o.status?.phase || '';
        const gone = Boolean(o.metadata?.deletionTimestamp);
        const buttons = [];
        const run = (text, verb, body, done, cls = '') => {
            const b = h(`button${cls}`, { type: 'button', dataset: { action: verb } }, text);
            b.addEventListener('click', async () => {
                for (const x of bar.querySelectorAll('button')) x.disabled = true;
                try {
                    const next = await patch(kind, o, verb, typeof body === 'function' ? body() : body);
                    banner(`${label(kind, o)} ${done}.`, 'ok');
                    draw(next || o);
                } catch (err) {
                    banner(errorBox(err));
                    draw(o);
                }
            });
            return b;
        };
        for (const [text, state, done] of STATES[kind.kind] || []) {
            const b = run(text, text.toLowerCase(), { spec: { state } }, done, state === 'Cancelled' ? '.danger' : '');
            b.disabled = gone || spec.state === state || spec.state === 'Cancelled' || ENDED.includes(phase);
            b.title = `spec.state: ${state} (nodus ${text.toLowerCase()})`;
            buttons.push(b);
        }
        if (kind.kind === 'PoolAction') {
            for (const [text, decision, done] of [['Approve', 'Approved', 'approved'], ['Reject', 'Rejected', 'rejected']]) {
                const b = run(text, text.toLowerCase(), { spec: { decision } }, done, decision === 'Approved' ? '.primary' : '');
                b.disabled = gone || spec.decision !== 'Pending';
                b.title = spec.decision === 'Pending' ? `spec.decision: ${decision} (nodus ${text.toLowerCase()})`
                                                      : `decided: ${spec.decision || '-'}`;
                buttons.push(b);
            }
        }
        for (const action of REQUESTS[kind.kind] || []) {
            const b = run(`Request ${action}`, 'request',
                          () => ({ metadata: { annotations: { [`nodus.dev/${action}-requested-at`]: rfc3339(Date.now()) } } }),
                          `${action} requested`);
            b.dataset.action = `request-${action}`;
            b.disabled = gone;
            b.title = `nodus request ${action}`;
            buttons.push(b);
        }
        if (kind.verbs.includes('delete')) {
            const b = h('button.danger', { type: 'button', dataset: { action: 'delete' }, disabled: gone,
                                           title: gone ? 'being deleted' : 'asks first' }, 'Delete…');
            b.addEventListener('click', () => confirmDelete(kind, o, shell, b, () => draw({ ...o, metadata: { ...o.metadata, deletionTimestamp: 'now' } })));
            buttons.push(b);
        }
        fill(bar, buttons);
    };
    draw(obj);
    return bar;
}
