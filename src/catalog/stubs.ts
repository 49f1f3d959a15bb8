/**
 * The catalog's Durable Objects as Workers and other objects reach them: by name through the
 * generated `Env`, so no object module imports another's file. Typed by each class's own
 * methods: records and forwarded results carry open-ended JSON the stub types cannot prove
 * serializable (a direct stub call types those results as `never`).
 */

/** The object class a namespace binding of the generated `Env` holds. */
type ClassOf<N> = N extends DurableObjectNamespace<infer T> ? T : never;

/** The writer's RPC surface. */
export type WriterApi = Pick<
  ClassOf<Env['CATALOG']>,
  | 'current'
  | 'currentPage'
  | 'get'
  | 'history'
  | 'publishSet'
  | 'openUpload'
  | 'uploads'
  | 'addToUpload'
  | 'publishUpload'
  | 'dropUpload'
  | 'put'
  | 'remove'
  | 'rollback'
  | 'getSkill'
  | 'skillHistory'
  | 'publishSkills'
  | 'skillFileStored'
  | 'missingSkillFiles'
  | 'removeSkill'
  | 'rollbackSkill'
  | 'upstreams'
  | 'upstreamsReported'
  | 'reconcileUpstreams'
  | 'setUpstreams'
  | 'createKey'
  | 'listKeys'
  | 'revokeKey'
  | 'keyByDigest'
>;

/** The single catalog writer, as the runtime's stub (tests drive its alarm and restarts through it). */
export const writerObject = (env: Env) => env.CATALOG.getByName('catalog');

/** The single catalog writer. */
export function catalogWriter(env: Env): WriterApi {
  return writerObject(env);
}

/** An upstream object's RPC surface. */
export type UpstreamApi = Pick<ClassOf<Env['UPSTREAM']>, 'refresh' | 'forward' | 'cancel' | 'reconcile'>;

/** The object of one upstream, by its configured id. */
export function upstreamStub(env: Env, id: string): UpstreamApi {
  return env.UPSTREAM.getByName(id);
}
