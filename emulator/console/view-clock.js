// view-clock.js: #/clock: the emulator's clock (its time and speed, live from clock.js's
// stream), buttons to advance it, pause and resume it and set its speed, and the
// snapshots of the whole state: list, save under a name, restore (after a confirmation).
// All through the admin endpoints /emulator/v1/clock and /emulator/v1/snapshots: without
// admin they are 403 and the page says so, with the fix.
import * as api from './api.js';
import * as clock from './clock.js';
import { h, fill, errorBox } from './dom.js';

const SPEED_KEY = 'nodus-clock-speed'; // the speed a resume returns to

const fmtTime = (ms) => new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');

// An error box for a call refused for want of admin, with what to do about it.
function refusedBox(err) {
    return h('div', errorBox(err), err?.code === 403
        ? h('p.muted', 'The clock and the snapshots are control endpoints: sign in with a token whose scopes hold admin ',
            '(the emulator\'s --token-file), or use an emulator without tokens.')
        : null);
}

export default function render(el) {
    const now = h('output#clock-now.big', { 'aria-live': 'off' }, '…');
    const speedOut = h('span#clock-speed', '');
    const said = h('div.said', { role: 'status' });
    const speedIn = h('input#speed-input', { type: 'number', min: '0', max: '1000000', step: 'any',
                                             'aria-label': 'Speed (times real time)' });
    const custom = h('input#advance-custom', { type: 'text', placeholder: '90m, 2h30m, 3d',
                                               'aria-label': 'Duration to advance', size: 10 });
    const pause = h('button#pause', { type: 'button', on: { click: () => toggle() } }, 'Pause');
    const snapName = h('input#snap-name', { type: 'text', placeholder: 'before-demo', pattern: '[a-z0-9]([a-z0-9\\-]*[a-z0-9])?',
                                            'aria-label': 'Snapshot name', required: true });
    const snaps = h('div#snapshots', h('p.muted', 'loading…'));
    const ctl = new AbortController();

    const act = async (what, path, body) => {
        fill(said, `${what}…`);
        try {
            const r = await api.call(path, { method: 'POST', body: body ?? {}, signal: ctl.signal });
            fill(said, `${what}: done.`);
            return r.body;
        } catch (err) {
            if (ctl.signal.aborted) return null;
            fill(said, refusedBox(err));
            return null;
        }
    };
    const setSpeed = (s) => act(s === 0 ? 'Pause' : `Speed ×${s}`, '/emulator/v1/clock', { speed: s });
    const advance = (d) => act(`Advance ${d}`, '/emulator/v1/clock', { advance: d });
    const toggle = () => {
        if (clock.speed() === 0) return setSpeed(Number(sessionStorage.getItem(SPEED_KEY)) || 1);
        sessionStorage.setItem(SPEED_KEY, String(clock.speed()));
        return setSpeed(0);
    };

    const listSnapshots = async () => {
        try {
            const list = await api.get('/emulator/v1/snapshots', { signal: ctl.signal });
            const items = (list.items || []).slice().sort((a, b) => String(a.name).localeCompare(String(b.name)));
            fill(snaps, items.length ? h('div.scroll', h('table.snapshots', { 'aria-label': 'Snapshots' },
                h('thead', h('tr', h('th', 'NAME'), h('th', 'SAVED'), h('th', 'OBJECTS'), h('th', ''))),
                h('tbody', items.map((s) => snapshotRow(s))))) : h('p.muted', 'No snapshots yet.'));
        } catch (err) {
            if (!ctl.signal.aborted) fill(snaps, refusedBox(err));
        }
    };
    const snapshotRow = (s) => {
        const cell = h('td.actions-cell');
        const ask = () => {
            const yes = h('button.danger', { type: 'button', on: { click: async () => {
                const r = await act(`Restore ${s.name}`, `/emulator/v1/snapshots/${encodeURIComponent(s.name)}/restore`);
                if (r) fill(said, `Restored ${s.name}: ${r.objects} objects, the clock back at ${fmtTime(r.clockMs)}.`);
                idle();
            } } }, `Restore ${s.name}`);
            fill(cell, h('span.confirm', { role: 'group', 'aria-label': `Confirm restoring ${s.name}` },
                `Restore ${s.name}? Objects made since are deleted and the clock goes back. `, yes, ' ',
                h('button', { type: 'button', on: { click: idle } }, 'Cancel')));
            yes.focus();
        };
        const idle = () => fill(cell, h('button', { type: 'button', dataset: { restore: s.name },
                                                   on: { click: ask } }, 'Restore…'));
        idle();
        return h('tr', { dataset: { name: s.name } }, h('td', s.name),
                 h('td', s.time || ''), h('td', s.objects ?? ''), cell);
    };

    fill(el,
        h('div.head', h('h1', 'The clock')),
        h('section.clockface', { 'aria-label': 'The emulator\'s clock' }, now, ' ', speedOut),
        h('div.actions', { role: 'group', 'aria-label': 'Advance the clock' },
            ['1m', '10m', '1h'].map((d) => h('button', { type: 'button', dataset: { advance: d },
                                                       on: { click: () => advance(d) } }, `+${d}`)),
            h('form.inline', { on: { submit: (ev) => { ev.preventDefault(); if (custom.value.trim()) advance(custom.value.trim()); } } },
              custom, ' ', h('button#advance-go', { type: 'submit' }, 'Advance'))),
        h('div.actions', { role: 'group', 'aria-label': 'Speed' }, pause,
            h('form.inline', { on: { submit: (ev) => { ev.preventDefault(); const s = Number(speedIn.value);
                                                        if (speedIn.value !== '' && s >= 0) setSpeed(s); } } },
              h('label', 'Speed ', speedIn), ' ', h('button#speed-go', { type: 'submit' }, 'Set speed'))),
        said,
        h('h2', 'Snapshots'),
        h('p.muted', 'A snapshot holds every object, the files, the logs and the clock. Restoring one brings them back as they were.'),
        h('form.inline#snap-form', { on: { submit: async (ev) => {
            ev.preventDefault();
            const name = snapName.value.trim();
            if (!name) return;
            if (await act(`Save ${name}`, `/emulator/v1/snapshots/${encodeURIComponent(name)}`)) listSnapshots();
        } } }, h('label', 'Name ', snapName), ' ', h('button#snap-save', { type: 'submit' }, 'Save snapshot')),
        snaps);

    const draw = () => {
        const err = clock.error();
        if (err && !clock.known()) {
            fill(now, 'unknown');
            fill(speedOut, '');
            if (!said.dataset.refused) { said.dataset.refused = '1'; fill(said, refusedBox(err)); }
            return;
        }
        now.textContent = fmtTime(clock.now());
        const s = clock.speed();
        speedOut.textContent = s === 0 ? 'paused' : `×${s}`;
        pause.textContent = s === 0 ? 'Resume' : 'Pause';
        if (document.activeElement !== speedIn) speedIn.value = String(s);
    };
    draw();
    listSnapshots();
    const unsub = clock.subscribe(draw);
    const tick = setInterval(draw, 1000); // the display only: the clock is what the stream said
    return () => { ctl.abort(); unsub(); clearInterval(tick); };
}
