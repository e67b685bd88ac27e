// object-panels.js: what the object page's tabs show of an object, drawn from what the
// page holds (view-object.js keeps it live): the overview (status, conditions, the spec's
// fields, labels, annotations, owners), its money, and the Events about it. Times are on
// the emulator's clock: each is a <time datetime=ISO> that refreshTimes() redraws.
import * as clock from './clock.js';
import { h, usd } from './dom.js';

export const when = (iso) => (iso ? h('time', { datetime: iso, title: iso }, clock.ago(iso)) : null);

// Every <time datetime> in el, again on the emulator's clock.
export function refreshTimes(el) {
    for (const t of el.querySelectorAll('time[datetime]')) t.textContent = clock.ago(t.getAttribute('datetime'));
}

const present = (v) => v !== undefined && v !== null && v !== '';

// A list of [label, value (text or element), field path for tests and titles].
function fields(rows, label) {
    const shown = rows.filter(([, v]) => present(v));
    if (!shown.length) return h('p.muted', 'None.');
    return h('dl.fields', { 'aria-label': label || null },
        shown.map(([k, v, field]) => [h('dt', { title: field || null }, k), h('dd', { dataset: { field: field || k } }, v)]));
}

// The spec's fields as "resources.gpu.model: H100", lists of scalars joined, at most 40.
function flatten(v, prefix, out) {
    if (out.length >= 40) return out;
    if (Array.isArray(v)) {
        if (v.every((x) => x === null || typeof x !== 'object')) out.push([prefix, v.join(' ') || '[]', `spec.${prefix}`]);
        else out.push([prefix, `${v.length} item${v.length === 1 ? '' : 's'} (see YAML)`, `spec.${prefix}`]);
    } else if (v && typeof v === 'object') {
        const keys = Object.keys(v);
        if (!keys.length) out.push([prefix, '{}', `spec.${prefix}`]);
        for (const k of keys) flatten(v[k], prefix ? `${prefix}.${k}` : k, out);
    } else if (prefix) {
        out.push([prefix, String(v), `spec.${prefix}`]);
    }
    return out;
}

function pairs(map, label) {
    const keys = Object.keys(map || {});
    if (!keys.length) return h('p.muted', 'None.');
    return h('ul.pairs', { 'aria-label': label }, keys.sort().map((k) => h('li', h('code', k), ' = ', h('code', String(map[k])))));
}

function conditions(list) {
    if (!list?.length) return h('p.muted', 'No conditions.');
    return h('div.scroll', h('table.conditions', { 'aria-label': 'Conditions' },
        h('thead', h('tr', ['TYPE', 'STATUS', 'REASON', 'MESSAGE', 'LAST TRANSITION'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', list.map((c) => h('tr', { dataset: { type: c.type || '' } },
            h('td', c.type || ''), h('td', { class: `cond-${c.status}` }, c.status || ''), h('td', c.reason || ''),
            h('td.wrap', c.message || ''), h('td', when(c.lastTransitionTime)))))));
}

// The link of an object of kind KIND (API kind name) in project ns.
function linkTo(shell, kindName, ns, name) {
    const k = shell.kinds.byKind(kindName);
    return k ? h('a', { href: `#/o/${k.plural}/${k.namespaced ? encodeURIComponent(ns || 'default') : '-'}/${encodeURIComponent(name)}` },
        `${kindName.toLowerCase()}/${name}`) : `${kindName.toLowerCase()}/${name}`;
}

export function overview(obj, shell) {
    const m = obj.metadata || {};
    const st = obj.status || {};
    const owners = m.ownerReferences || [];
    const about = obj.involvedObject; // an Event's own fields
    return [
        about ? [h('h2', 'Event'), fields([['Type', obj.type, 'type'], ['Reason', obj.reason, 'reason'],
            ['Message', obj.message, 'message'], ['About', about.kind ? linkTo(shell, about.kind, about.namespace, about.name) : null, 'involvedObject'],
            ['Count', obj.count, 'count'], ['First seen', when(obj.firstTimestamp), 'firstTimestamp'],
            ['Last seen', when(obj.lastTimestamp), 'lastTimestamp'],
            ['Source', obj.source?.component || obj.reportingComponent, 'source.component']], 'Event')] : null,
        h('h2', 'Status'),
        fields([['Phase', st.phase, 'status.phase'], ['Reason', st.reason, 'status.reason'],
                ['Message', st.message, 'status.message'], ['Created', when(m.creationTimestamp), 'metadata.creationTimestamp'],
                ['Started', when(st.startTime), 'status.startTime'], ['Completed', when(st.completionTime), 'status.completionTime'],
                ['Exit code', st.exitCode, 'status.exitCode'], ['Attempts', st.attempts, 'status.attempts'],
                ['Deletion asked', when(m.deletionTimestamp), 'metadata.deletionTimestamp'],
                ['Finalizers', (m.finalizers || []).join(', '), 'metadata.finalizers']], 'Status'),
        h('h2', 'Conditions'), conditions(st.conditions),
        obj.spec ? [h('h2', 'Spec'), fields(flatten(obj.spec, '', []), 'Spec')] : null,
        h('h2', 'Labels'), pairs(m.labels, 'Labels'),
        h('h2', 'Annotations'), pairs(m.annotations, 'Annotations'),
        owners.length ? [h('h2', 'Owners'), h('ul.owners', owners.map((o) =>
            h('li', linkTo(shell, o.kind, m.namespace, o.name), o.controller ? h('span.muted', ' (controller)') : null)))] : null,
    ];
}

