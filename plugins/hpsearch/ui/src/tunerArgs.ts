// tunerArgs.ts — the tuners and assessors the plugin has, with the
// arguments each takes (the form shows a field per argument; empty: the
// default), and the object of the arguments a form set.
export interface ArgSpec {
  name: string;
  kind: 'int' | 'number' | 'bool';
  min?: number;
  max?: number;
  /** the plugin's default, shown as the placeholder */
  def?: number | boolean;
  required?: boolean;
}

const seed: ArgSpec = { name: 'seed', kind: 'int', min: 0 };
const hb: ArgSpec[] = [seed, { name: 'R', kind: 'number', min: 1, def: 81 }, { name: 'eta', kind: 'number', min: 1.01, def: 3 }];

export const TUNERS: Record<string, ArgSpec[]> = {
  tpe: [seed, { name: 'n_startup_trials', kind: 'int', min: 0, def: 10 },
    { name: 'n_ei_candidates', kind: 'int', min: 1, def: 24 },
    { name: 'gamma', kind: 'number', min: 0, max: 1 },
    { name: 'prior_weight', kind: 'number', min: 0, def: 1 },
    { name: 'multivariate', kind: 'bool', def: true },
    { name: 'bandwidth', kind: 'number', min: 0.0001, max: 1, def: 0.03 },
    { name: 'constant_liar', kind: 'bool', def: false }],
  random: [seed],
  grid: [],
  anneal: [seed, { name: 'avg_best_idx', kind: 'number', min: 1, def: 2 },
    { name: 'shrink_coef', kind: 'number', min: 0, def: 0.1 }],
  evolution: [seed, { name: 'population_size', kind: 'int', min: 2, def: 32 },
    { name: 'sample_size', kind: 'int', min: 1 }],
  hyperband: hb,
  bohb: [...hb, { name: 'top_n_percent', kind: 'number', min: 1, max: 99, def: 15 },
    { name: 'num_samples', kind: 'int', min: 1, def: 64 },
    { name: 'random_fraction', kind: 'number', min: 0, max: 1, def: 0.33 },
    { name: 'min_points_in_model', kind: 'int', min: 1 }],
  batch: [],
};

export const ASSESSORS: Record<string, ArgSpec[]> = {
  medianstop: [{ name: 'start_step', kind: 'int', min: 0, def: 0 }],
  curvefitting: [{ name: 'epoch_num', kind: 'int', min: 1, required: true },
    { name: 'start_step', kind: 'int', min: 3, def: 6 },
    { name: 'threshold', kind: 'number', min: 0, max: 1, def: 0.95 },
    { name: 'gap', kind: 'int', min: 1, def: 1 }],
};

/** The arguments set in a form: numbers parsed, empty ones left out. */
export function argsOf(specs: ArgSpec[], values: Record<string, string | boolean | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of specs) {
    const v = values[s.name];
    if (v === undefined || v === '') continue;
    out[s.name] = s.kind === 'bool' ? v === true || v === 'true' : Number(v);
  }
  return out;
}
