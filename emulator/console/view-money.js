// view-money.js: #/money (not built yet).
import { h, fill } from './dom.js';

export default function render(el) {
    fill(el, h('p.muted', 'This page is not built yet.'));
    return null;
}
