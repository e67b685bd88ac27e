// clock.js: the emulator's clock in the page. Times are shown on it, not on the
// browser's: its now is {nowMs, speed} as the emulator last said, carried forward at its
// speed. GET /emulator/v1/clock (an admin endpoint: without admin the page uses the
// browser's time and says so).
import { get } from './api.js';

const state = { nowMs: Date.now(), speed: 1, at: performance.now(), known: false };
const listeners = new Set();

// The emulator's time now, in ms since the epoch.
export function now() {
    return state.nowMs + (performance.now() - state.at) * state.speed;
}
export function speed() { return state.speed; }
export function known() { return state.known; }

// Takes what the emulator said ({nowMs, speed}); listeners hear of it.
export function set(c) {
    state.nowMs = c.nowMs;
    state.speed = c.speed;
    state.at = performance.now();
    state.known = true;
    for (const fn of listeners) fn(state);
}
export function subscribe(fn) { listeners.add(fn); return () => listeners.delete(fn); }

export async function start() {
    try {
        set(await get('/emulator/v1/clock'));
    } catch {
        state.known = false;
    }
}

// An ISO time on the emulator's clock as "12m ago" (or "in 5m").
export function ago(iso) {
    if (!iso) return '-';
    const d = now() - Date.parse(iso);
    return d >= 0 ? `${fmt(d)} ago` : `in ${fmt(-d)}`;
}
function fmt(ms) {
    const s = Math.floor(ms / 1000);
    if (s < 60) return `${s}s`;
    if (s < 3600) return `${Math.floor(s / 60)}m`;
    if (s < 172800) return `${Math.floor(s / 3600)}h${Math.floor(s % 3600 / 60) ? `${Math.floor(s % 3600 / 60)}m` : ''}`;
    return `${Math.floor(s / 86400)}d`;
}
// The emulator's now, as shown in the header: 2026-12-05 21:34:27 UTC ×60
export function label() {
    const t = new Date(now()).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
    if (!state.known) return `${t} (browser clock)`;
    return `${t}${state.speed === 0 ? ' · paused' : state.speed === 1 ? '' : ` · ×${state.speed}`}`;
}
