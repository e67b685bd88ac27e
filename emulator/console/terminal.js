// terminal.js: the object page's Terminal tab, an exec session over the emulator's
// WebSocket subprotocol (not built yet). view-object.js calls mountTerminal(slot, kind,
// obj) when the tab opens and the function it returns when the tab or the page closes.
export function mountTerminal(slot) {
    slot.textContent = 'Terminal not built yet';
    return () => {};
}
