/** @jsxImportSource hono/jsx */
/**
 * A prompt's messages as prompts/get returned them: text as text, images inline as data: URIs
 * (the CSP allows data: images only), embedded resources with their text, resource links by URI
 * (never as a live link: a URI may use any scheme). Also the fragment the script swaps in.
 */
import type { ContentBlock, Preview } from './types.js';

const IMAGE_TYPE = /^image\/[a-z0-9.+-]{1,60}$/i;
const BASE64 = /^[A-Za-z0-9+/=\s]*$/;

function Resource({ c }: { c: ContentBlock }) {
  const r = c.resource ?? {};
  return (
    <div class="resource" data-uri={r.uri ?? ''}>
      <p class="uri">
        Resource <code>{r.uri}</code>
        {r.mimeType ? ` (${r.mimeType})` : ''}
      </p>
      {r.text !== undefined ? (
        <pre class="text">{r.text}</pre>
      ) : (
        <p>{`Binary content, ${r.blob?.length ?? 0} base64 characters`}</p>
      )}
    </div>
  );
}

function Content({ c }: { c: ContentBlock }) {
  switch (c.type) {
    case 'text':
      return <pre class="text">{c.text ?? ''}</pre>;
    case 'image':
      if (c.mimeType && IMAGE_TYPE.test(c.mimeType) && c.data !== undefined && BASE64.test(c.data))
        return <img class="image" src={`data:${c.mimeType};base64,${c.data}`} alt={`Image (${c.mimeType})`} />;
      return <p class="note">Image of an unsupported type</p>;
    case 'resource':
      return <Resource c={c} />;
    case 'resource_link':
      return (
        <div class="resource link" data-uri={c.uri ?? ''}>
          <p class="uri">
            Link to {c.title ?? c.name ?? 'a resource'}: <code>{c.uri}</code>
            {c.mimeType ? ` (${c.mimeType})` : ''}
          </p>
          {c.description ? <p>{c.description}</p> : null}
        </div>
      );
    default:
      return <p class="note">{`${c.type} content (${c.mimeType ?? 'unknown type'})`}</p>;
  }
}

/** The messages (or the error prompts/get gave), as the #messages element's content. */
export function Messages({ preview }: { preview: Preview | undefined }) {
  if (!preview) return <p class="hint">Fill in the arguments to see the messages.</p>;
  if ('error' in preview)
    return (
      <p class="error" role="alert">
        {preview.error}
      </p>
    );
  return (
    <>
      {preview.messages.map((m) => (
        <div class="message" data-role={m.role}>
          <p class="role">{m.role}</p>
          <Content c={m.content} />
        </div>
      ))}
    </>
  );
}
