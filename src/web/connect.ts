/**
 * How each client is pointed at this gateway, from its real `/mcp` URL: VS Code's and Cursor's
 * `mcp/install` deep links, Claude Code's `claude mcp add`, Claude Desktop's JSON (a stdio bridge:
 * its config file takes local servers only; remote ones go in Settings → Connectors) and the MCP
 * Inspector's CLI. Pure string building, shared by the page and its tests.
 */

export const SERVER_NAME = 'promptgate';

/** `vscode:mcp/install?<url-encoded JSON {name, type, url}>` (VS Code's MCP install link). */
export function vscodeLink(url: string): string {
  return `vscode:mcp/install?${encodeURIComponent(JSON.stringify({ name: SERVER_NAME, type: 'http', url }))}`;
}

/** `cursor://anysphere.cursor-deeplink/mcp/install?name=…&config=<base64 of JSON {url}>` (Cursor's install link). */
export function cursorLink(url: string): string {
  const config = btoa(JSON.stringify({ url }));
  return `cursor://anysphere.cursor-deeplink/mcp/install?name=${SERVER_NAME}&config=${encodeURIComponent(config)}`;
}

export const claudeCodeCommand = (url: string) => `claude mcp add --transport http ${SERVER_NAME} ${url}`;

export function claudeDesktopConfig(url: string): string {
  return JSON.stringify(
    { mcpServers: { [SERVER_NAME]: { command: 'npx', args: ['-y', 'mcp-remote', url] } } },
    null,
    2,
  );
}

export const inspectorCommand = (url: string) =>
  `npx @modelcontextprotocol/inspector --cli ${url} --transport http --method prompts/list`;
