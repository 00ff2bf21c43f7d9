export { runGit, git, GitError } from './run.js';
export type { GitResult, GitOptions } from './run.js';
export { commonDir, topLevel, currentBranch, configGet, configSet, remoteDefaultBranch, userIdentity } from './repo.js';
export { revParse, revParseOrThrow, treeOf, branchRef, branchTip, refTip } from './revParse.js';
export { isAncestor, isKnownAncestor } from './isAncestor.js';
export { readCommitFile } from './catFile.js';
export { openCatFileSession, type CatFileSession } from './catFileSession.js';
export type { CommitFile } from './catFile.js';
export { ancestryOf, reachableFrom } from './reachable.js';
export type { Ancestry } from './reachable.js';
export { landMergesSince } from './landMerges.js';
export type { LandMerge } from './landMerges.js';
export { mergeTree } from './mergeTree.js';
export type { MergeTreeResult } from './mergeTree.js';
export { commitTree } from './commitTree.js';
export { updateRefCas } from './updateRefCas.js';
export type { CasResult } from './updateRefCas.js';
export { showFile } from './showFile.js';
export { isPlainBranchName, isValidBranchName } from './refFormat.js';
export { changedPaths } from './diffNames.js';
export {
  addDetachedWorktree,
  removeWorktree,
  discardWorktree,
  withDetachedWorktree,
  listWorktrees,
  worktreeOfBranch,
  isWorktreeClean,
  syncWorktreeTo,
} from './worktree.js';
export type { WorktreeInfo, WorktreeRun, WorktreeCleanup } from './worktree.js';
export { remoteBranchTip, pushWithLease } from './push.js';
export type { PushResult } from './push.js';
export { pushCommit } from './pushCommit.js';
export type { CommitPush } from './pushCommit.js';
export { firstParentChain } from './log.js';
export { checkoutIsAt } from './checkoutAt.js';
export { stageAll, writeTreeOfIndex } from './stage.js';
export { moveDetachedHead } from './head.js';
export { pinWorktree, pinnedAt } from './pinnedWorktree.js';
export { clearWorktree, checkoutDetached, restoreDotGit } from './moveWorktree.js';
export type { PinnedWorktree } from './pinnedWorktree.js';
export { hooksDir } from './hooksDir.js';
export { gitFolders, gitFolderHolding, landingPath, assertOutsideGitFolder } from './gitFolder.js';
export { restoredTree, checkoutTreeInWorktree } from './restorePaths.js';
export type { RestoredTree } from './restorePaths.js';
export { readBlobs, objectInfo, readCommitMessages, type ObjectInfo } from './catFile.js';
export { objectTypes, parseBatchCheck } from './objectTypes.js';
export type { ObjectAnswer } from './objectTypes.js';
export {
  writeCommits,
  listRefs,
  fetchRefs,
  pushAtomic,
  chainMessages,
  chainCommits,
  setLocalRef,
  RemoteUnreachable,
  LocalRefsBusy,
  isLocalRefRace,
} from './queueRefs.js';
export { alternateObjectDirs } from './alternates.js';
export type { NewCommit, FileEntry, RefUpdate, AtomicPush, RefObject } from './queueRefs.js';
export { gateConfigText, keptConfigText } from './gateConfig.js';
export { checkoutTop } from './checkoutTop.js';
