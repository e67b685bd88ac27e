// clock.js: the emulator's clock in the page. Times are shown on it, not on the
// browser's: its now is {nowMs, speed} as the emulator last said, carried forward at its
// speed. GET /emulator/v1/clock?watch=true streams the clock: once, then at each advance,
// speed change, reset or snapshot restore; a dropped stream is opened again. It is an
// admin endpoint: without admin the page uses the browser's time and says so.
import { lines, ApiError } from './api.js';

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

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let started = null;
let refused = null; // the ApiError of a 401/403: the stream is not tried again

// Why the page has no clock of the emulator's (an ApiError), or null.
export function error() { return refused; }

// Opens the clock's stream (once); resolves when the first clock came or it failed.
export function start() {
    if (started) return started;
    started = new Promise((ready) => {
        (async () => {
            let delay = 500;
            for (;;) {
                try {
                    await lines('/emulator/v1/clock?watch=true', (line) => {
                        set(JSON.parse(line));
                        delay = 500;
                        ready();
                    });
                } catch (err) {
                    if (err instanceof ApiError && (err.code === 401 || err.code === 403)) {
                        state.known = false;
                        refused = err;
                        for (const fn of listeners) fn(state);
                        ready();
                        return;
                    }
                }
                ready(); // (a stream that ended or failed: the page goes on meanwhile)
                await sleep(delay);
                delay = Math.min(delay * 2, 10000);
            }
        })();
    });
    return started;
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
