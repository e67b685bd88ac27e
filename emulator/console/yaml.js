// yaml.js: an object as YAML, the way `nodus get -o yaml` shows it (block style, lists
// at their key's indent). No parser: the console only dumps. A string is left plain only
// when YAML would read it back as that same string; otherwise it is double-quoted with
// JSON's escapes (which YAML's double-quoted style reads alike), so "50.00", "true",
// "2026-12-05T21:00:00Z" and "a: b" stay strings.
//
//   toYaml(obj)  the YAML text, ending with a newline

// A plain scalar YAML (1.1 or 1.2) would read as something else, or not at all.
const INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`\s]/;
const LOOKS_TYPED = /^(?:~|null|true|false|yes|no|y|n|on|off|[-+]?\.?inf|\.nan|<<|=)$/i;
const NUMERIC = /^[-+]?(?:\.[0-9]|[0-9])[0-9a-fA-FxXoObB_.:eE+-]*$/;
const DATE = /^\d{4}-\d\d?-\d\d?(?:[Tt ]|$)/;
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ud800-\udfff]/;

function plainOk(s) {
    return s !== '' && !INDICATOR.test(s) && !/\s$/.test(s) && !/: |:$| #/.test(s) &&
        !LOOKS_TYPED.test(s) && !NUMERIC.test(s) && !DATE.test(s) && !UNSAFE.test(s);
}

function quote(s) {
    // JSON leaves DEL, C1 controls, U+2028/2029, BOM and lone surrogates as they are
    return JSON.stringify(s).replace(/[\u007f-\u009f\u2028\u2029\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function scalar(v) {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'boolean') return String(v);
    if (typeof v === 'number') return Number.isFinite(v) ? String(v) : v > 0 ? '.inf' : v < 0 ? '-.inf' : '.nan';
    const s = String(v);
    return plainOk(s) ? s : quote(s);
}

const isMap = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isEmpty = (v) => (Array.isArray(v) ? v.length === 0 : isMap(v) && Object.keys(v).length === 0);
const inline = (v) => (Array.isArray(v) ? '[]' : isMap(v) ? '{}' : scalar(v));

// The lines of v at indent pad (a map's keys, or a list's items).
function block(v, pad, out) {
    if (Array.isArray(v)) {
        for (const item of v) {
            if (!isEmpty(item) && (Array.isArray(item) || isMap(item))) {
                const sub = [];
                block(item, '', sub);
                // the first line after "- ", the rest under it
                out.push(`${pad}- ${sub[0]}`);
                for (const line of sub.slice(1)) out.push(`${pad}  ${line}`);
            } else {
                out.push(`${pad}- ${inline(item)}`);
            }
        }
        return;
    }
    for (const [k, val] of Object.entries(v)) {
        const key = scalar(k);
        if (isEmpty(val) || !(Array.isArray(val) || isMap(val))) out.push(`${pad}${key}: ${inline(val)}`);
        else {
            out.push(`${pad}${key}:`);
            block(val, Array.isArray(val) ? pad : `${pad}  `, out);
        }
    }
}

export function toYaml(obj) {
    if (isEmpty(obj) || !(Array.isArray(obj) || isMap(obj))) return `${inline(obj)}\n`;
    const out = [];
    block(obj, '', out);
    return `${out.join('\n')}\n`;
}
