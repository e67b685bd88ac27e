// view-apply.js: #/apply: apply a manifest with review before you pay, as `nodus apply
// --review` and the MCP apply tool do it. A manifest (pasted, or loaded from a file) of
// YAML or JSON documents is parsed in the page (js-yaml); Review sends each document as a
// server-side apply dry run (PATCH, application/apply-patch+yaml, fieldManager=nodus,
// dryRun=All, fieldValidation=Strict), so nothing is created, and shows what the server
// answered: status.estimate (rate, expected cost, first hold, start time) and the ETag.
// Launch then sends the same applies for real, each with its ETag as If-Match and an
// Idempotency-Key, so the server launches exactly what was reviewed: a spec or price book
// changed since answers PreconditionFailed, and the page reviews again and shows the
// fresh estimate beside the one that was reviewed.
import * as api from './api.js';
import * as clock from './clock.js';
import { h, fill, banner, errorBox } from './dom.js';
import { idempotencyKey } from './actions.js';
import { loadAll, CORE_SCHEMA, types } from './js-yaml.js';

const MAX_DOCS = 100; // as the MCP apply tool: each is a dry run, then a write
// YAML 1.2's core schema with merge keys, as the CLI reads manifests (pkg/yaml): a date
// stays a string, yes/no stay strings, `<<: *base` merges.
const SCHEMA = CORE_SCHEMA.extend({ implicit: [types.merge] });

// An error of the page's own, shown like the API's Status (reason, message, fix).
function refusal(reason, message, fix) {
    const e = new Error(message);
    e.status = { reason, fix };
    return e;
}

