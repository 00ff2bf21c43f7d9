// The texts of the hooks `land hooks` writes. Pure: every value is embedded at install time,
// single-quoted for a POSIX shell, so a target name or a path can never become shell syntax.
// The scripts use POSIX sh only (no bash-isms).
import { LEASE_LINE_ERE, remoteRefs } from '../store/remoteLayout.js';

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
 * The token check both protecting hooks share (POSIX sh). The token file holds one line,
 * `<sha256 of the token> <pid> <start time>`: the landing token itself is never on disk. A token
 * is accepted when its sha256 equals the recorded one and the process that made it still runs
 * (the same process: /proc/<pid>/stat field 22, its start time, must match, so a reused pid does
 * not count; where /proc is missing the start time is recorded as '-' and only `kill -0` is
 * asked). The token reaches sha256sum on stdin (printf is a shell builtin), never in an argv.
 */
function tokenCheckFunctions(): string {
  return `sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then printf '%s' "$1" | sha256sum | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then printf '%s' "$1" | shasum -a 256 | cut -d' ' -f1
  elif command -v openssl >/dev/null 2>&1; then printf '%s' "$1" | openssl dgst -sha256 | sed 's/^.*= *//'
  else return 2
  fi
}
process_start() {
  stat_line=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  # Fields after the command name (which may hold spaces) start at field 3; field 22 is the 20th.
  set -- \${stat_line##*) }
  shift 19 2>/dev/null || return 1
  printf '%s' "$1"
}
# token_ok <token>: 0 accepted, 1 refused, 2 no sha256 tool to check it with.
token_ok() {
  given=$1
  [ -n "$given" ] && [ -f "$token_file" ] || return 1
  want_hash= want_pid= want_start=
  read -r want_hash want_pid want_start _rest < "$token_file" 2>/dev/null
  [ -n "$want_hash" ] && [ -n "$want_pid" ] && [ -n "$want_start" ] || return 1
  case "$want_pid" in *[!0-9]*) return 1 ;; esac
  kill -0 "$want_pid" 2>/dev/null || return 1
  if [ "$want_start" != - ]; then
    [ "$(process_start "$want_pid")" = "$want_start" ] || return 1
  fi
  given_hash=$(sha256_of "$given") || return 2
  [ -n "$given_hash" ] && [ "$given_hash" = "$want_hash" ]
}
no_hasher=${shQuote('land: cannot check the landing token: none of sha256sum, shasum or openssl is installed')}`;
}

/**
 * reference-transaction: in state "prepared", refuses a transaction that moves refs/heads/<target>
 * unless $LAND_TOKEN is the landing token of a drainer that still runs (see tokenCheckFunctions).
 * What moves nothing is allowed: an update to the ref's current value, and pack-refs (git gc)
 * pruning the loose file of a ref it just packed (recognised by its parent process and the
 * packed-refs line). A hook guards against mistakes: `git -c core.hooksPath=...` skips it, and
 * anyone who can write .git can delete it; a server's pre-receive hook is the real guard.
 */
export function referenceTransactionScript(opts: { target: string; tokenFile: string }): string {
  return `#!/bin/sh
${HOOK_MARKER}
# Written by \`land hooks install\`; \`land hooks uninstall\` removes it.
# Only a running drainer's landing token (LAND_TOKEN, made for one landing; the token file holds
# its sha256 and the drainer's pid) may update the target branch. Everyone else: \`land submit\`.
target_ref=${shQuote(`refs/heads/${opts.target}`)}
token_file=${shQuote(opts.tokenFile)}
message=${shQuote(refusalMessage(opts.target))}

[ "$1" = prepared ] || exit 0

${tokenCheckFunctions()}

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

authorized=no
if [ -n "$LAND_TOKEN" ]; then
  token_ok "$LAND_TOKEN"
  case $? in
    0) authorized=yes ;;
    2) message="$no_hasher; refusing update of $target_ref" ;;
  esac
fi

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
 * drainer's own push (a LAND_TOKEN the token file vouches for) is not proven again.
 */
export function prePushScript(opts: { node: string; landEntry: string; tokenFile: string }): string {
  return `#!/bin/sh
${HOOK_MARKER}
# Written by \`land hooks install --pre-push\`; \`land hooks uninstall\` removes it.
# Runs the gates on HEAD merged onto the target tip and records a local proof; a failing
# proof fails the push (skip once with \`git push --no-verify\`).
token_file=${shQuote(opts.tokenFile)}

${tokenCheckFunctions()}

[ -n "$LAND_TOKEN" ] && token_ok "$LAND_TOKEN" && exit 0
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
 * receive.advertisePushOptions=true), and is checked the same way: its sha256 against the token
 * file's, whose drainer must still run on this machine.
 */
export function preReceiveScript(opts: { target: string; tokenFile: string }): string {
  return `#!/bin/sh
${HOOK_MARKER}
# pre-receive equivalent of land's reference-transaction hook, for a server repository.
# Refuses a push that updates refs/heads/<target> unless it carries the landing token of a
# drainer running on this machine (the token file holds its sha256 and the drainer's pid).
target_ref=${shQuote(`refs/heads/${opts.target}`)}
token_file=${shQuote(opts.tokenFile)}
message=${shQuote(refusalMessage(opts.target))}

${tokenCheckFunctions()}

given=$LAND_TOKEN
i=0
while [ "$i" -lt "\${GIT_PUSH_OPTION_COUNT:-0}" ]; do
  eval "option=\\\${GIT_PUSH_OPTION_$i}"
  case "$option" in
    land-token=*) given=\${option#land-token=} ;;
  esac
  i=$((i + 1))
done

authorized=no
if [ -n "$given" ]; then
  token_ok "$given"
  case $? in
    0) authorized=yes ;;
    2) message="$no_hasher; refusing update of $target_ref" ;;
  esac
fi

refuse=no
while read -r old new ref; do
  [ "$ref" = "$target_ref" ] || continue
  [ "$authorized" = yes ] && continue
  refuse=yes
done

if [ "$refuse" = yes ]; then
  printf '%s\\n' "$message" >&2
  exit 1
fi
exit 0
`;
}

