// app.js: the console's shell. Signs in when the emulator has tokens, loads the kinds,
// keeps the project list and the clock live, and routes the hash to a view:
//   #/                     home: what the emulator holds, per project and kind
//   #/k/PLURAL?ns=P        a kind's table (view-kind.js)
//   #/o/PLURAL/NS/NAME     an object (view-object.js; NS is - for a cluster-scoped kind)
//   #/money #/pools #/clock #/apply   (view-money.js, view-pools.js, view-clock.js, view-apply.js)
// A view module's default export is render(el, params, shell) and returns its cleanup
// (which stops its watches); at most 3 streams per view (api.js).
import * as api from './api.js';
import * as clock from './clock.js';
import * as kinds from './kinds.js';
import * as keys from './keys.js';
import { h, fill, banner, errorBox } from './dom.js';
import home from './view-home.js';
import kindView from './view-kind.js';
import objectView from './view-object.js';
import money from './view-money.js';
import pools from './view-pools.js';
import clockView from './view-clock.js';
import apply from './view-apply.js';

const views = { '': home, k: kindView, o: objectView, money, pools, clock: clockView, apply };
const $ = (id) => document.getElementById(id);
let cleanup = null;
let projects = [];

// What views share: the kinds, the project chosen, navigation.
export const shell = {
    kinds,
    project: () => sessionStorage.getItem('nodus-project') || '',
    projects: () => projects,
    go: (hash) => { location.hash = hash; },
};

function parseHash() {
    const raw = location.hash.replace(/^#\/?/, '');
    const [path, query] = raw.split('?');
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    return { name: parts[0] || '', parts: parts.slice(1), query: new URLSearchParams(query || '') };
}

function route() {
    if (cleanup) { try { cleanup(); } catch { /* the view's own */ } cleanup = null; }
    banner(null);
    const { name, parts, query } = parseHash();
    if (query.has('ns')) setProject(query.get('ns'), false);
    const view = views[name];
    const el = $('view');
    fill(el);
    for (const a of document.querySelectorAll('#nav a'))
        a.toggleAttribute('aria-current', a.getAttribute('href') === `#/${name}${parts[0] && name === 'k' ? `/${parts[0]}` : ''}`);
    if (!view) {
        fill(el, h('p', 'No such page: ', location.hash, '. ', h('a', { href: '#/' }, 'Home')));
        return;
    }
    try {
        cleanup = view(el, { parts, query }, shell) || null;
    } catch (err) {
        fill(el, errorBox(err));
    }
    el.focus({ preventScroll: true });
}

function setProject(p, reroute = true) {
    if (p === shell.project()) return;
    if (p) sessionStorage.setItem('nodus-project', p);
    else sessionStorage.removeItem('nodus-project');
    $('project').value = p;
    if (reroute) route();
}

function nav() {
    const links = [['#/', 'Home'], ...kinds.listed().map((k) => [`#/k/${k.plural}`, k.kind]),
                   ['#/k/events', 'Events'], ['#/money', 'Money'], ['#/pools', 'Pools'],
                   ['#/clock', 'Clock'], ['#/apply', 'Apply']];
    fill($('nav'), links.map(([href, text]) => h('a', { href }, text)));
}

function projectList() {
    const sel = $('project');
    const render = () => {
        const cur = shell.project();
        fill(sel, h('option', { value: '' }, 'all projects'),
             projects.map((p) => h('option', { value: p, selected: p === cur }, p)));
    };
    const names = new Set();
    api.watch('/api/v1/namespaces', {
        onList: (list) => { names.clear(); for (const o of list.items || []) names.add(o.metadata.name); projects = [...names].sort(); render(); },
        onEvent: (ev) => {
            if (ev.type === 'DELETED') names.delete(ev.object.metadata.name);
            else names.add(ev.object.metadata.name);
            projects = [...names].sort();
            render();
        },
    });
    sel.addEventListener('change', () => setProject(sel.value));
}

// Sign-in: shown when a call is refused for want of a token; the page shows no data
// until a token the emulator knows is given.
function signIn() {
    return new Promise((resolve) => {
        const dlg = $('login');
        const form = $('login-form');
        fill($('view'), h('p.muted', 'Sign in to see this emulator.'));
        form.onsubmit = async (ev) => {
            ev.preventDefault();
            api.setToken($('login-token').value.trim());
            try {
                await api.get('/api/v1/namespaces?limit=1');
                dlg.close();
                resolve();
            } catch (err) {
                api.setToken('');
                const e = $('login-error');
                e.textContent = err.code === 401 ? 'That token is not known to this emulator.' : err.message;
                e.hidden = false;
            }
        };
        if (!dlg.open) dlg.showModal();
        $('login-token').focus();
    });
}

async function main() {
    $('logout').addEventListener('click', () => { api.setToken(''); location.reload(); });
    keys.start(); // the shortcuts (keys.js); ? lists them
    // a call refused mid-session (a token removed from the file): sign in again
    api.onUnauthorized(() => { if (!$('login').open) signIn().then(() => location.reload()); });
    for (;;) {
        try {
            await api.get('/api/v1/namespaces?limit=1');
            break;
        } catch (err) {
            if (err.code !== 401) { fill($('view'), errorBox(err)); return; }
            await signIn();
        }
    }
    $('logout').hidden = !api.token();
    await Promise.all([kinds.load(), clock.start()]);
    const tick = () => { $('clock').textContent = clock.label(); };
    tick();
    setInterval(tick, 1000); // the display only: the clock itself is what the emulator said
    nav();
    projectList();
    window.addEventListener('hashchange', route);
    route();
}

main().catch((err) => { banner(errorBox(err)); });
