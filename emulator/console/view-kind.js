// view-kind.js: #/k/PLURAL: a kind's objects in the project chosen (or every project), as
// the server's Table with every column `nodus get -o wide` shows; live from a watch of
// that Table (no reload, no polling); label and field selectors; sorting by any column.
import * as api from './api.js';
import * as clock from './clock.js';
import { h, fill, errorBox, duration } from './dom.js';

export default function render(el, { parts, query }, shell) {
    const kind = shell.kinds.byPlural(parts[0]);
    if (!kind) {
        fill(el, h('p', 'This server has no kind ', parts[0], '.'));
        return null;
    }
    const project = kind.namespaced ? shell.project() : '';
    const rows = new Map(); // uid (or project/name) -> Table row
    let columns = [];
    let sort = { col: 0, dir: 1 };
    let w = null;
    const labelSel = h('input', { type: 'search', placeholder: 'app=trainer,tier!=dev', value: query.get('l') || '',
                                 'aria-label': 'Label selector' });
    const fieldSel = h('input', { type: 'search', placeholder: 'status.phase=Running', value: query.get('f') || '',
                                 'aria-label': 'Field selector' });
    const state = h('span.live', { role: 'status' }, 'connecting…');
    const table = h('table.objects', { 'aria-label': `${kind.kind} objects` });
    const form = h('form.filters', { on: { submit: (ev) => { ev.preventDefault(); restart(); } } },
        h('label', 'Labels ', labelSel), h('label', 'Fields ', fieldSel),
        h('button', { type: 'submit' }, 'Filter'));
    fill(el, h('div.head', h('h1', shell.kinds.title(kind)),
               h('span.muted', kind.namespaced ? (project ? ` in ${project}` : ' in every project') : ' (cluster-wide)'),
               state),
         form, h('div.scroll', table));

    const keyOf = (row) => row.object?.metadata?.uid || `${row.object?.metadata?.namespace}/${row.object?.metadata?.name}`;
    const cellText = (row, i) => {
        const c = columns[i];
        const meta = row.object?.metadata || {};
        if (c?.type === 'date' && c.name === 'AGE' && meta.creationTimestamp)
            return duration(clock.now() - Date.parse(meta.creationTimestamp));
        const v = row.cells[i];
        return v === null || v === undefined ? '' : String(v);
    };
    const draw = () => {
        const showNs = kind.namespaced && !project;
        const list = [...rows.values()];
        const cmp = (a, b) => {
            const x = sort.col < 0 ? a.object?.metadata?.namespace || '' : cellText(a, sort.col);
            const y = sort.col < 0 ? b.object?.metadata?.namespace || '' : cellText(b, sort.col);
            const nx = Number(x.replace(/^\$/, '')), ny = Number(y.replace(/^\$/, ''));
            const r = x !== '' && y !== '' && Number.isFinite(nx) && Number.isFinite(ny) ? nx - ny : x.localeCompare(y);
            return r * sort.dir;
        };
        list.sort(cmp);
        const th = (label, i, title) => h('th', { scope: 'col', title: title || '',
            'aria-sort': sort.col === i ? (sort.dir > 0 ? 'ascending' : 'descending') : 'none' },
            h('button.sort', { type: 'button', on: { click: () => {
                sort = sort.col === i ? { col: i, dir: -sort.dir } : { col: i, dir: 1 }; draw(); } } }, label));
        fill(table,
             h('thead', h('tr', showNs ? th('PROJECT', -1) : null, columns.map((c, i) => th(c.name, i, c.description)))),
             h('tbody', list.length ? list.map((row) => {
                 const m = row.object?.metadata || {};
                 const href = `#/o/${kind.plural}/${m.namespace || '-'}/${m.name}`;
                 return h('tr', { dataset: { name: m.name || '', project: m.namespace || '' } },
                     showNs ? h('td', m.namespace || '') : null,
                     columns.map((c, i) => h('td', { dataset: { col: c.name } },
                         i === 0 ? h('a', { href }, cellText(row, i))
                             : kind.kind === 'Event' && c.name === 'OBJECT' ? involved(cellText(row, i), m.namespace)
                                 : cellText(row, i))));
             }) : h('tr', h('td.muted', { colspan: columns.length + (showNs ? 1 : 0) || 1 }, 'No objects.'))));
    };
    // an Event's OBJECT cell (job/train-a) links to that object's page
    const involved = (text, ns) => {
        const [singular, name] = text.split('/');
        const k = name && shell.kinds.all().find((x) => x.kind.toLowerCase() === singular);
        return k ? h('a', { href: `#/o/${k.plural}/${k.namespaced ? ns : '-'}/${encodeURIComponent(name)}` }, text) : text;
    };
    const restart = () => {
        w?.stop();
        rows.clear();
        const params = { labelSelector: labelSel.value.trim(), fieldSelector: fieldSel.value.trim() };
        w = api.watch(api.collection(kind, project), {
            table: true, params,
            onList: (t) => {
                columns = t.columnDefinitions || [];
                rows.clear();
                for (const r of t.rows || []) rows.set(keyOf(r), r);
                draw();
            },
            onEvent: (ev) => {
                const t = ev.object;
                if (t.columnDefinitions?.length) columns = t.columnDefinitions;
                for (const r of t.rows || []) {
                    if (ev.type === 'DELETED') rows.delete(keyOf(r));
                    else rows.set(keyOf(r), r);
                }
                draw();
            },
            onState: (s, err) => {
                state.textContent = s === 'live' ? '● live' : s;
                state.className = `live ${s}`;
                if (err) fill(table, errorBox(err));
            },
        });
    };
    restart();
    const ages = setInterval(draw, 5000); // the AGE column, on the emulator's clock
    const unsub = clock.subscribe(draw);
    return () => { w?.stop(); clearInterval(ages); unsub(); };
}
