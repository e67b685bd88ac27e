// terminal.js: an object's terminal (a Sandbox's, or any kind with the exec subresource):
// `sh` in the object over exec's WebSocket, Kubernetes' channel protocol
// (v5.channel.k8s.io: each message's first byte is its channel; 0 stdin, 1 stdout,
// 2 stderr, 3 the command's end as a Status, 4 the terminal's size, 255 close).
//
// A browser's WebSocket cannot carry Authorization: when this tab has a token, it is
// offered as the subprotocol base64url.bearer.authorization.k8s.io.<base64url(token)>,
// which the emulator reads as kube-apiserver does and never chooses.
//
// Not xterm.js: its DOM renderer writes <style> elements, which the console's CSP
// (style-src 'self') refuses (docs/console.md, "Libraries"). This one is small: the
// output in a <pre> with the few control sequences a shell uses interpreted (CR, LF,
// backspace, tab, erase in line, clear) and every other escape sequence dropped; an input
// line sent on Enter (the terminal echoes it), Ctrl-C and Ctrl-D, a history on the arrows.
//
//   mountTerminal(slot, kind, obj)   kind: kinds.js's; obj: the object. Returns the
//                                    cleanup (closes the session).
import * as api from './api.js';
import { h, fill, errorBox } from './dom.js';

const PROTOCOL = 'v5.channel.k8s.io';
const BEARER = 'base64url.bearer.authorization.k8s.io.';
const STDIN = 0, STDOUT = 1, STDERR = 2, STATUS = 3, RESIZE = 4;
const MAX_LINES = 2000, MAX_HISTORY = 100;

