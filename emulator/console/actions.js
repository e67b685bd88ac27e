// actions.js: what a user may do to an object, through the public API with the CLI's
// rules (not built yet): actionBar(kind, obj, shell) returns an element of buttons for
// the object page (view-object.js places it).
import { h } from './dom.js';

export function actionBar() {
    return h('div.actions');
}
