export { exitStatusOf, runProcess, startProcess } from './runProcess.js';
export type { Ending, ExitStatus, OutputTo, ProcessResult, ProcessSpec, RunningProcess } from './runProcess.js';
export { reapedChildrenCpuSeconds, runningInProcessGroup, sampleProcessGroup } from './procTree.js';
export type { TreeSample } from './procTree.js';
