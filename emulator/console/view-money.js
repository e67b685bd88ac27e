// view-money.js: #/money: what the work costs, live. A chart of the spend per project and
// kind over the emulator's clock (GET /emulator/v1/spend, then its ?watch=true stream of
// samples), the current totals, each Budget (a watch: limit, period, action, thresholds,
// spent, remaining, the first hold a launch sets aside) and the price book. Two streams:
// the spend watch and the Budgets watch. The chart is SVG drawn here (see docs/console.md,
// Libraries). The spend endpoint is an admin one: without admin the page says so, and how
// to fix it, and still shows the Budgets and what it can.
import * as api from './api.js';
import { h, fill, errorBox, usd } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
const BUDGETS = { group: 'nodus.dev', version: 'v1', plural: 'budgets', namespaced: true };
// Colours readable on the light and the dark background alike (mid tones).
const COLOURS = ['#4c8dff', '#e8793b', '#2fa56b', '#c95fd0', '#d4a72c', '#e5534b', '#3aa6b9', '#8b949e'];

function svg(tag, attrs, ...kids) {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
    for (const k of kids) el.append(k instanceof Node ? k : document.createTextNode(String(k)));
    return el;
}

const hhmm = (ms) => new Date(ms).toISOString().slice(5, 16).replace('T', ' ');
const seriesName = (key) => key.replace('/', ' · ');

// [{key: "project/kind", points: [[timeMs, dollars]]}] from samples ordered by seq.
function seriesOf(samples) {
    const keys = new Set();
    for (const s of samples)
        for (const [p, kinds] of Object.entries(s.costUSD || {}))
            for (const k of Object.keys(kinds)) keys.add(`${p}/${k}`);
    return [...keys].sort().map((key) => {
        const [p, k] = key.split('/');
        return { key, points: samples.map((s) => [s.timeMs, Number(s.costUSD?.[p]?.[k] || 0)]) };
    });
}

function drawChart(box, legend, samples) {
    const W = 640, H = 240, L = 56, R = 12, T = 10, B = 28;
    const series = seriesOf(samples);
    const t0 = samples.length ? samples[0].timeMs : 0;
    const t1 = samples.length ? samples[samples.length - 1].timeMs : 1;
    let ymax = 0;
    for (const s of series) for (const [, v] of s.points) ymax = Math.max(ymax, v);
    ymax = ymax > 0 ? ymax * 1.1 : 1;
    const x = (t) => L + (t1 > t0 ? (t - t0) / (t1 - t0) : 1) * (W - L - R);
    const y = (v) => T + (1 - v / ymax) * (H - T - B);
    const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', class: 'chart',
        'aria-label': `Spend over the emulator's clock: ${samples.length} samples` });
    chart.dataset.samples = String(samples.length);
    for (let i = 0; i <= 4; i++) {
        const v = ymax * i / 4;
        chart.append(svg('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), class: 'grid' }),
                     svg('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' }, usd(v)));
    }
    if (samples.length) {
        chart.append(svg('text', { x: L, y: H - 8, class: 'axis' }, hhmm(t0)),
                     svg('text', { x: W - R, y: H - 8, 'text-anchor': 'end', class: 'axis' }, `${hhmm(t1)} UTC`));
    }
    series.forEach((s, i) => {
        const colour = COLOURS[i % COLOURS.length];
        const pts = s.points.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
        const line = svg('polyline', { points: pts, fill: 'none', 'stroke-width': 2,
                                        'stroke-dasharray': i >= COLOURS.length ? '5 3' : 'none' });
        line.style.stroke = colour; // style from JS: the CSP allows it (no inline <style>)
        line.dataset.series = s.key;
        chart.append(line);
        if (s.points.length === 1) {
            const dot = svg('circle', { cx: x(s.points[0][0]), cy: y(s.points[0][1]), r: 3 });
            dot.style.fill = colour;
            chart.append(dot);
        }
    });
    fill(box, samples.length ? chart : h('p.muted', 'Nothing has cost anything yet: spend appears as the clock moves.'));
    fill(legend, series.map((s, i) => {
        const sw = h('span.swatch', { 'aria-hidden': 'true' });
        sw.style.background = COLOURS[i % COLOURS.length];
        const last = s.points[s.points.length - 1];
        return h('li', sw, seriesName(s.key), ' ', h('span.muted', usd(last ? last[1] : 0)));
    }));
}

