// One long-lived `git cat-file --batch` per repository while a drain runs. Between trains a drain
// asks the target's tip, the policy at it, and a member's tree; each was a git process of its own
// (cat-file, rev-parse, rev-parse) per train. cat-file resolves a ref name afresh for each line
// (a ref moved by another process is seen), and finds objects written after it started (loose
// objects by path; a new pack makes git look again), so its answers are those of a new process.
//
// Outside a drain (no session open for that folder) the callers start git per call as before.
// A session that breaks (git died) is closed and the question is answered by a one-shot process.
import { BatchReader, type BatchObject } from './batchReader.js';
import { startGit, type GitConversation } from './run.js';

interface Session {
  talk: GitConversation;
  reader: BatchReader;
  /** The previous conversation's end: one question at a time (slots may ask together). */
  turn: Promise<unknown>;
  holders: number;
  broken: boolean;
}

const SESSIONS = new Map<string, Session>();

/** A held session: `close` lets it go (the process ends when the last holder closes). */
export interface CatFileSession {
  close(): Promise<void>;
}

/** Opens (or joins) the session for `cwd`: its `git cat-file --batch` starts at once. */
export function openCatFileSession(cwd: string): CatFileSession {
  let session = SESSIONS.get(cwd);
  if (!session) {
    const talk = startGit(cwd, ['cat-file', '--batch']);
    talk.done.catch(() => undefined); // a broken session is noticed by its reader
    session = { talk, reader: new BatchReader(talk.stdout), turn: Promise.resolve(), holders: 0, broken: false };
    SESSIONS.set(cwd, session);
  }
  session.holders += 1;
  const held = session;
  let closed = false;
  return {
    async close() {
      if (closed) return;
      closed = true;
      held.holders -= 1;
      if (held.holders > 0) return;
      if (SESSIONS.get(cwd) === held) SESSIONS.delete(cwd);
      held.talk.stdin.end();
      await held.talk.done.catch(() => undefined);
    },
  };
}

/**
 * Asks the open session for `cwd` a conversation: `ask` writes a line and reads its answer as
 * often as it needs (no other question comes between). Undefined when no session is open (or it
 * broke): the caller then asks a process of its own.
 */
export async function askSession<T>(cwd: string, ask: (line: (name: string) => Promise<BatchObject | null>) => Promise<T>): Promise<T | undefined> {
  const session = SESSIONS.get(cwd);
  if (!session || session.broken) return undefined;
  const line = async (name: string): Promise<BatchObject | null> => {
    if (/[\n\r]/.test(name)) throw new Error(`a name with a line break cannot be read: ${JSON.stringify(name)}`);
    session.talk.stdin.write(`${name}\n`);
    return session.reader.next();
  };
  const mine = session.turn.then(async () => {
    if (session.broken) return undefined;
    try {
      return await ask(line);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('a name with a line break')) throw error;
      session.broken = true; // the answers after this one would be out of step
      return undefined;
    }
  });
  session.turn = mine.catch(() => undefined);
  return mine;
}
