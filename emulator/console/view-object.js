// view-object.js: #/object (not built yet; another part of the console writes it). This
// stub only places the terminal of a kind with the exec subresource (terminal.js).
import * as api from './api.js';
import { h, fill, errorBox } from './dom.js';
import { mountTerminal } from './terminal.js';

export default function render(el, { parts }, shell) {
    const [plural, ns, name] = parts;
    const kind = shell.kinds.byPlural(plural);
    if (!kind || !name) {
        fill(el, h('p.muted', 'This page is not built yet.'));
        return null;
    }
    let stop = null, gone = false;
    fill(el, h('h1', `${kind.kind} ${name}`), h('p.muted', 'Loading…'));
    api.get(api.item(kind, ns === '-' ? '' : ns, name)).then((obj) => {
        if (gone) return;
        if (!kind.subs.includes('exec')) { fill(el, h('h1', `${kind.kind} ${name}`)); return; }
        const slot = h('div#terminal-slot');
        fill(el, h('h1', `${kind.kind} ${name}`), h('h2', 'Terminal'), slot);
        stop = mountTerminal(slot, kind, obj);
    }).catch((err) => { if (!gone) fill(el, errorBox(err)); });
    return () => { gone = true; if (stop) stop(); };
}