function drawTotals(table, spend) {
    const rows = spend.totals || [];
    fill(table,
         h('thead', h('tr', h('th', { scope: 'col' }, 'PROJECT'), h('th', { scope: 'col' }, 'KIND'),
                      h('th.num', { scope: 'col' }, 'SPENT'))),
         h('tbody', rows.length ? rows.map((r) => h('tr', { dataset: { project: r.project, kind: r.kind, usd: r.costUSD } },
                h('td', r.project), h('td', r.kind), h('td.num', usd(r.costUSD))))
                : h('tr', h('td.muted', { colspan: 3 }, 'Nothing spent yet.'))),
         h('tfoot', h('tr', h('th', { scope: 'row', colspan: 2 }, 'Total'),
                      h('td.num.total', { dataset: { usd: spend.totalUSD || '0' } }, usd(spend.totalUSD)))));
}

// spec.thresholds, each marked when reached (ThresholdReached's reason: Threshold80).
function thresholdsOf(b) {
    let max = 0;
    for (const c of b.status?.conditions || []) {
        const m = /(\d+)/.exec(c.reason || '');
        if (c.type === 'ThresholdReached' && c.status === 'True' && m) max = Math.max(max, Number(m[1]));
    }
    return (b.spec?.thresholds || [50, 80, 100]).map((t) => (t <= max ? `${t}% ✓` : `${t}%`)).join(' ');
}

function drawBudgets(table, budgets, holdHours) {
    const list = [...budgets.values()].sort((a, b) =>
        `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`));
    const cols = ['PROJECT', 'NAME', 'LIMIT', 'PERIOD', 'ACTION', 'SPENT', 'REMAINING', 'THRESHOLDS', 'FIRST HOLD', 'PHASE'];
    fill(table,
         h('thead', h('tr', cols.map((c) => h('th', { scope: 'col' }, c)))),
         h('tbody', list.length ? list.map((b) => {
             const m = b.metadata, s = b.status || {}, sp = b.spec || {};
             const exceeded = (s.conditions || []).some((c) => c.type === 'Exceeded' && c.status === 'True');
             return h('tr', { dataset: { name: m.name, project: m.namespace } },
                 h('td', m.namespace), h('td', h('a', { href: `#/o/budgets/${m.namespace}/${m.name}` }, m.name)),
                 h('td', { dataset: { col: 'limit' } }, usd(sp.limitUSD)), h('td', sp.period || 'Monthly'),
                 h('td', sp.action || 'Block'),
                 h('td', { dataset: { col: 'spent' } }, usd(s.spentUSD)),
                 h('td', { dataset: { col: 'remaining' } }, usd(s.remainingUSD), exceeded ? h('span.error', ' exceeded') : null),
                 h('td', { dataset: { col: 'thresholds' } }, thresholdsOf(b)),
                 h('td', { title: 'what a launch in scope sets aside: the price book\'s holds.firstHoldHours at its rate' },
                   holdHours === undefined ? '-' : `${holdHours} h at the rate`),
                 h('td', s.phase || '-'));
         }) : h('tr', h('td.muted', { colspan: cols.length }, 'No Budgets.'))));
}

function drawPrices(box, book) {
    const market = book.gpu?.market || {}, pool = book.gpu?.pool || {};
    const models = [...new Set([...Object.keys(market), ...Object.keys(pool)])];
    const perHour = (v) => (v === undefined ? '-' : `${usd(v)}/h`);
    fill(box,
         h('table.prices', { 'aria-label': 'GPU prices' },
           h('thead', h('tr', h('th', { scope: 'col' }, 'GPU MODEL'), h('th.num', { scope: 'col' }, 'MARKET'),
                        h('th.num', { scope: 'col' }, 'POOL'))),
           h('tbody', models.map((m) => h('tr', { dataset: { model: m } }, h('td', m),
               h('td.num', { dataset: { col: 'market' } }, perHour(market[m])),
               h('td.num', { dataset: { col: 'pool' } }, perHour(pool[m])))))),
         h('p.muted', 'Per device-hour. CPU ', perHour(book.cpuCoreHourUSD), ' a core, memory ',
           perHour(book.memoryGiBHourUSD), ' a GiB, storage ', usd(book.storageGiBMonthUSD),
           ' a GiB-month; first hold ', String(book.holds?.firstHoldHours ?? 1), ' h.'));
}

const sleep = (ms, signal) => new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});

