// Samples a process group every interval into `samples.jsonl` of the measure dir and keeps the
// peaks. Stopping takes one last sample at once instead of waiting for the next tick.
import { appendFileSync } from 'node:fs';
import { sampleProcessGroup } from '../proc/procTree.js';

export const SAMPLE_INTERVAL_MS = 200;

export interface SamplerResult {
  samples: number;
  /** Highest summed RSS of the group, or null when no sample caught it running (a very short run). */
  peakRssBytes: number | null;
  /** Highest CPU total seen for the group (a floor for the tree's CPU time). */
  maxCpuSeconds: number;
}

export interface Sampler {
  stop(): SamplerResult;
}

export function startSampler(pgid: number, samplesFile: string, intervalMs = SAMPLE_INTERVAL_MS): Sampler {
  const result: SamplerResult = { samples: 0, peakRssBytes: null, maxCpuSeconds: 0 };
  const take = () => {
    const sample = sampleProcessGroup(pgid);
    if (sample === null) return;
    result.samples += 1;
    // Zombies have no resident memory: a reading of 0 says nothing about the peak.
    if (sample.rssBytes > 0) result.peakRssBytes = Math.max(result.peakRssBytes ?? 0, sample.rssBytes);
    result.maxCpuSeconds = Math.max(result.maxCpuSeconds, sample.cpuSeconds);
    try {
      appendFileSync(samplesFile, `${JSON.stringify({ at: new Date().toISOString(), ...sample })}\n`);
    } catch {
      // A sample that cannot be written is lost; the peaks are still kept for the ledger line.
    }
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return { ...result };
    },
  };
}
