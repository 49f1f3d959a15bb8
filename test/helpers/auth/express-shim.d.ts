// express ships no types and @types/express is not installed: the protected test server
// (protected-mcp.ts) only wires the SDK's own express middlewares together.
declare module 'express';
