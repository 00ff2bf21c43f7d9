// lease.json blobs for the tests of its one form (security issue, item 10): the bytes land writes,
// and bytes that are not that form, each of which some reader could read differently (a JSON
// parser takes the last of two keys and decodes \u escapes; a line-based reader takes the first
// literal match). The server's hook and land's reader must both refuse every one of them.

export const HOLDER = 'ab12cd34ef567890';
export const OTHER = '0987fe65dc43ba21';

export interface LeaseFields {
  holder: string;
  epoch?: number;
  released?: boolean;
}

/** lease.json exactly as land writes it. */
export function canonicalLease(lease: LeaseFields): string {
  return `{"version":1,"holder":"${lease.holder}","host":"host-1","pid":4242,"epoch":${lease.epoch ?? 1},"ttlSeconds":60,"released":${lease.released ?? false}}\n`;
}

/** The attack: land's old reader (JSON.parse) reads OTHER as the holder, the hook's old sed HOLDER. */
export function duplicateKeyLease(): string {
  return canonicalLease({ holder: HOLDER }).replace(/}\n$/, `,"hold\\u0065r":"${OTHER}"}\n`);
}

/** Non-canonical lease.json blobs of a lease held by HOLDER, each named for the tests' titles. */
export function nonCanonicalLeases(): { name: string; text: string }[] {
  const line = canonicalLease({ holder: HOLDER }).trimEnd();
  const fields = JSON.parse(line) as Record<string, unknown>;
  return [
    { name: 'a duplicate key written with a \\u escape', text: duplicateKeyLease() },
    { name: 'a duplicate key', text: `${line.replace(/}$/, `,"holder":"${OTHER}"}`)}\n` },
    { name: 'a \\u escape in a value', text: `${line.replace(`"${HOLDER}"`, `"\\u0061${HOLDER.slice(1)}"`)}\n` },
    { name: 'an extra field', text: `${line.replace(/}$/, ',"note":"x"}')}\n` },
    { name: 'another key order', text: `${JSON.stringify({ holder: HOLDER, ...fields })}\n` },
    { name: 'spaces', text: `${line.replaceAll(',"', ', "')}\n` },
    { name: 'pretty-printed', text: `${JSON.stringify(fields, null, 2)}\n` },
    { name: 'no final newline', text: line },
    { name: 'a second line', text: `${line}\n{"holder":"${OTHER}"}\n` },
    { name: 'two final newlines', text: `${line}\n\n` },
    { name: 'a carriage return', text: `${line}\r\n` },
    { name: 'a number written as 1.0', text: `${line.replace('"epoch":1', '"epoch":1.0')}\n` },
  ];
}
