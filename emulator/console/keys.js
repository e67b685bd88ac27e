// keys.js: the console's keyboard shortcuts, as in k9s and GitHub. None acts while you
// type in a field (an input, a text area, a select, the terminal) or while a dialog
// other than this list is open.
//   /        focus the page's first search or filter field
//   g h      home; g m money; g p Pools; g c the clock; g a apply; g e Events
//   ?        the list of shortcuts (a dialog; Escape closes it)
// The skip link ("Skip to content", the first Tab stop) moves the focus into the page
// without touching the hash, which is the router's.
import { h, fill } from './dom.js';

export const shortcuts = [
    ['/', 'Focus the page\u2019s search or filter field'],
    ['g h', 'Home'], ['g m', 'Money'], ['g p', 'Pools'], ['g c', 'Clock'], ['g a', 'Apply'],
    ['g e', 'Events'], ['?', 'This list'], ['Esc', 'Close a dialog'],
];
const go = { h: '#/', m: '#/money', p: '#/pools', c: '#/clock', a: '#/apply', e: '#/k/events' };
const $ = (id) => document.getElementById(id);

function typing(t) {
    return t instanceof Element &&
        (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) || !!t.closest('[contenteditable], .terminal'));
}

function showHelp() {
    const dlg = $('keys');
    if (dlg.open) return;
    fill($('keys-list'), shortcuts.map(([k, what]) =>
        [h('dt', k.split(' ').map((part, i) => [i ? ' then ' : null, h('kbd', part)])), h('dd', what)]));
    dlg.showModal();
}

// The first search or filter field of the view shown: true when there was one.
function focusFilter() {
    const f = document.querySelector('#view input[type=search], #view input[type=text], #view input:not([type])');
    if (!f) return false;
    f.focus();
    f.select?.();
    return true;
}

export function start() {
    let g = 0; // when `g` was pressed (ms), 0: not pending
    $('keys-open').addEventListener('click', showHelp);
    document.querySelector('a.skip').addEventListener('click', (ev) => {
        ev.preventDefault();
        $('view').focus();
    });
    document.addEventListener('keydown', (ev) => {
        if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev.target)) return;
        if (document.querySelector('dialog[open]')) return; // Escape closes it (the browser's)
        const pending = g && ev.timeStamp - g < 1500;
        g = 0;
        if (pending && go[ev.key]) {
            ev.preventDefault();
            location.hash = go[ev.key];
        } else if (ev.key === 'g') {
            g = ev.timeStamp || 1;
        } else if (ev.key === '/') {
            if (focusFilter()) ev.preventDefault();
        } else if (ev.key === '?') {
            ev.preventDefault();
            showHelp();
        }
    });
}
