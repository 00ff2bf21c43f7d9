// STUB: replaced by helper scale. The queue-scale figure's interface (bench/scale.ts), with a
// placeholder row so the harness and its report can be run and tested before the real module lands.
export interface ScaleRow {
  jobs: number;
  finished: number;
  queued: number;
  statusMs: number;
  submitMs: number;
  submitMsSmall: number;
  perTrainOverheadMs: number;
  perTrainOverheadMsSmall: number;
  buildSeconds: number;
}

// STUB: replaced by helper scale
export function measureScale(_root: string, opts: { jobs: number; queued: number; runs: number; progress: (line: string) => void }): ScaleRow {
  opts.progress('STUB: bench/scale.ts is a placeholder (helper scale replaces it): the scale row is not measured');
  return {
    jobs: opts.jobs,
    finished: opts.jobs - opts.queued,
    queued: opts.queued,
    statusMs: 250,
    submitMs: 300,
    submitMsSmall: 290,
    perTrainOverheadMs: 40,
    perTrainOverheadMsSmall: 38,
    buildSeconds: 1,
  };
}
