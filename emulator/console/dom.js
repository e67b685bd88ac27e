// dom.js: building the page. Every text from the API goes in as text (textContent,
// attributes set one by one), never as HTML: an object's name or label cannot script.

// h('tag.class#id', {attr: value, on: {click: fn}}, child...): an element. A child is an
// element, a string (text), a number, or null/false (nothing); arrays are flattened.
export function h(spec, attrs, ...children) {
    const m = /^([a-z0-9-]+)?((?:[.#][\w-]+)*)$/i.exec(spec);
    const el = document.createElement(m?.[1] || 'div');
    for (const part of (m?.[2] || '').match(/[.#][\w-]+/g) || []) {
        if (part[0] === '.') el.classList.add(part.slice(1));
        else el.id = part.slice(1);
    }
    if (attrs && (typeof attrs !== 'object' || attrs instanceof Node || Array.isArray(attrs))) {
        children.unshift(attrs);
        attrs = null;
    }
    for (const [k, v] of Object.entries(attrs || {})) {
        if (k === 'on') for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
        else if (k === 'dataset') Object.assign(el.dataset, v);
        else if (v === true) el.setAttribute(k, '');
        else if (v !== false && v !== null && v !== undefined) el.setAttribute(k, String(v));
    }
    append(el, children);
    return el;
}

function append(el, children) {
    for (const c of children) {
        if (c === null || c === undefined || c === false) continue;
        if (Array.isArray(c)) append(el, c);
        else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
}

// Replaces el's children.
export function fill(el, ...children) {
    el.replaceChildren();
    append(el, children);
    return el;
}

// A short duration: 45s, 12m, 3h5m, 2d4h.
export function duration(ms) {
    let s = Math.max(0, Math.floor(ms / 1000));
    if (s < 60) return `${s}s`;
    const m = Math.floor(s / 60);
    if (m < 60) return `${m}m${s % 60 && m < 10 ? `${s % 60}s` : ''}`;
    const hr = Math.floor(m / 60);
    if (hr < 48) return `${hr}h${m % 60 ? `${m % 60}m` : ''}`;
    return `${Math.floor(hr / 24)}d${hr % 24 ? `${hr % 24}h` : ''}`;
}

// US dollars from the API's decimal strings ("12.50"): $12.50; '' or absent: '-'.
export function usd(v) {
    if (v === undefined || v === null || v === '') return '-';
    const n = Number(v);
    return Number.isFinite(n) ? `$${n.toFixed(2)}` : String(v);
}

// An element for a Status error: its reason, message and fix.
export function errorBox(err) {
    const st = err?.status || {};
    return h('div.error', { role: 'alert' },
        h('strong', st.reason || 'Error'), ': ', err?.message || String(err),
        st.fix ? h('div.fix', 'Fix: ', st.fix) : null,
        st.requestId ? h('div.muted', 'request ', st.requestId) : null);
}

// Shows a message in the page's banner (cleared by clear or the next navigation).
export function banner(content, kind = 'error') {
    const b = document.getElementById('banner');
    if (!content) { b.hidden = true; b.replaceChildren(); return; }
    b.className = `banner ${kind}`;
    fill(b, content, h('button.quiet', { type: 'button', 'aria-label': 'Dismiss',
        on: { click: () => banner(null) } }, '×'));
    b.hidden = false;
}
