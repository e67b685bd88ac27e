// view-object.js: #/o/PLURAL/NS/NAME (NS is - for a cluster-scoped kind): one object,
// live. One watch of the object (its collection in its project, fieldSelector
// metadata.name=NAME) and one of the Events about it (involvedObject.kind and .name);
// the Logs tab adds a followed log while it is open: 3 streams at most, all stopped by
// the cleanup. Tabs: Overview, Money, YAML, Events, Logs (kinds with the log
// subresource), Terminal (kinds with exec: terminal.js mounts into div#terminal-slot).
// ?tab=NAME opens a tab; a deleted object stays on the page, marked deleted.
import * as api from './api.js';
import * as clock from './clock.js';
import { h, fill, errorBox } from './dom.js';
import { actionBar } from './actions.js';
import { mountTerminal } from './terminal.js';
import { toYaml } from './yaml.js';
import { overview, money, hasMoney, eventsTable, refreshTimes } from './object-panels.js';
import { logPanel } from './object-log.js';

const TABS = { overview: 'Overview', money: 'Money', yaml: 'YAML', events: 'Events', logs: 'Logs', terminal: 'Terminal' };

export default function render(el, { parts, query }, shell) {
    const [plural, nsPart = '-', name] = parts;
    const kind = shell.kinds.byPlural(plural);
    if (!kind || !name || (kind.namespaced && (!nsPart || nsPart === '-'))) {
        fill(el, h('p', kind ? `A ${kind.kind}'s page is #/o/${plural}/PROJECT/NAME` : `This server has no kind ${plural}`,
                   '. ', h('a', { href: '#/' }, 'Home')));
        return null;
    }
    const ns = kind.namespaced ? nsPart : '';
    const what = `${kind.kind.toLowerCase()}/${name}`;
    let obj = null, deleted = false, missing = false;
    let tab = TABS[query.get('tab')] ? query.get('tab') : 'overview';
    let mounted = '', stopMounted = null, log = null, termSlot = null;
    let showManaged = false;
    const events = new Map();
    let evErr = null;

    const phaseEl = h('span.phase');
    const state = h('span.live.obj-state', { role: 'status' }, 'connecting…');
    const actions = h('div.action-slot');
    const problem = h('div.problem');
    const tabs = h('div.tabs', { role: 'tablist', 'aria-label': `${what} sections` });
    const panel = h('div.tabpanel', { role: 'tabpanel', id: 'object-panel', tabindex: 0 });
    fill(el, h('p.crumbs', h('a', { href: `#/k/${plural}` }, plural),
               ns ? ` / ${ns}` : ' (cluster-wide)'),
         h('div.head', h('h1', h('span.muted', kind.kind, ' '), name), ns ? h('span.muted', `in ${ns}`) : null, phaseEl, state),
         actions, problem, tabs, panel);

    const available = () => Object.keys(TABS).filter((t) =>
        t === 'money' ? !obj || hasMoney(obj) || tab === 'money'
            : t === 'logs' ? kind.subs.includes('log')
                : t === 'terminal' ? kind.subs.includes('exec')
                    : t === 'events' ? !!kind.group : true);
    const ours = (e) => !obj?.metadata?.uid || !e.involvedObject?.uid || e.involvedObject.uid === obj.metadata.uid;
    const eventList = () => [...events.values()].filter(ours);

    const select = (t, focus) => {
        if (t !== tab) {
            tab = t;
            const hash = `#/o/${plural}/${encodeURIComponent(nsPart)}/${encodeURIComponent(name)}${t === 'overview' ? '' : `?tab=${t}`}`;
            history.replaceState(null, '', hash); // no hashchange: the page stays, its watches too
            drawTabs();
            drawPanel();
        }
        if (focus) tabs.querySelector(`[data-tab="${t}"]`)?.focus();
    };
    const onKey = (ev) => {
        const list = available();
        const i = list.indexOf(tab);
        const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: list.length - 1 }[ev.key];
        if (to === undefined) return;
        ev.preventDefault();
        select(list[(to + list.length) % list.length], true);
    };
    function drawTabs() {
        const focused = tabs.contains(document.activeElement);
        fill(tabs, available().map((t) => h('button.tab', {
            type: 'button', role: 'tab', id: `tab-${t}`, 'aria-selected': String(t === tab), 'aria-controls': 'object-panel',
            tabindex: t === tab ? 0 : -1, dataset: { tab: t }, on: { click: () => select(t), keydown: onKey },
        }, TABS[t], t === 'events' && events.size ? h('span.count', ` ${eventList().length}`) : null)));
        panel.setAttribute('aria-labelledby', `tab-${tab}`);
        if (focused) tabs.querySelector('[aria-selected="true"]')?.focus();
    }

    function drawHead() {
        const phase = obj?.status?.phase || '';
        fill(phaseEl, phase ? h('span', { class: `badge phase-${phase}` }, phase) : null,
             deleted ? h('span.badge.deleted', { title: 'deleted: the page shows its last state' }, 'deleted') : null);
        fill(actions, obj && !deleted ? actionBar(kind, obj, shell) : null);
    }

    const unmount = () => {
        if (stopMounted) { try { stopMounted(); } catch { /* the tab's own */ } }
        stopMounted = null; mounted = ''; log = null; termSlot = null;
    };
    function drawPanel() {
        if (tab === 'logs' || tab === 'terminal') {
            if (mounted !== tab) {
                unmount();
                mounted = tab;
                if (tab === 'logs') {
                    log = logPanel(kind, ns, name);
                    stopMounted = log.stop;
                    fill(panel, log.el);
                } else {
                    termSlot = h('div#terminal-slot');
                    fill(panel, termSlot);
                }
            }
            if (log && obj) log.update(obj, deleted);
            if (termSlot && obj && !stopMounted) stopMounted = mountTerminal(termSlot, kind, obj);
            return;
        }
        if (mounted) unmount();
        if (!obj) {
            fill(panel, missing ? h('p.muted', `There is no ${what}${ns ? ` in ${ns}` : ''} (yet): this page shows it once it is created.`)
                                : h('p.muted', 'Loading…'));
            return;
        }
        if (tab === 'overview') fill(panel, overview(obj, shell));
        else if (tab === 'money') fill(panel, money(obj));
        else if (tab === 'events') fill(panel, evErr ? errorBox(evErr) : null, eventsTable(eventList()));
        else if (tab === 'yaml') drawYaml();
    }
    function drawYaml() {
        const shown = showManaged || !obj.metadata?.managedFields ? obj
            : { ...obj, metadata: Object.fromEntries(Object.entries(obj.metadata).filter(([k]) => k !== 'managedFields')) };
        const text = toYaml(shown);
        const pre = panel.querySelector('pre.yaml');
        if (pre) { pre.textContent = text; return; } // in place: the reader keeps the place
        const box = h('input', { type: 'checkbox', checked: showManaged,
                                 on: { change: () => { showManaged = box.checked; fill(panel); drawYaml(); } } });
        fill(panel, obj.metadata?.managedFields ? h('label.opt', box, ' Show managedFields') : null,
             h('pre.yaml', { tabindex: 0, 'aria-label': `${what} as YAML` }, text));
    }

    const changed = () => {
        drawHead(); drawTabs(); drawPanel();
    };
    const wObj = api.watch(api.collection(kind, ns), {
        params: { fieldSelector: `metadata.name=${name}` },
        onList: (list) => {
            const it = (list.items || []).find((o) => o.metadata?.name === name);
            if (it) { obj = it; deleted = false; missing = false; }
            else if (obj) deleted = true; // gone while the watch was away
            else missing = true;
            changed();
        },
        onEvent: (ev) => {
            if (ev.object?.metadata?.name !== name) return;
            obj = ev.object;
            deleted = ev.type === 'DELETED';
            missing = false;
            changed();
        },
        onState: (s, err) => {
            state.textContent = s === 'live' ? '● live' : s;
            state.className = `live obj-state ${s}`;
            fill(problem, err ? errorBox(err) : null);
        },
    });
    // the emulator records Events about nodus.dev objects in their project
    const evPath = ns ? `/api/v1/namespaces/${encodeURIComponent(ns)}/events` : '/api/v1/events';
    const wEv = kind.group ? api.watch(evPath, {
        params: { fieldSelector: `involvedObject.kind=${kind.kind},involvedObject.name=${name}` },
        onList: (list) => {
            events.clear();
            for (const e of list.items || []) events.set(e.metadata?.uid || e.metadata?.name, e);
            drawTabs();
            if (tab === 'events') drawPanel();
        },
        onEvent: (ev) => {
            const key = ev.object?.metadata?.uid || ev.object?.metadata?.name;
            if (ev.type === 'DELETED') events.delete(key);
            else events.set(key, ev.object);
            drawTabs();
            if (tab === 'events') drawPanel();
        },
        onState: (s, err) => {
            const was = evErr;
            evErr = err || null;
            if ((was || evErr) && tab === 'events') drawPanel();
        },
    }) : null;
    changed();
    const ticks = setInterval(() => refreshTimes(panel), 5000); // "5m ago", on the emulator's clock
    const unsub = clock.subscribe(() => refreshTimes(panel));
    return () => { wObj.stop(); wEv?.stop(); unmount(); clearInterval(ticks); unsub(); };
}
