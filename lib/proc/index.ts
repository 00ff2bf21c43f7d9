export { exitStatusOf, runProcess, startProcess } from './runProcess.js';
export type { Ending, ExitStatus, OutputTo, ProcessResult, ProcessSpec, RunningProcess } from './runProcess.js';
export { reapedChildrenCpuSeconds, runningInProcessGroup, sampleProcessGroup } from './procTree.js';
export type { TreeSample } from './procTree.js';
export { findRunProcesses, killRun, markerScope, newRunMarker, RUN_MARKER_VAR, RunContainment, signalRun } from './descendants.js';
export type { Containment, RunSelector } from './descendants.js';
