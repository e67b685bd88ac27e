// kinds.js: the kinds this server has, from discovery (/apis/nodus.dev/v1 and core
// Events and Namespaces): [{group, version, plural, kind, namespaced, verbs, subs}], subs
// naming the subresources (log, exec, files, ...). Asked once per page load.
import { get } from './api.js';

let kinds = [];

export async function load() {
    const [nodus, core] = await Promise.all([get('/apis/nodus.dev/v1'), get('/api/v1')]);
    const out = [];
    const add = (list, group, version, only) => {
        const subs = {};
        for (const r of list.resources || []) {
            const [plural, sub] = r.name.split('/');
            if (sub) (subs[plural] ||= []).push(sub);
        }
        for (const r of list.resources || []) {
            if (r.name.includes('/') || (only && !only.includes(r.name))) continue;
            out.push({ group, version, plural: r.name, kind: r.kind, namespaced: r.namespaced,
                       verbs: r.verbs || [], subs: subs[r.name] || [] });
        }
    };
    add(nodus, 'nodus.dev', 'v1');
    add(core, '', 'v1', ['events', 'namespaces']);
    kinds = out;
    return kinds;
}

export function all() { return kinds; }
export function byPlural(plural) { return kinds.find((k) => k.plural === plural); }
export function byKind(kind) { return kinds.find((k) => k.kind === kind && k.group === 'nodus.dev') || kinds.find((k) => k.kind === kind); }
// A kind's name in the plural, as a heading: Jobs, Sandboxes, PoolActions, Events (the
// plural's ending after the kind's own letters).
export function title(k) {
    const low = k.kind.toLowerCase();
    return k.plural.startsWith(low) ? k.kind + k.plural.slice(low.length) : `${k.kind}s`;
}
// The nodus.dev kinds a user lists (what the nav shows).
export function listed() { return kinds.filter((k) => k.group === 'nodus.dev' && k.verbs.includes('list')); }
