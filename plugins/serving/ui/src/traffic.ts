// traffic.ts — the traffic editor's arithmetic, kept apart from the
// components so it is tested on its own (traffic.test.ts).
import type { Service, Share } from './types';

/** Each predictor's share: spec.traffic, else all to the first. */
export function sharesOf(svc: Service): Share[] {
  const preds = svc.spec?.predictors ?? [];
  const given = svc.spec?.traffic;
  return preds.map((p, i) => ({
    predictor: p.name,
    percent: given ? given.find((s) => s.predictor === p.name)?.percent ?? 0 : i === 0 ? 100 : 0,
  }));
}

export const total = (shares: Share[]) => shares.reduce((n, s) => n + (s.percent || 0), 0);

/** Sets one share; with exactly two predictors the other takes the rest,
 *  so a single slider move keeps the sum at 100. */
export function setShare(shares: Share[], predictor: string, percent: number): Share[] {
  const next = shares.map((s) => (s.predictor === predictor ? { ...s, percent } : s));
  if (next.length === 2) {
    const other = next.find((s) => s.predictor !== predictor)!;
    other.percent = 100 - percent;
  }
  return next;
}

/** A message key when the split cannot be sent as it is, else null. */
export function trafficProblem(shares: Share[], mirror?: Share | null): string | null {
  if (total(shares) !== 100) return 'serving.traffic.notHundred';
  if (mirror?.predictor && (shares.find((s) => s.predictor === mirror.predictor)?.percent ?? 0) > 0)
    return 'serving.mirror.self';
  return null;
}
