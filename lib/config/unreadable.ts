// Why the policy in force cannot be read, in one line, for a command that goes on without it
// (`land status`, `land window`, `land flaky`): the error's message with its first problem named,
// and its hint. Anything else is rethrown: a bad --target (usage) is still the user's error.
import { isLandError } from '../errors.js';

export function unreadablePolicyReason(error: unknown): string {
  if (!isLandError(error) || error.code === 'usage') throw error;
  const [first, ...more] = error.details;
  const detail = first === undefined ? '' : `: ${first}${more.length ? ` (and ${more.length} more)` : ''}`;
  const hint = error.hint ? `; ${error.hint}` : '';
  return `the policy cannot be read: ${error.message}${detail}${hint}`;
}
