// htm bound to Preact: the page's components are tagged templates, so no JSX build step.
import htm from "htm";
import { h } from "preact";

export const html = htm.bind(h);
