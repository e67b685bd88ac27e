// lib.mjs: the pure parts of the MCP bench driver (bench/mcp/driver.mjs), covered by
// bench/mcp/lib.test.mjs: reading a tool result (its text, its ETag, the names it holds),
// the percentiles, and the TSV rows of make bench.

// The bytes of a result's text content (what an agent's context takes in).
export function textBytes(result) {
    let n = 0;
    for (const c of result?.content ?? []) {
        if (c && c.type === 'text' && typeof c.text === 'string') n += Buffer.byteLength(c.text);
    }
    return n;
}

// Every text of a result, joined (for searching it).
export function resultText(result) {
    return (result?.content ?? [])
        .filter((c) => c && c.type === 'text' && typeof c.text === 'string')
        .map((c) => c.text)
        .join('\n');
}

// The ETag a review answered with, for the launch to send back: a key named etag (any
// case) in structuredContent, searched depth first, else an "etag: VALUE" / "ETag=VALUE"
// in the text. null when the answer has none (the apply launched at once).
export function findEtag(result) {
    const seen = new Set();
    const walk = (v) => {
        if (!v || typeof v !== 'object' || seen.has(v)) return null;
        seen.add(v);
        for (const [k, x] of Object.entries(v)) {
            if (/^etag$/i.test(k) && typeof x === 'string' && x !== '') return x;
        }
        for (const x of Object.values(v)) {
            const r = walk(x);
            if (r) return r;
        }
        return null;
    };
    const s = walk(result?.structuredContent);
    if (s) return s;
    const m = /\betag\b["']?\s*[:=]\s*(W\/"[^"\s]+"|"[^"\s]+"|[^\s"',;]+)/i.exec(resultText(result));
    return m ? m[1].replace(/^"(.*)"$/, '$1') : null;
}

// How many distinct names matching re (global) a result holds, in its text or its
// structuredContent: a list answer must show every object asked for.
export function countNames(result, re) {
    const hay = resultText(result) + '\n' + JSON.stringify(result?.structuredContent ?? null);
    return new Set(hay.match(re) ?? []).size;
}

// The q-quantile (0..1) of xs, linearly interpolated between the closest ranks; null
// when xs is empty.
export function quantile(xs, q) {
    if (!xs.length) return null;
    const s = [...xs].sort((a, b) => a - b);
    const pos = (s.length - 1) * q;
    const lo = Math.floor(pos);
    const hi = Math.ceil(pos);
    return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

// The CPU a process used, with its reaped children (nodus mcp's calls run in forked
// children): utime + stime + cutime + cstime of /proc/PID/stat, in clock ticks.
export function statCpuTicks(stat) {
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [11, 12, 13, 14].reduce((n, i) => n + Number(f[i]), 0);
}

// The CPU ticks of process pid and of its live children too (nodus mcp's warm workers
// live from call to call: their ticks reach the server's own only when reaped), read
// with readFile (node:fs's readFileSync).
export function treeCpuTicks(pid, readFile) {
    let n = statCpuTicks(readFile(`/proc/${pid}/stat`, 'utf8'));
    let kids = '';
    try {
        kids = readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
    } catch {
        return n;
    }
    for (const kid of kids.split(' ').filter(Boolean)) {
        try {
            n += statCpuTicks(readFile(`/proc/${kid}/stat`, 'utf8'));
        } catch { /* it ended meanwhile: its ticks are the parent's now */ }
    }
    return n;
}

// One row of bench/run.sh's results.tsv: section, server, N, connections, mode, metric,
// value (tabs and newlines in the value become spaces).
export function row(server, n, task, metric, value) {
    const v = String(value).replace(/[\t\n]+/g, ' ');
    return ['mcp', server, String(n), '-', task, metric, v].join('\t') + '\n';
}

// The rows of one (server, task): latency percentiles and the median bytes of the
// samples {ms, sdkMs, wireBytes, resultBytes, textBytes}; errors counted apart.
export function sampleRows(server, n, task, samples, errors) {
    const med = (k) => quantile(samples.map((x) => x[k]), 0.5);
    const fix = (x, d) => (x === null ? '' : x.toFixed(d));
    let out = row(server, n, task, 'calls', samples.length) + row(server, n, task, 'errors', errors);
    if (!samples.length) return out;
    const ms = samples.map((x) => x.ms);
    out += row(server, n, task, 'p50_ms', fix(quantile(ms, 0.5), 3));
    out += row(server, n, task, 'p90_ms', fix(quantile(ms, 0.9), 3));
    out += row(server, n, task, 'sdk_p50_ms', fix(med('sdkMs'), 3));
    for (const k of ['wireBytes', 'resultBytes', 'textBytes']) {
        const key = k.replace(/Bytes$/, '_bytes');
        out += row(server, n, task, key, fix(med(k), 0));
    }
    return out;
}
