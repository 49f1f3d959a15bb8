/**
 * The UsageStore as Workers reach it: by name through the generated `Env` (like catalog/stubs.ts),
 * one object for the whole gateway, typed by the class's own methods.
 */

type ClassOf<N> = N extends DurableObjectNamespace<infer T> ? T : never;

/** The store's RPC surface. */
export type UsageApi = Pick<ClassOf<Env['USAGE_STORE']>, 'add' | 'usage' | 'report' | 'daily' | 'errors'>;

/** The one usage store (tests reach its storage through the same name). */
export const usageObject = (env: Env) => env.USAGE_STORE.getByName('usage');

export function usageStore(env: Env): UsageApi {
  return usageObject(env);
}
