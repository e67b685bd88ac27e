// object-log.js: the object page's Logs tab. Follows the log subresource
// (GET .../NAME/log?follow=true&timestamps=true, the last 500 lines first) into a <pre>
// that keeps to its end while the reader is there. When the server ends the stream while
// the object still runs (a restarted emulator, a dropped connection), it asks again from
// the time of the last line and skips the lines it already shows, as `nodus logs -f`
// does. One stream at most; stop() ends it.
import * as api from './api.js';
import { h, fill, errorBox } from './dom.js';

const ENDED = new Set(['Succeeded', 'Failed', 'Cancelled', 'Stopped']);
const NOT_STARTED = new Set(['', 'Queued', 'Provisioning', 'Pending', 'Starting']);
const MAX_LINES = 5000; // the page keeps the last ones only

// logPanel(kind, ns, name): {el, update(obj, deleted), stop()}; update() tells it the
// object as the page's watch last saw it (the stream starts once it is known).
export function logPanel(kind, ns, name) {
    const what = `${kind.kind.toLowerCase()}/${name}`;
    const pre = h('pre.log', { tabindex: 0, 'aria-label': `Log of ${what}` });
    const note = h('div.log-state', { role: 'status' });
    const el = h('div.logpanel', note, pre);
    const path = `${api.item(kind, ns, name)}/log`;
    let ctl = null, timer = null, delay = 500;
    let lastTs = '', atLast = 0, skip = 0, count = 0;
    let obj = null, deleted = false, stopped = false, probed = false, failed = false;
    const phase = () => obj?.status?.phase || '';
    const say = (...c) => fill(note, ...c);

    const append = (text) => {
        const atEnd = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 8;
        pre.append(`${text}\n`);
        if (++count > MAX_LINES) { pre.firstChild.remove(); count--; }
        if (atEnd) pre.scrollTop = pre.scrollHeight;
    };
    // "2026-11-29T16:00:35.000218734Z text": the time decides what a resumed stream repeats
    const onLine = (line) => {
        const sp = line.indexOf(' ');
        const ts = sp > 0 ? line.slice(0, sp) : '';
        if (ts && lastTs && ts < lastTs) return;
        if (ts === lastTs && skip > 0) { skip--; return; }
        if (ts !== lastTs) { lastTs = ts; atLast = 0; skip = 0; }
        atLast++;
        delay = 500;
        if (!count || failed) { failed = false; following(); }
        append(sp > 0 ? line.slice(sp + 1) : line);
    };
    const following = () => say(h('span.live.live', '● following'), ' ', h('span.muted', `the log of ${what}`));

    // Not started: the server's own answer (BadRequest, with its fix) says why there is
    // no log; the followed stream waits for the run meanwhile.
    const waiting = async () => {
        say(h('span.muted', `${what} has not started yet (phase ${phase() || 'unknown'}): its log appears here once it runs.`));
        if (probed) return;
        probed = true;
        try {
            await api.call(api.withQuery(path, { tailLines: 1 }));
        } catch (err) {
            if (!count && !stopped)
                say(errorBox(err), h('div.muted', 'Waiting: the log appears here once it runs.'));
        }
    };

    const ended = (mine, err) => {
        if (mine.signal.aborted || stopped) return;
        ctl = null;
        if (deleted) { say(h('span.muted', `${what} was deleted: its log ends here.`)); return; }
        if (err) {
            failed = true;
            say(errorBox(err));
            // a refusal waits for the object to change (update() starts again)
            if (err instanceof api.ApiError && err.code >= 400 && err.code < 500 && err.code !== 429) return;
        } else if (ENDED.has(phase())) {
            say(h('span.muted', `The log ended: ${what} is ${phase()}.`));
            return;
        }
        // the stream ended while the object still runs: ask again from the last line
        timer = setTimeout(() => { timer = null; start(); }, delay);
        delay = Math.min(delay * 2, 10000);
    };

    function start() {
        if (stopped || ctl || timer || !obj || deleted) return;
        const mine = new AbortController();
        ctl = mine;
        const params = { follow: true, timestamps: true };
        if (lastTs) { params.sinceTime = lastTs; skip = atLast; } else params.tailLines = 500;
        if (NOT_STARTED.has(phase()) && !count) waiting();
        else if (!failed) following();
        api.lines(api.withQuery(path, params), onLine, { signal: mine.signal })
            .then(() => ended(mine, null), (err) => ended(mine, err));
    }

    return {
        el,
        update(o, gone) {
            const was = phase();
            obj = o;
            deleted = gone;
            if (stopped) return;
            if (deleted && !ctl) { say(h('span.muted', `${what} was deleted: its log ends here.`)); return; }
            if (!ctl && !timer && !ENDED.has(phase())) start();
            else if (!ctl && !timer && ENDED.has(phase()) && !lastTs && !was) start(); // show what it printed
            else if (ctl && !count && !NOT_STARTED.has(phase()) && NOT_STARTED.has(was)) following();
        },
        stop() {
            stopped = true;
            ctl?.abort();
            clearTimeout(timer);
        },
    };
}