export function queueRefusalMessage(target: string): string {
  return `land: refs/heads/${target} moves only in a landing push by the lease holder`;
}

/**
 * The lease checks of the remote-queue pre-receive hook (POSIX sh). lease.json is read only when
 * it is byte for byte the one form land writes (lib/store/remoteLayout.ts): one line matching
 * LEASE_LINE_ERE (`grep -Ex`, in the C locale), then one newline, nothing else (its size is checked
 * against the line's, so a second line, a NUL or a missing newline is refused). Land's reader
 * refuses exactly the same blobs, so the two never read different holders out of one lease. The
 * holder and `released` are then cut out of the matched line by position.
 */
function leaseCheckFunctions(): string {
  return `is_oid() {
  case "$1" in
    *[!0-9a-f]*|'') return 1 ;;
    *[!0]*) return 0 ;;
    *) return 1 ;;
  esac
}
nl='
'
# lease_read <commit>: sets lease_holder and lease_released from lease.json at that commit; fails
# when it is anything but a lease as land writes it.
lease_read() {
  size=$(git cat-file -s "$1:lease.json" 2>/dev/null) || return 1
  blob=$(git cat-file blob "$1:lease.json" 2>/dev/null) || return 1
  case "$blob" in *"$nl"*) return 1 ;; esac
  [ "$size" = "$((\${#blob} + 1))" ] || return 1
  printf '%s\\n' "$blob" | grep -Eqx "$lease_line" || return 1
  lease_holder=\${blob#*'"holder":"'}
  lease_holder=\${lease_holder%%'"'*}
  case "$blob" in
    *'"released":true}') lease_released=true ;;
    *) lease_released=false ;;
  esac
}
refuse() {
  printf '%s (%s)\\n' "$message" "$1" >&2
  exit 1
}`;
}

export function leaseRefusalMessage(): string {
  return `land: ${remoteRefs('').lease} holds only lease.json exactly as land writes it`;
}

/**
 * pre-receive for the server repository of a queue kept in a remote (docs/protect.md, "A remote
 * queue"): a push that updates refs/heads/<target> is accepted only when the same push moves
 * refs/land/lease from an existing commit O to a commit N whose first parent is O, lease.json at O
 * and at N naming the same holder, neither released. That is the shape of a drainer's landing
 * (target, lease renewal and records in one atomic push). Any push that moves refs/land/lease to a
 * commit must carry lease.json exactly as land writes it. Other pushes are not restricted.
 */
export function queuePreReceiveScript(opts: { target: string }): string {
  return `#!/bin/sh
${HOOK_MARKER}
# Written by \`land hooks pre-receive --queue\`, for the server repository of a remote queue.
# The target moves only in a landing push: the same push renews refs/land/lease (a child of its
# old value, the same holder, not released). A lease pushed is exactly as land writes it
# (land reads nothing else either). Other pushes that leave the target alone pass.
LC_ALL=C
export LC_ALL
target_ref=${shQuote(`refs/heads/${opts.target}`)}
lease_ref=${shQuote(remoteRefs('').lease)}
lease_line=${shQuote(LEASE_LINE_ERE)}
message=${shQuote(leaseRefusalMessage())}

${leaseCheckFunctions()}

target_new= lease_old= lease_new=
while read -r old new ref; do
  if [ "$ref" = "$target_ref" ]; then
    target_new=$new
  elif [ "$ref" = "$lease_ref" ]; then
    lease_old=$old
    lease_new=$new
  fi
done
if is_oid "$lease_new"; then
  lease_read "$lease_new" || refuse "lease.json at $lease_new is not a lease as land writes it"
fi
[ -n "$target_new" ] || exit 0

message=${shQuote(queueRefusalMessage(opts.target))}
is_oid "$target_new" || refuse "a landing never deletes the target"
[ -n "$lease_new" ] || refuse "the push does not move $lease_ref"
is_oid "$lease_old" || refuse "$lease_ref does not exist yet: a drainer takes the lease in a push of its own"
is_oid "$lease_new" || refuse "the push deletes $lease_ref"
[ "$(git cat-file -t "$lease_new" 2>/dev/null)" = commit ] || refuse "the new $lease_ref is not a commit"
parent=$(git rev-parse -q --verify "$lease_new^1" 2>/dev/null) || parent=
[ "$parent" = "$lease_old" ] || refuse "the new lease commit's first parent is not the old value of $lease_ref"
lease_read "$lease_old" || refuse "lease.json at $lease_old is not a lease as land writes it"
old_holder=$lease_holder old_released=$lease_released
lease_read "$lease_new" || refuse "lease.json at $lease_new is not a lease as land writes it"
[ "$old_holder" = "$lease_holder" ] || refuse "the lease changes holder in this push, $old_holder to $lease_holder"
[ "$old_released" = false ] || refuse "the lease was released"
[ "$lease_released" = false ] || refuse "the push releases the lease"
exit 0
`;
}
