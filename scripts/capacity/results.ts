/** The shape of capacity-results.json: everything CAPACITY.md is rendered from. */
import type { MachineInfo } from '../bench/machine';
import type { CapacityOptions } from './options';
import type { ShardPass } from './run';

export interface CapacityResults {
  machine: MachineInfo;
  settings: Omit<CapacityOptions, 'argv' | 'renderOnly' | 'order' | 'pieces'> & {
    argv?: undefined;
    renderOnly?: undefined;
    /** Absent in runs from before `--order` (they ran Tiller first). */
    order?: CapacityOptions['order'];
    /** Absent in runs from before `--pieces` (each batch was one window, one loop's after the other's). */
    pieces?: number;
  };
  /** What runs the server (the cluster's own description). */
  cluster: string;
  passes: ShardPass[];
  loadStart: [number, number, number];
  loadEnd: [number, number, number];
  uptimeAtEnd: string;
  totalSeconds: number;
  /** Whole-machine CPU over the run (all processes, from /proc/stat). */
  cpu?: { busyPct: number; idlePct: number; stealPct: number };
}
