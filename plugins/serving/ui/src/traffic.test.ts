import { describe, expect, it } from 'vitest';
import { setShare, sharesOf, total, trafficProblem } from './traffic';
import type { Service } from './types';

const svc = (traffic?: { predictor: string; percent: number }[]): Service => ({
  apiVersion: 'cube/v1', kind: 'InferenceService', metadata: { name: 's', project: 'p' },
  spec: { predictors: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], traffic },
} as unknown as Service);

describe('traffic', () => {
  it('gives the first predictor everything without spec.traffic', () => {
    expect(sharesOf(svc()).map((s) => s.percent)).toEqual([100, 0, 0]);
    expect(sharesOf(svc([{ predictor: 'b', percent: 100 }])).map((s) => s.percent)).toEqual([0, 100, 0]);
  });
  it('moves the rest to the other of two predictors', () => {
    const two = [{ predictor: 'a', percent: 100 }, { predictor: 'b', percent: 0 }];
    expect(setShare(two, 'b', 10)).toEqual([{ predictor: 'a', percent: 90 }, { predictor: 'b', percent: 10 }]);
  });
  it('leaves three predictors to the user and names a sum that is not 100', () => {
    const three = setShare(sharesOf(svc()), 'b', 20);
    expect(total(three)).toBe(120);
    expect(trafficProblem(three)).toBe('serving.traffic.notHundred');
    expect(trafficProblem(setShare(three, 'a', 80))).toBeNull();
  });
  it('refuses a mirror that has a share', () => {
    const s = [{ predictor: 'a', percent: 90 }, { predictor: 'b', percent: 10 }];
    expect(trafficProblem(s, { predictor: 'b', percent: 50 })).toBe('serving.mirror.self');
    expect(trafficProblem(s, { predictor: 'c', percent: 50 })).toBeNull();
  });
});
