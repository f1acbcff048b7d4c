/**
 * Every secret hark holds (the API key) is registered here, so that log lines and error
 * messages can be scrubbed of it wherever they come from.
 */
const secrets = new Set<string>();

const MIN_SECRET_LENGTH = 6;

export function registerSecret(value: string | undefined): void {
  if (value && value.length >= MIN_SECRET_LENGTH) secrets.add(value);
}

export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join('***');
  }
  return out;
}

export function maskSecret(value: string | undefined): string {
  if (!value) return '(not set)';
  return value.length <= 8 ? '***' : `${value.slice(0, 3)}***${value.slice(-2)}`;
}
