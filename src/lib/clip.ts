/**
 * A caller's text quoted back in an error or a log line, cut to a bound: a 1 MB name must not
 * make a 1 MB error.
 */
export const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);
