// The texts of the hooks `land hooks` writes. Pure: every value is embedded at install time,
// single-quoted for a POSIX shell, so a target name or a path can never become shell syntax.
// The scripts use POSIX sh only (no bash-isms).

/** The line that identifies a hook land wrote (install overwrites and uninstall removes only these). */
export const HOOK_MARKER = '# land-managed-hook';

/** One word for a POSIX shell: in single quotes, an embedded ' written as '\''. */
export function shQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** True when a hook's text carries land's marker line. */
export function isLandHook(text: string): boolean {
  return text.split('\n').some((line) => line.trim() === HOOK_MARKER);
}

export function refusalMessage(target: string): string {
  return `land: ${target} is protected: use \`land submit\` to land changes (refusing update of refs/heads/${target})`;
}

/**
 * reference-transaction: in state "prepared", refuses a transaction that moves refs/heads/<target>
 * unless $LAND_TOKEN equals the token file the running drainer wrote. What moves nothing is
 * allowed: an update to the ref's current value, and pack-refs (git gc) pruning the loose file of
 * a ref it just packed (recognised by its parent process and the packed-refs line; a hook guards
 * against mistakes, not against someone who can delete it).
 */
export function referenceTransactionScript(opts: { target: string; tokenFile: string }): string {
  return `#!/bin/sh
${HOOK_MARKER}
# Written by \`land hooks install\`; \`land hooks uninstall\` removes it.
# Only a drainer holding the current landing token (LAND_TOKEN, the content of the token file,
# written per drain) may update the target branch. Everyone else: \`land submit\`.
target_ref=${shQuote(`refs/heads/${opts.target}`)}
token_file=${shQuote(opts.tokenFile)}
message=${shQuote(refusalMessage(opts.target))}

[ "$1" = prepared ] || exit 0

token=
if [ -f "$token_file" ]; then
  token=$(cat "$token_file" 2>/dev/null) || token=
fi
authorized=no
if [ -n "$LAND_TOKEN" ] && [ -n "$token" ] && [ "$LAND_TOKEN" = "$token" ]; then
  authorized=yes
fi

is_pack_refs() {
  case "$(ps -o args= -p "$PPID" 2>/dev/null)" in
    *'git pack-refs'*|*git-pack-refs*) return 0 ;;
    *) return 1 ;;
  esac
}
packed_holds() {
  packed="$(git rev-parse --path-format=absolute --git-common-dir 2>/dev/null)/packed-refs"
  [ -f "$packed" ] && grep -qxF "$1 $target_ref" "$packed"
}

refuse=no
while read -r old new ref; do
  [ "$ref" = "$target_ref" ] || continue
  [ "$authorized" = yes ] && continue
  current=$(git rev-parse -q --verify "$target_ref^{object}" 2>/dev/null) || current=
  case "$new" in
    *[!0]*)
      # Leaves the ref where it is (pack-refs writing it into packed-refs).
      [ "$new" = "$current" ] && continue ;;
    *)
      # Deleting a ref that does not exist moves nothing.
      [ -z "$current" ] && continue
      # pack-refs (also run by git gc) removes the loose file of a ref it just packed: the value
      # stays, read from packed-refs.
      if [ "$old" = "$current" ] && is_pack_refs && packed_holds "$current"; then continue; fi ;;
  esac
  refuse=yes
done

if [ "$refuse" = yes ]; then
  printf '%s\\n' "$message" >&2
  exit 1
fi
exit 0
`;
}

/**
 * pre-push: proves HEAD on the target tip (\`land prove\`) and fails the push when it fails. A
 * drainer's own push (LAND_TOKEN set) is not proven again.
 */
export function prePushScript(opts: { node: string; landEntry: string }): string {
  return `#!/bin/sh
${HOOK_MARKER}
# Written by \`land hooks install --pre-push\`; \`land hooks uninstall\` removes it.
# Runs the gates on HEAD merged onto the target tip and records a local proof; a failing
# proof fails the push (skip once with \`git push --no-verify\`).
[ -n "$LAND_TOKEN" ] && exit 0
${shQuote(opts.node)} ${shQuote(opts.landEntry)} prove </dev/null
status=$?
if [ "$status" -ne 0 ]; then
  echo "land: pre-push: land prove failed (exit $status); the push is refused" >&2
  exit 1
fi
exit 0
`;
}

/**
 * pre-receive, for a server repository: the same rule as reference-transaction, for pushes. The
 * token comes from $LAND_TOKEN (a push to a repository on the same machine passes the pusher's
 * environment to receive-pack) or from a push option \`land-token=<token>\` (the server needs
 * receive.advertisePushOptions=true).
 */
export function preReceiveScript(opts: { target: string; tokenFile: string }): string {
  return `#!/bin/sh
${HOOK_MARKER}
# pre-receive equivalent of land's reference-transaction hook, for a server repository.
# Refuses a push that updates refs/heads/<target> unless it carries the current landing token.
target_ref=${shQuote(`refs/heads/${opts.target}`)}
token_file=${shQuote(opts.tokenFile)}
message=${shQuote(refusalMessage(opts.target))}

token=
if [ -f "$token_file" ]; then
  token=$(cat "$token_file" 2>/dev/null) || token=
fi
given=$LAND_TOKEN
i=0
while [ "$i" -lt "\${GIT_PUSH_OPTION_COUNT:-0}" ]; do
  eval "option=\\\${GIT_PUSH_OPTION_$i}"
  case "$option" in
    land-token=*) given=\${option#land-token=} ;;
  esac
  i=$((i + 1))
done

refuse=no
while read -r old new ref; do
  [ "$ref" = "$target_ref" ] || continue
  if [ -n "$given" ] && [ -n "$token" ] && [ "$given" = "$token" ]; then continue; fi
  refuse=yes
done

if [ "$refuse" = yes ]; then
  printf '%s\\n' "$message" >&2
  exit 1
fi
exit 0
`;
}
