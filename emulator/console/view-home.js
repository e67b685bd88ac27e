// view-home.js: #/: what the emulator holds at a glance: per kind, how many objects the
// project chosen (or every project) has, each a link to its table.
import * as api from './api.js';
import { h, fill, errorBox } from './dom.js';

const META = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io';

export default function render(el, _params, shell) {
    const project = shell.project();
    const ctl = new AbortController();
    const list = h('ul.kinds');
    fill(el, h('h1', 'Nodus emulator'),
         h('p.muted', project ? `Project ${project}. ` : 'Every project. ',
           'Pick a kind to watch its objects live, or open Money, Pools, Clock or Apply.'), list);
    (async () => {
        try {
            const counts = await Promise.all(shell.kinds.listed().map(async (k) => {
                const l = await api.get(api.collection(k, k.namespaced ? project : ''), { headers: { Accept: META }, signal: ctl.signal });
                return [k, (l.items || []).length + (l.metadata?.remainingItemCount || 0)];
            }));
            fill(list, counts.map(([k, n]) => h('li', h('a', { href: `#/k/${k.plural}` }, k.kind),
                                                   h('span.count', { dataset: { kind: k.plural } }, String(n)))));
        } catch (err) {
            if (!ctl.signal.aborted) fill(list, errorBox(err));
        }
    })();
    return () => ctl.abort();
}
