/**
 * The stylesheet and the script as immutable, content-addressed assets: each is named by a hash of
 * its text (FNV-1a, computed once per isolate when this module loads), so a page names the exact
 * version it was made with and browsers may keep it forever.
 */
import { fnv1a } from '../lib/hash.js';
import { JS } from './script.js';
import { CSS } from './style.js';

export interface Asset {
  readonly name: string;
  readonly body: string;
  readonly type: string;
}

function asset(body: string, ext: string, type: string): Asset {
  return { name: `${fnv1a(body).toString(36)}.${ext}`, body, type };
}

export const ASSETS = {
  css: asset(CSS, 'css', 'text/css; charset=utf-8'),
  js: asset(JS, 'js', 'text/javascript; charset=utf-8'),
} as const;

const byName = new Map<string, Asset>(Object.values(ASSETS).map((a) => [a.name, a]));

export const assetNamed = (name: string): Asset | undefined => byName.get(name);
