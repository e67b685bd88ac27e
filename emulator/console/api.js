// api.js: every call the console makes, through the public API of the page's own origin
// (same-origin: no CORS, no other host), with the token of this tab when the emulator
// has tokens. Watches are fetch streams: a list, then a watch from its resourceVersion
// with bookmarks; a dropped stream resumes from the last resourceVersion seen, and a 410
// (Expired) lists again. Nothing polls.
//
// A browser holds at most 6 HTTP/1.1 connections to one origin, and each open stream
// holds one: the shell keeps 2 (projects, the clock); a view may hold 3 at most.

const TOKEN_KEY = 'nodus-token';
export const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

export function token() { return sessionStorage.getItem(TOKEN_KEY) || ''; }
export function setToken(t) {
    if (t) sessionStorage.setItem(TOKEN_KEY, t);
    else sessionStorage.removeItem(TOKEN_KEY);
}

// The error of a failed call: the API's Status (reason, message, fix, requestId).
export class ApiError extends Error {
    constructor(code, status) {
        super(status?.message || `HTTP ${code}`);
        this.code = code;
        this.status = status || {};
        this.reason = this.status.reason || '';
        this.fix = this.status.fix || '';
    }
}

// Called with no argument when a call is refused for want of a (valid) token: the shell
// shows its sign-in (app.js sets it).
let unauthorized = () => {};
export function onUnauthorized(fn) { unauthorized = fn; }

function headers(extra) {
    const h = new Headers(extra || {});
    if (!h.has('Accept')) h.set('Accept', 'application/json');
    const t = token();
    if (t) h.set('Authorization', `Bearer ${t}`);
    return h;
}

// A path with query parameters (values undefined or '' are left out).
export function withQuery(path, params) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params || {}))
        if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
    const s = q.toString();
    return s ? `${path}${path.includes('?') ? '&' : '?'}${s}` : path;
}

async function errorOf(res) {
    let status = null;
    try { status = await res.json(); } catch { /* not JSON */ }
    if (res.status === 401) unauthorized();
    return new ApiError(res.status, status && status.kind === 'Status' ? status : null);
}

// One request: {method, body (an object is sent as JSON; a string as it is), headers,
// signal}. Resolves to {status, headers, body (parsed JSON, or text)}; rejects with an
// ApiError for a status >= 400.
export async function call(path, opts = {}) {
    const h = headers(opts.headers);
    let body = opts.body;
    if (body !== undefined && typeof body !== 'string') {
        body = JSON.stringify(body);
        if (!h.has('Content-Type')) h.set('Content-Type', 'application/json');
    }
    const res = await fetch(path, { method: opts.method || 'GET', headers: h, body,
                                    signal: opts.signal, cache: 'no-store' });
    if (!res.ok) throw await errorOf(res);
    const type = res.headers.get('Content-Type') || '';
    const parsed = type.includes('json') ? await res.json() : await res.text();
    return { status: res.status, headers: res.headers, body: parsed };
}
export const get = async (path, opts) => (await call(path, opts)).body;

// A stream of lines from a GET (a watch, a followed log): onLine(line) for each; resolves
// when the server ends it, rejects with an ApiError (or the network's error).
export async function lines(path, onLine, { signal, accept } = {}) {
    const res = await fetch(path, { headers: headers(accept ? { Accept: accept } : {}),
                                    signal, cache: 'no-store' });
    if (!res.ok) throw await errorOf(res);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let rest = '';
    for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        rest += value;
        let nl;
        while ((nl = rest.indexOf('\n')) >= 0) {
            const line = rest.slice(0, nl);
            rest = rest.slice(nl + 1);
            if (line) onLine(line);
        }
    }
    if (rest) onLine(rest);
}

// The API path of a kind's collection: {group, version, plural, namespaced} from
// discovery (kinds.js), in project ns ('' for every project).
export function collection(kind, ns) {
    const base = kind.group ? `/apis/${kind.group}/${kind.version}` : `/api/${kind.version}`;
    return kind.namespaced && ns ? `${base}/namespaces/${ns}/${kind.plural}` : `${base}/${kind.plural}`;
}
export function item(kind, ns, name) { return `${collection(kind, ns)}/${name}`; }

const sleep = (ms, signal) => new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});

// A live list: watch(path, {table, params, onList, onEvent, onState}) lists path (as a
// Table when table is true: rows with their cells, each row's object its metadata), calls
// onList(list), then watches from the list's resourceVersion and calls onEvent({type,
// object}) for each ADDED, MODIFIED and DELETED (object: a Table of one row when table).
// A dropped stream resumes from the last resourceVersion; an Expired (410) lists again
// (onList anew). onState('live' | 'resuming' | 'relisting' | 'error', err) says which.
// Returns {stop()}.
export function watch(path, { table = false, params = {}, onList, onEvent, onState = () => {} }) {
    const ctl = new AbortController();
    const accept = table ? TABLE : 'application/json';
    let rv = '';
    let delay = 500;
    const rvOf = (obj) => table ? obj?.rows?.[0]?.object?.metadata?.resourceVersion || obj?.metadata?.resourceVersion
                                : obj?.metadata?.resourceVersion;
    (async () => {
        while (!ctl.signal.aborted) {
            try {
                if (!rv) {
                    const list = await get(withQuery(path, params), { headers: { Accept: accept }, signal: ctl.signal });
                    rv = list.metadata?.resourceVersion || '0';
                    onList(list);
                }
                onState('live');
                let expired = false;
                await lines(withQuery(path, { ...params, watch: 1, resourceVersion: rv,
                                              allowWatchBookmarks: true }), (line) => {
                    const ev = JSON.parse(line);
                    if (ev.type === 'ERROR') {
                        if (ev.object?.code === 410) expired = true;
                        else throw new ApiError(ev.object?.code || 500, ev.object);
                        return;
                    }
                    const v = rvOf(ev.object);
                    if (v) rv = v;
                    if (ev.type !== 'BOOKMARK') onEvent(ev);
                }, { signal: ctl.signal, accept });
                delay = 500;
                if (expired) { rv = ''; onState('relisting'); }
                else onState('resuming');
            } catch (err) {
                if (ctl.signal.aborted) return;
                if (err instanceof ApiError && err.code === 410) { rv = ''; onState('relisting'); continue; }
                onState('error', err);
                if (err instanceof ApiError && (err.code === 401 || err.code === 403)) return;
                await sleep(delay, ctl.signal);
                delay = Math.min(delay * 2, 10000);
            }
        }
    })();
    return { stop: () => ctl.abort() };
}
