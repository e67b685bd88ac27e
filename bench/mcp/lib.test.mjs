// lib.test.mjs: the MCP bench driver's reading of tool results (node --test; bench/mcp.sh
// runs it before it measures).
import assert from 'node:assert/strict';
import test from 'node:test';
import { countNames, findEtag, quantile, row, sampleRows, statCpuTicks, textBytes } from './lib.mjs';

const text = (...ts) => ({ content: ts.map((t) => ({ type: 'text', text: t })) });

test('textBytes counts UTF-8 bytes of every text item, nothing else', () => {
    const r = text('ab', 'é');
    r.content.push({ type: 'image', data: 'xxxx', mimeType: 'image/png' });
    assert.equal(textBytes(r), 4);
    assert.equal(textBytes({}), 0);
});

test('findEtag: structuredContent first, at any depth and case', () => {
    assert.equal(findEtag({ structuredContent: { review: { estimate: {}, ETag: '"e-1"' } } }), '"e-1"');
    assert.equal(findEtag({ ...text('etag: "other"'), structuredContent: { etag: 'W/"e-2"' } }), 'W/"e-2"');
    assert.equal(findEtag({ structuredContent: { etag: '' } }), null);
});

test('findEtag: else the text (etag: VALUE, ETag=VALUE, quoted or not)', () => {
    assert.equal(findEtag(text('estimate: $2.49/h\netag: "abc123"\nlaunch: send it back')), 'abc123');
    assert.equal(findEtag(text('ETag=e-9, then launch')), 'e-9');
    assert.equal(findEtag(text('job.nodus.dev/x created')), null);
    assert.equal(findEtag(undefined), null);
});

test('countNames: distinct names in text and structuredContent', () => {
    const r = { ...text('bench-001 bench-002\nbench-001'), structuredContent: { items: [{ name: 'bench-003' }] } };
    assert.equal(countNames(r, /bench-\d{3}/g), 3);
    assert.equal(countNames(text('none'), /bench-\d{3}/g), 0);
});

test('quantile interpolates between ranks; empty is null', () => {
    assert.equal(quantile([3, 1, 2], 0.5), 2);
    assert.equal(quantile([1, 2, 3, 4], 0.5), 2.5);
    assert.equal(quantile([10, 20], 0.9), 19);
    assert.equal(quantile([], 0.5), null);
});

test('rows: seven tab-separated fields, medians of the samples', () => {
    assert.equal(row('nodus', 100, 'list', 'na', 'n/a:\ttool\nlist'), 'mcp\tnodus\t100\t-\tlist\tna\tn/a: tool list\n');
    const s = [1, 2, 3].map((ms) => ({ ms, sdkMs: ms + 1, wireBytes: 10 * ms, resultBytes: 9 * ms, textBytes: ms }));
    const rows = sampleRows('peer', 100, 'get', s, 1).trim().split('\n').map((l) => l.split('\t'));
    const m = Object.fromEntries(rows.map((f) => [f[5], f[6]]));
    assert.ok(rows.every((f) => f.length === 7));
    assert.deepEqual(m, {
        calls: '3', errors: '1', p50_ms: '2.000', p90_ms: '2.800', sdk_p50_ms: '3.000',
        wire_bytes: '20', result_bytes: '18', text_bytes: '2',
    });
});

test('statCpuTicks adds utime, stime, cutime and cstime (a name with spaces and parens)', () => {
    const stat = '4242 (nodus (mcp) x) S 1 4242 4242 0 -1 4194560 500 0 0 0 7 3 20 11 20 0 1 0 100 1000 200';
    assert.equal(statCpuTicks(stat), 41);
});