// The subprotocol that carries token (UTF-8, base64url, no padding).
export function bearerProtocol(token) {
    let bin = '';
    for (const b of new TextEncoder().encode(token)) bin += String.fromCharCode(b);
    return BEARER + btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

// The exit status a channel-3 Status tells: 0 for Success, the ExitCode cause's number,
// or null (a failure with no code: its message says why).
export function exitCode(status) {
    if (status?.status === 'Success') return 0;
    const cause = (status?.details?.causes || []).find((c) => c.reason === 'ExitCode');
    return cause ? Number(cause.message) : null;
}

// The screen: lines of text and a cursor; write() takes the terminal's output.
export class Screen {
    constructor() { this.lines = ['']; this.row = 0; this.col = 0; this.esc = ''; }

    put(text) {
        let line = this.lines[this.row];
        if (line.length < this.col) line = line.padEnd(this.col);
        this.lines[this.row] = line.slice(0, this.col) + text + line.slice(this.col + text.length);
        this.col += text.length;
    }

    newline() {
        this.row++;
        if (this.row === this.lines.length) this.lines.push('');
        if (this.lines.length > MAX_LINES) {
            const drop = this.lines.length - MAX_LINES;
            this.lines.splice(0, drop);
            this.row -= drop;
        }
        this.col = 0;
    }

    // CSI params final: erase in line (K), clear (J 2 or 3), cursor right, left and column
    // (C D G); everything else (colours, cursor moves up and down) is dropped.
    csi(params, final) {
        const n = parseInt(params, 10) || 0;
        const line = this.lines[this.row];
        if (final === 'K') {
            if (n === 0) this.lines[this.row] = line.slice(0, this.col);
            else if (n === 1) this.lines[this.row] = ' '.repeat(Math.min(this.col, line.length)) + line.slice(this.col);
            else this.lines[this.row] = '';
        } else if (final === 'J' && n >= 2) {
            this.lines = [''];
            this.row = 0;
            this.col = 0;
        } else if (final === 'C') this.col += Math.max(n, 1);
        else if (final === 'D') this.col = Math.max(0, this.col - Math.max(n, 1));
        else if (final === 'G') this.col = Math.max(0, (n || 1) - 1);
    }

    // One escape sequence's character; this.esc holds what came before it.
    escape(c) {
        const s = this.esc + c;
        if (s === '\x1b[' || s === '\x1b]' || s === '\x1b(' || s === '\x1b)') { this.esc = s; return; }
        if (s.startsWith('\x1b[')) {
            if (c >= '@' && c <= '~') { this.esc = ''; this.csi(s.slice(2, -1), c); }
            else this.esc = s.length > 64 ? '' : s;
            return;
        }
        if (s.startsWith('\x1b]')) { // a title: ends at BEL or ESC \
            if (c === '\x07' || s.endsWith('\x1b\\')) this.esc = '';
            else this.esc = s.length > 512 ? '' : s;
            return;
        }
        this.esc = ''; // ESC c, ESC ( B, ...
    }

    write(text) {
        let run = '';
        const flush = () => { if (run) { this.put(run); run = ''; } };
        for (const c of text) {
            if (this.esc) { this.escape(c); continue; }
            if (c >= ' ' && c !== '\x7f') { run += c; continue; }
            flush();
            if (c === '\n') this.newline();
            else if (c === '\r') this.col = 0;
            else if (c === '\b') this.col = Math.max(0, this.col - 1);
            else if (c === '\t') this.col = (Math.floor(this.col / 8) + 1) * 8;
            else if (c === '\x1b') this.esc = c;
            // BEL and the other controls show nothing
        }
        flush();
    }

    text() { return this.lines.join('\n'); }
}

// The command: an interactive sh without job control (+m): under the emulator's
// isolation its process group is not the terminal's first one, and a shell with job
// control ends every session failing to give the terminal back.
const COMMAND = ['sh', '+m'];

function execPath(kind, obj) {
    const meta = obj.metadata || {};
    const q = new URLSearchParams();
    for (const arg of COMMAND) q.append('command', arg);
    for (const k of ['stdin', 'stdout', 'tty']) q.set(k, 'true');
    return `${api.item(kind, meta.namespace, meta.name)}/exec?${q}`;
}

// The width of one character of el's font, in pixels.
function charSize(el) {
    const probe = h('span.term-probe', 'x'.repeat(20));
    el.append(probe);
    const r = probe.getBoundingClientRect();
    probe.remove();
    return { w: r.width / 20 || 8, h: r.height || 16 };
}

export function mountTerminal(slot, kind, obj) {
    const name = obj?.metadata?.name || '';
    const screen = new Screen();
    const out = h('pre.term-screen', { tabindex: '0', role: 'log', 'aria-label': `Terminal of ${kind.kind} ${name}` });
    const status = h('p.term-status', { role: 'status' });
    const input = h('input.term-input', { type: 'text', autocomplete: 'off', spellcheck: 'false',
        autocapitalize: 'off', 'aria-label': 'Command line (Enter sends it)', disabled: true });
    const form = h('form.term-line', h('span.term-prompt', { 'aria-hidden': 'true' }, '›'), input,
        h('button', { type: 'submit', disabled: true }, 'Send'));
    const ctrlC = h('button', { type: 'button', title: 'Interrupt (Ctrl-C)', disabled: true }, 'Ctrl-C');
    const ctrlD = h('button', { type: 'button', title: 'End of input (Ctrl-D)', disabled: true }, 'Ctrl-D');
    const reconnect = h('button.primary', { type: 'button', hidden: true }, 'Reconnect');
    const problem = h('div.term-problem');
    fill(slot, h('div.terminal', out, form, h('div.actions', ctrlC, ctrlD, reconnect), status, problem));

    const history = [];
    let back = 0, draft = '';
    let ws = null, closed = false, ended = false, opened = false, size = '';
    const decoders = {};

    const render = () => {
        const atEnd = out.scrollTop + out.clientHeight >= out.scrollHeight - 4;
        out.textContent = screen.text();
        if (atEnd) out.scrollTop = out.scrollHeight;
    };
    const say = (text) => { status.textContent = text; };
    const live = (on) => {
        for (const el of [input, form.querySelector('button'), ctrlC, ctrlD]) el.disabled = !on;
        reconnect.hidden = on;
    };
    const send = (channel, bytes) => {
        if (!ws || ws.readyState !== WebSocket.OPEN) return;
        const msg = new Uint8Array(bytes.length + 1);
        msg[0] = channel;
        msg.set(bytes, 1);
        ws.send(msg);
    };
    const sendText = (text) => send(STDIN, new TextEncoder().encode(text));
    const resize = () => {
        const c = charSize(out);
        const cols = Math.max(20, Math.floor((out.clientWidth - 16) / c.w));
        const rows = Math.max(5, Math.floor((out.clientHeight - 16) / c.h));
        const now = JSON.stringify({ Width: cols, Height: rows });
        if (now !== size) { size = now; send(RESIZE, new TextEncoder().encode(now)); }
    };
    const observer = new ResizeObserver(() => { if (opened) resize(); });
    observer.observe(out);

    // Why a connection failed before it opened: a browser does not tell, so ask the API.
    const explain = async () => {
        try {
            await api.call(execPath(kind, obj)); // without an upgrade: refused if authz refuses
        } catch (err) {
            if (err.code !== 400) { fill(problem, errorBox(err)); return; }
        }
        try {
            const now = await api.get(api.item(kind, obj.metadata.namespace, name));
            const phase = now?.status?.phase || 'Pending';
            say(phase === 'Running' ? 'The connection was refused.'
                : `${kind.kind} ${name} is ${phase}: its terminal opens when it is Running.`);
        } catch (err) {
            fill(problem, errorBox(err));
        }
    };

    const connect = () => {
        if (closed) return;
        fill(problem);
        ended = false;
        opened = false;
        size = '';
        for (const ch of [STDOUT, STDERR]) decoders[ch] = new TextDecoder();
        const protocols = [PROTOCOL];
        if (api.token()) protocols.push(bearerProtocol(api.token()));
        const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
        say(`Connecting to ${kind.kind} ${name}…`);
        const sock = new WebSocket(`${scheme}//${location.host}${execPath(kind, obj)}`, protocols);
        ws = sock;
        sock.binaryType = 'arraybuffer';
        sock.onopen = () => {
            opened = true;
            say(`Connected: sh in ${kind.kind} ${name}.`);
            live(true);
            resize();
            input.focus();
        };
        sock.onmessage = (ev) => {
            const data = new Uint8Array(ev.data);
            if (!data.length) return;
            const ch = data[0], body = data.subarray(1);
            if (ch === STDOUT || ch === STDERR) {
                screen.write(decoders[ch].decode(body, { stream: true }));
                render();
            } else if (ch === STATUS) {
                let st = null;
                try { st = JSON.parse(new TextDecoder().decode(body)); } catch { /* not JSON */ }
                const code = exitCode(st);
                ended = true;
                say(code === null ? `The session ended: ${st?.message || 'no status'}.`
                    : `The command exited with status ${code}.`);
            }
        };
        sock.onclose = (ev) => {
            if (closed || ws !== sock) return;
            ws = null;
            live(false);
            if (!opened) { say('Could not connect.'); explain(); }
            else if (!ended) say(`The connection closed (${ev.code}${ev.reason ? `: ${ev.reason}` : ''}).`);
        };
    };

    form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        const line = input.value;
        if (line.trim() && history[history.length - 1] !== line) history.push(line);
        if (history.length > MAX_HISTORY) history.shift();
        back = 0;
        input.value = '';
        sendText(`${line}\r`);
    });
    input.addEventListener('keydown', (ev) => {
        if (ev.ctrlKey && !ev.altKey && !ev.metaKey && (ev.key === 'c' || ev.key === 'd' || ev.key === 'l')) {
            if (ev.key === 'c' && input.selectionStart !== input.selectionEnd) return; // a copy
            ev.preventDefault();
            if (ev.key === 'l') { screen.write('\x1b[2J'); render(); return; }
            if (ev.key === 'd' && input.value) return;
            sendText(ev.key === 'c' ? '\x03' : '\x04');
            input.value = '';
        } else if (ev.key === 'ArrowUp' || ev.key === 'ArrowDown') {
            ev.preventDefault();
            if (back === 0) draft = input.value;
            back = Math.min(history.length, Math.max(0, back + (ev.key === 'ArrowUp' ? 1 : -1)));
            input.value = back ? history[history.length - back] : draft;
        }
    });
    ctrlC.addEventListener('click', () => { sendText('\x03'); input.focus(); });
    ctrlD.addEventListener('click', () => { sendText('\x04'); input.focus(); });
    reconnect.addEventListener('click', () => {
        screen.write('\r\n');
        connect();
    });

    connect();
    return () => {
        closed = true;
        observer.disconnect();
        if (ws) ws.close(1000);
        ws = null;
    };
}