// The documents of a manifest, each {obj, kind, ns, name, label}; throws a refusal.
export function parse(text, shell) {
    let raw;
    try {
        raw = loadAll(text, null, { schema: SCHEMA });
    } catch (err) {
        throw refusal('BadRequest', `the manifest is not YAML or JSON: ${err.reason || err.message}` +
                      (err.mark ? ` (line ${err.mark.line + 1}, column ${err.mark.column + 1})` : ''),
                      'correct the manifest at that line; documents are separated by a line ---');
    }
    const objs = raw.flatMap((o) => (o && o.kind === 'List' && Array.isArray(o.items) ? o.items : [o]))
        .filter((o) => o !== null && o !== undefined);
    if (!objs.length)
        throw refusal('BadRequest', 'the manifest holds no object',
                      'paste YAML or JSON objects with apiVersion, kind and metadata.name');
    if (objs.length > MAX_DOCS)
        throw refusal('BadRequest', `the manifest holds ${objs.length} objects; one apply takes at most ${MAX_DOCS}`,
                      `split the manifest: apply at most ${MAX_DOCS} objects at a time`);
    return objs.map((obj, i) => {
        const n = i + 1;
        if (typeof obj !== 'object' || Array.isArray(obj))
            throw refusal('BadRequest', `document ${n} is not an object`,
                          'each document is an object with apiVersion, kind and metadata.name');
        if (typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string')
            throw refusal('BadRequest', `document ${n} has no ${typeof obj.apiVersion !== 'string' ? 'apiVersion' : 'kind'}`,
                          'set apiVersion (nodus.dev/v1) and kind (Job, Pipeline, ...) in each document');
        const [group, version] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/') : ['', obj.apiVersion];
        const kind = shell.kinds.all().find((k) => k.kind === obj.kind && k.group === group && k.version === version);
        if (!kind)
            throw refusal('NotFound', `document ${n}: this server has no kind ${obj.kind} in ${obj.apiVersion}`,
                          `use one of: ${shell.kinds.listed().map((k) => k.kind).join(', ')} (apiVersion nodus.dev/v1)`);
        const meta = obj.metadata && typeof obj.metadata === 'object' ? obj.metadata : {};
        if (typeof meta.name !== 'string' || !meta.name)
            throw refusal('BadRequest', `document ${n} (a ${obj.kind}) has no metadata.name`,
                          'set metadata.name in each document: an apply names the object it makes');
        const ns = kind.namespaced ? (meta.namespace || shell.project() || 'default') : '';
        return { obj, kind, ns, name: meta.name, label: `${obj.kind}/${meta.name}` };
    });
}

// A field-manager conflict with one of nodus's (or kubectl's) imperative writes (suspend,
// patch, label ...): the manifest wins, as the CLI's apply decides (apply.c).
function onlyImperative(err) {
    const causes = err.status?.details?.causes || [];
    return err.reason === 'Conflict' && causes.length > 0 && causes.every((c) =>
        c.reason === 'FieldManagerConflict' &&
        /^conflict with "(nodus-[^"\\]+|kubectl-[^"\\]+)" using \S+$/.test(c.message || ''));
}

// One server-side apply of doc: {dry, ifMatch, signal}. Resolves to {status, etag, body}.
async function ssa(doc, { dry = false, ifMatch = '', signal } = {}) {
    const obj = structuredClone(doc.obj);
    if (doc.ns) obj.metadata = { ...obj.metadata, namespace: doc.ns };
    const send = async (force) => {
        const headers = { 'Content-Type': 'application/apply-patch+yaml' };
        if (ifMatch) headers['If-Match'] = ifMatch;
        if (!dry) headers['Idempotency-Key'] = idempotencyKey();
        const res = await api.call(api.withQuery(api.item(doc.kind, doc.ns, doc.name), {
            fieldManager: 'nodus', force: String(force), dryRun: dry ? 'All' : '', fieldValidation: 'Strict',
        }), { method: 'PATCH', body: JSON.stringify(obj), headers, signal });
        return { status: res.status, etag: res.headers.get('ETag') || '', body: res.body };
    };
    try {
        return await send(false);
    } catch (err) {
        if (!onlyImperative(err)) throw err;
        return send(true);
    }
}

const money = (v) => (v === undefined || v === null || v === '' ? '-' : `$${v}`);

// The estimate of a dry run as a definition list.
function estimateView(e) {
    if (!e) return h('p.free', 'Costs nothing to launch.');
    const start = e.startTime ? [clock.ago(e.startTime), ` (${e.startTime.replace('T', ' ').replace('Z', ' UTC')})`] : '-';
    return h('dl.estimate',
        h('dt', 'Rate'), h('dd', { dataset: { field: 'rate' } }, `${money(e.rateUSDPerHour)}/h`),
        h('dt', 'Expected cost'), h('dd', { dataset: { field: 'expected' } }, money(e.expectedCostUSD)),
        h('dt', 'First hold'), h('dd', { dataset: { field: 'hold' } }, money(e.firstHoldUSD)),
        h('dt', 'Starts'), h('dd', { dataset: { field: 'start' } }, start));
}

export default function render(el, params, shell) {
    const ctl = new AbortController();
    let docs = [];     // the parsed documents, each with its review: {etag, dry, estimate, created, done, error, was}
    let reviewed = false;
    const text = h('textarea#manifest', { spellcheck: 'false', autocomplete: 'off',
        placeholder: 'apiVersion: nodus.dev/v1\nkind: Job\nmetadata:\n  name: train\nspec:\n  ...' });
    const file = h('input#manifest-file', { type: 'file', accept: '.yaml,.yml,.json,application/json,application/yaml,text/yaml' });
    const reviewBtn = h('button.primary#review', { type: 'submit' }, 'Review');
    const launchBtn = h('button.primary#launch', { type: 'button', disabled: true }, 'Launch');
    const note = h('p.muted#apply-note', { role: 'status' });
    const list = h('div.apply-docs', { 'aria-live': 'polite' });
    const form = h('form.apply', { on: { submit: (ev) => { ev.preventDefault(); review(); } } },
        h('label', { for: 'manifest' }, 'Manifest (YAML or JSON; several documents separated by ---)'), text,
        h('div.actions', h('label.file', 'Or load a file ', file), reviewBtn));
    fill(el, h('div.head', h('h1', 'Apply')),
         h('p.muted', 'Review before you pay: Review asks the server what each object would cost (a dry run: ',
           'nothing is created); Launch then creates exactly what was reviewed.'),
         form, list, h('div.actions', launchBtn), note);

    const busy = (on) => { reviewBtn.disabled = on; launchBtn.disabled = on || !canLaunch(); };
    const canLaunch = () => reviewed && docs.length > 0 && docs.some((d) => !d.done) && docs.every((d) => d.etag !== undefined && !d.error);

    const draw = () => {
        fill(list, docs.map((d) => {
            const place = d.ns ? ` in project ${d.ns}` : '';
            const state = d.done ? 'launched' : d.error ? 'error' : d.etag !== undefined ? 'reviewed' : 'pending';
            const m = d.done?.obj?.metadata || {};
            return h('article.apply-doc', { dataset: { kind: d.kind.kind, name: d.name, state, etag: d.etag || '' } },
                h('h2', d.label, h('span.muted', place)),
                d.done ? h('p.ok', d.done.op, ': ', h('a', { href: `#/o/${d.kind.plural}/${m.namespace || '-'}/${m.name || d.name}` }, 'open it'))
                       : d.error ? errorBox(d.error)
                       : d.etag === undefined ? h('p.muted', 'Not reviewed yet.')
                       : [h('p.muted', d.created ? 'Would be created.' : 'Would change the object there now.'),
                          d.was ? h('div.was', h('strong', 'The reviewed estimate no longer holds. '),
                                    'It was: ', `${money(d.was.rateUSDPerHour)}/h, expected ${money(d.was.expectedCostUSD)}`,
                                    '. The fresh estimate:') : null,
                          estimateView(d.estimate),
                          d.etag ? h('p.muted.etag', 'ETag ', h('code', d.etag)) : null]);
        }));
        const priced = docs.filter((d) => d.estimate && !d.done);
        launchBtn.textContent = priced.length
            ? `Launch (expected ${money(total(priced))})` : 'Launch';
        launchBtn.disabled = !canLaunch();
    };
    const total = (ds) => {
        const micros = ds.reduce((s, d) => s + Math.round(Number(d.estimate.expectedCostUSD || 0) * 1e6), 0);
        return (micros / 1e6).toFixed(6).replace(/0{1,4}$/, ''); // at least cents, at most micro-dollars
    };

    // The dry run of each document not launched yet.
    const reviewAll = async () => {
        for (const d of docs) {
            if (d.done) continue;
            try {
                const r = await ssa(d, { dry: true, signal: ctl.signal });
                d.etag = r.etag;
                d.created = r.status === 201;
                d.estimate = r.body?.status?.estimate || null;
                d.error = null;
            } catch (err) {
                if (ctl.signal.aborted) return false;
                d.error = err;
                d.etag = undefined;
                draw();
                return false;
            }
        }
        reviewed = true;
        draw();
        return true;
    };

    async function review() {
        banner(null);
        reviewed = false;
        try {
            docs = parse(text.value, shell);
        } catch (err) {
            docs = [];
            draw();
            note.textContent = 'Nothing was reviewed.';
            banner(errorBox(err));
            return;
        }
        draw();
        busy(true);
        note.textContent = 'Reviewing…';
        const ok = await reviewAll();
        if (ctl.signal.aborted) return;
        busy(false);
        note.textContent = ok ? 'Reviewed: nothing was created. Launch to create exactly this.' : 'The review failed: nothing was created.';
        if (ok) launchBtn.focus();
    }

    async function launch() {
        banner(null);
        busy(true);
        note.textContent = 'Launching…';
        for (const d of docs) {
            if (d.done) continue;
            try {
                const r = await ssa(d, { ifMatch: d.etag, signal: ctl.signal });
                d.done = { op: r.status === 201 ? 'created' : 'configured', obj: r.body };
                d.was = null;
            } catch (err) {
                if (ctl.signal.aborted) return;
                const before = docs.filter((x) => x.done).length;
                if (err.reason === 'PreconditionFailed') {
                    // the spec or the price book changed since the review: review again
                    for (const x of docs) if (!x.done) x.was = x.estimate || null;
                    reviewed = false;
                    await reviewAll();
                    if (ctl.signal.aborted) return;
                    banner(h('div', errorBox(err), h('p', 'Nothing more was launched', before ? ` (the ${before} object(s) before it were)` : '',
                        '. The fresh estimate is shown below: review it, then Launch again.')));
                    note.textContent = 'Reviewed again: launch to create exactly this.';
                } else {
                    d.error = err;
                    banner(errorBox(err));
                    note.textContent = before ? `${before} object(s) were launched before this error.` : 'Nothing was launched.';
                }
                busy(false);
                draw();
                return;
            }
        }
        busy(false);
        draw();
        note.textContent = '';
        banner(`Launched ${docs.length} object${docs.length > 1 ? 's' : ''} as reviewed.`, 'ok');
    }

    launchBtn.addEventListener('click', launch);
    text.addEventListener('input', () => {
        if (!docs.length) return;
        reviewed = false;
        docs = [];
        draw();
        note.textContent = 'The manifest changed: review it again.';
    });
    file.addEventListener('change', async () => {
        const f = file.files?.[0];
        if (!f) return;
        text.value = await f.text();
        review();
    });
    draw();
    return () => ctl.abort();
}
