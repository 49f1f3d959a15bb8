/**
 * The stylesheet and the script as immutable, content-addressed assets: each is named by a hash of
 * its text (FNV-1a), so a page names the exact version it was made with and browsers may keep it
 * forever. The names are computed on first use, once per isolate, not when the module loads: an
 * isolate that never serves a page (one that answers only /mcp) should not hash ~11 KB of text as it starts.
 */
import { fnv1a } from '../lib/hash.js';
import { JS } from './script.js';
import { CSS } from './style.js';

export interface Asset {
  readonly name: string;
  readonly body: string;
  readonly type: string;
}

interface Assets {
  readonly css: Asset;
  readonly js: Asset;
  readonly byName: ReadonlyMap<string, Asset>;
}

function asset(body: string, ext: string, type: string): Asset {
  return { name: `${fnv1a(body).toString(36)}.${ext}`, body, type };
}

let assets: Assets | undefined;

/** The two assets, named by their content. */
export function webAssets(): Assets {
  if (assets === undefined) {
    const css = asset(CSS, 'css', 'text/css; charset=utf-8');
    const js = asset(JS, 'js', 'text/javascript; charset=utf-8');
    assets = { css, js, byName: new Map([css, js].map((a) => [a.name, a])) };
  }
  return assets;
}

export const assetNamed = (name: string): Asset | undefined => webAssets().byName.get(name);