const rate = (v) => (present(v) ? `${usd(v)}/h` : null);

// Whether obj has anything about money to show.
export function hasMoney(obj) {
    const s = obj?.spec || {}, st = obj?.status || {};
    return [st.estimate, st.costUSD, st.rateUSDPerHour, s.maxCostUSD, s.limitUSD, st.spentUSD].some(present);
}

export function money(obj) {
    const s = obj.spec || {}, st = obj.status || {}, e = st.estimate || {}, b = st.billing || {};
    const cost = Number(st.costUSD), max = Number(s.maxCostUSD);
    const limit = Number(s.limitUSD), spent = Number(st.spentUSD);
    const meter = (value, of, label) => (Number.isFinite(value) && of > 0
        ? h('div.meter-row', h('meter', { min: 0, max: of, value: Math.min(value, of), low: of * 0.5, high: of * 0.8,
                                          optimum: 0, 'aria-label': label }),
            h('span.muted', ` ${Math.round((value / of) * 100)}% of ${usd(of)}`)) : null);
    return [
        st.estimate ? [h('h2', 'Estimate'), fields([
            ['Rate', rate(e.rateUSDPerHour), 'status.estimate.rateUSDPerHour'],
            ['Expected cost', usd(e.expectedCostUSD), 'status.estimate.expectedCostUSD'],
            ['First hold', usd(e.firstHoldUSD), 'status.estimate.firstHoldUSD'],
            ['Expected start', when(e.startTime), 'status.estimate.startTime']], 'Estimate')] : null,
        present(st.costUSD) || present(s.maxCostUSD) || present(st.rateUSDPerHour) ? [h('h2', 'Cost'), fields([
            ['Cost so far', present(st.costUSD) ? usd(st.costUSD) : null, 'status.costUSD'],
            ['Rate now', rate(st.rateUSDPerHour), 'status.rateUSDPerHour'],
            ['Highest rate', rate(st.maxRateUSDPerHour), 'status.maxRateUSDPerHour'],
            ['Most it may cost', present(s.maxCostUSD) ? usd(s.maxCostUSD) : null, 'spec.maxCostUSD'],
            ['Final charge', present(b.settled) ? (b.settled ? 'posted' : 'pending') : null, 'status.billing.settled'],
            ['Final charge at', when(b.finalChargeTime), 'status.billing.finalChargeTime']], 'Cost'),
            meter(cost || 0, max, 'Cost against maxCostUSD')] : null,
        present(s.limitUSD) ? [h('h2', 'Budget'), fields([
            ['Limit', usd(s.limitUSD), 'spec.limitUSD'], ['Spent', usd(st.spentUSD), 'status.spentUSD'],
            ['Left', present(st.remainingUSD) ? usd(st.remainingUSD) : null, 'status.remainingUSD'],
            ['Period since', when(st.periodStart), 'status.periodStart'],
            ['Period', s.period, 'spec.period'], ['Action', s.action, 'spec.action'],
            ['Thresholds', (s.thresholds || []).map((t) => `${t}%`).join(' '), 'spec.thresholds']], 'Budget'),
            meter(spent || 0, limit, 'Spent against the limit')] : null,
        hasMoney(obj) ? null : h('p.muted', 'This object has no estimate and no cost.'),
        !st.estimate && present(s.maxCostUSD) ? h('p.muted', 'The estimate (rate, expected cost, first hold) is answered ' +
            'by a dry run before the launch: Apply reviews it; the object then records what it costs.') : null,
    ];
}

const evTime = (e) => e.lastTimestamp || e.eventTime || e.firstTimestamp || e.metadata?.creationTimestamp || '';

// The Events (objects of /api/v1 events) about the object, newest last.
export function eventsTable(list) {
    if (!list.length) return h('p.muted', 'No Events about it yet.');
    const sorted = [...list].sort((a, b) => evTime(a).localeCompare(evTime(b)) ||
        (a.metadata?.name || '').localeCompare(b.metadata?.name || ''));
    return h('div.scroll', h('table.events', { 'aria-label': 'Events' },
        h('thead', h('tr', ['LAST SEEN', 'TYPE', 'REASON', 'MESSAGE', 'COUNT'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', sorted.map((e) => h('tr', { dataset: { reason: e.reason || '' }, class: e.type === 'Warning' ? 'warning' : null },
            h('td', when(evTime(e))), h('td', e.type || ''), h('td', e.reason || ''),
            h('td.wrap', e.message || ''), h('td', String(e.count || 1)))))));
}