export default function render(el, _params, shell) {
    const project = shell.project();
    const ctl = new AbortController();
    const state = h('span.live', { role: 'status' }, 'connecting…');
    const chartBox = h('div.chart-box');
    const legend = h('ul.legend', { 'aria-label': 'Series' });
    const spendErr = h('div');
    const totals = h('table.totals', { 'aria-label': 'Spend per project and kind' });
    const budgetsTable = h('table.budgets', { 'aria-label': 'Budgets' });
    const prices = h('div.pricebook');
    fill(el, h('div.head', h('h1', 'Money'), state),
         h('p.muted', 'Spend so far per project and kind (every project), on the emulator\'s clock.'),
         spendErr, chartBox, legend,
         h('h2', 'Totals'), h('div.scroll', totals),
         h('h2', 'Budgets', project ? ` in ${project}` : ''), h('div.scroll', budgetsTable),
         h('h2', 'Price book'), prices);

    // timeMs -> sample: a sample that replaces one at the same emulated time (the clock
    // had not moved) comes again with a new seq
    const samples = new Map();
    let spend = { totals: [], totalUSD: '0' };
    const redraw = () => {
        drawChart(chartBox, legend, [...samples.values()].sort((a, b) => a.timeMs - b.timeMs));
        drawTotals(totals, spend);
    };
    // the totals of a sample streamed: what the newest sample holds
    const totalsOf = (s) => {
        const rows = [];
        for (const [p, kinds] of Object.entries(s.costUSD || {}))
            for (const [k, v] of Object.entries(kinds)) rows.push({ project: p, kind: k, costUSD: v });
        rows.sort((a, b) => `${a.project}/${a.kind}`.localeCompare(`${b.project}/${b.kind}`));
        return { totals: rows, totalUSD: s.totalUSD };
    };
    (async () => { // the spend: its state, then its samples as they are taken
        let delay = 500;
        while (!ctl.signal.aborted) {
            try {
                const s = await api.get('/emulator/v1/spend', { signal: ctl.signal });
                spend = s;
                samples.clear();
                for (const x of s.samples || []) samples.set(x.timeMs, x);
                fill(spendErr);
                redraw();
                state.textContent = '● live';
                state.className = 'live live';
                let expired = false;
                let newestSeq = Math.max(0, ...(s.samples || []).map((x) => x.seq));
                await api.lines('/emulator/v1/spend?watch=true', (line) => {
                    const ev = JSON.parse(line);
                    if (ev.type === 'ERROR') { expired = true; return; }
                    if (ev.type !== 'SAMPLE') return;
                    const o = ev.object;
                    if (o.seq > newestSeq) { newestSeq = o.seq; spend = totalsOf(o); }
                    samples.set(o.timeMs, o);
                    while (samples.size > (s.maxSamples || 1000)) samples.delete(Math.min(...samples.keys()));
                    redraw();
                }, { signal: ctl.signal });
                if (!expired) await sleep(delay, ctl.signal);
                delay = 500;
            } catch (err) {
                if (ctl.signal.aborted) return;
                state.textContent = 'error';
                state.className = 'live error';
                if (err instanceof api.ApiError && (err.code === 403 || err.code === 401)) {
                    fill(spendErr, h('div.money-denied', errorBox(err),
                        h('p', 'The spend over time is read from an admin endpoint (GET /emulator/v1/spend). ',
                          'Sign in with a token whose scopes include admin (the emulator\'s --token-file) to see the chart and totals.')));
                    fill(chartBox);
                    return;
                }
                fill(spendErr, errorBox(err));
                await sleep(delay, ctl.signal);
                delay = Math.min(delay * 2, 10000);
            }
        }
    })();

    const budgets = new Map();
    let holdHours;
    const key = (o) => o.metadata?.uid || `${o.metadata?.namespace}/${o.metadata?.name}`;
    const w = api.watch(api.collection(BUDGETS, project), {
        onList: (l) => { budgets.clear(); for (const b of l.items || []) budgets.set(key(b), b); drawBudgets(budgetsTable, budgets, holdHours); },
        onEvent: (ev) => {
            if (ev.type === 'DELETED') budgets.delete(key(ev.object));
            else budgets.set(key(ev.object), ev.object);
            drawBudgets(budgetsTable, budgets, holdHours);
        },
        onState: (s, err) => { if (err) fill(budgetsTable, errorBox(err)); },
    });

    (async () => { // the price book (read once; an admin endpoint too)
        try {
            const book = await api.get('/emulator/v1/pricebook', { signal: ctl.signal });
            holdHours = book.holds?.firstHoldHours ?? 1;
            drawPrices(prices, book);
            drawBudgets(budgetsTable, budgets, holdHours);
        } catch (err) {
            if (!ctl.signal.aborted) fill(prices, errorBox(err));
        }
    })();
    return () => { ctl.abort(); w.stop(); };
}
