/** The shape of bench-results.json: everything BENCHMARKS.md is rendered from. */
import type { MachineInfo } from './machine';
import type { Storage } from './options';
import type { ApprovalResult } from './sections/approval';
import type { DurableResult } from './sections/durable';
import type { FloorResult } from './sections/floor';
import type { HistoryResult } from './sections/history';
import type { PausedPass } from './sections/paused';
import type { PeerResult } from './sections/peer';
import type { QueryResult } from './sections/query';
import type { StartResult } from './sections/start';
import type { StreamsResult } from './sections/streams';
import type { ThroughputLevel } from './sections/throughput';

/** A section's result with the machine load around it. */
export interface Timed<T> {
  result?: T;
  error?: string;
  seconds: number;
  loadStart: [number, number, number];
  loadEnd: [number, number, number];
  /** Whole-machine CPU during the section (all processes, from /proc/stat). */
  cpu?: { busyPct: number; idlePct: number; stealPct: number };
}

export interface StoragePass {
  storage: Storage;
  durable?: Timed<DurableResult>;
  throughput?: Timed<ThroughputLevel[]>;
  approval?: Timed<ApprovalResult[]>;
  query?: Timed<QueryResult>;
  paused?: Timed<PausedPass[]>;
}

export interface BenchResults {
  machine: MachineInfo;
  settings: {
    quick: boolean;
    sections: string[];
    storages: Storage[];
    steps: number;
    turns: number;
    throughputSteps: number;
    concurrency: number[];
    approvals: number;
    evictedApprovals: number;
    peerTurns: number;
    querySteps: number;
    queries: number;
    evictedQueries: number;
    historySteps: number[];
    paused: number;
    smallCache: number;
    warmup: number;
    resultBytes: number;
    streamRuns?: number;
    starts?: number;
  };
  floor?: Timed<FloorResult>;
  passes: StoragePass[];
  history?: Timed<HistoryResult>;
  peer?: Timed<PeerResult>;
  streams?: Timed<StreamsResult>;
  start?: Timed<StartResult>;
  uptimeAtEnd: string;
  totalSeconds: number;
  cpu?: { busyPct: number; idlePct: number; stealPct: number };
}
