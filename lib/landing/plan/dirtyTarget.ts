// What a drainer says when a checkout of the target holds uncommitted changes: it never lands
// under them (the checkout could not follow), whichever worktree the drainer runs from.

/** The one line of a drain stopped by a dirty checkout of `target` at `worktree`; `gated`: found at the landing, after the gates. */
export function dirtyTargetMessage(target: string, worktree: string, gated: boolean): string {
  const when = gated ? 'nothing landed' : 'nothing was gated';
  return (
    `${target} is checked out with uncommitted changes at ${worktree}; ${when}: commit or stash them, ` +
    `or keep them on a branch of their own (git -C ${worktree} switch -c <branch>), then run land again ` +
    `(a drainer needs no checkout of ${target}: git worktree add --detach ../land-drain; docs/drain.md#a-dirty-target-checkout)`
  );
}
