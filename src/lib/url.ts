/** `scheme://host[:port]` of an absolute URL, without parsing it (hot path). */
export function originOf(url: string): string {
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  return slash < 0 ? url : url.slice(0, slash);
}
