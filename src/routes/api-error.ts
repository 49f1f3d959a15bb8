/**
 * Errors of the plain-HTTP APIs (admin, GET listings): a status and a JSON
 * body `{error: {code, message, issues?}}`, rendered by the app's one
 * `onError`. MCP errors are JSON-RPC instead (rpc/errors.ts).
 */
export class ApiError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500 | 503,
    readonly code: string,
    message: string,
    readonly issues?: unknown,
  ) {
    super(message);
  }
}
