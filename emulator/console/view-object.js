// view-object.js: #/o/PLURAL/NS/NAME (not built yet): for now the object's name and its
// action bar (actions.js), from one GET of the object.
import * as api from './api.js';
import { h, fill, errorBox } from './dom.js';
import { actionBar } from './actions.js';

export default function render(el, { parts }, shell) {
    const [plural, ns, name] = parts;
    const kind = shell.kinds.byPlural(plural);
    if (!kind || !name) {
        fill(el, h('p', 'No such object: ', parts.join('/'), '.'));
        return null;
    }
    const ctl = new AbortController();
    fill(el, h('h1', `${kind.kind} ${name}`), h('p.muted', 'Loading…'));
    api.get(api.item(kind, ns === '-' ? '' : ns, name), { signal: ctl.signal })
        .then((obj) => fill(el, h('h1', `${kind.kind} ${name}`), actionBar(kind, obj, shell)))
        .catch((err) => { if (!ctl.signal.aborted) fill(el, h('h1', `${kind.kind} ${name}`), errorBox(err)); });
    return () => ctl.abort();
}
