"""hpsearch_optuna.py — the peer of hpsearch_tuners.c: Optuna's samplers on
the same functions, for tests/bench/hpsearch.sh (Debian's python3-optuna).

    hpsearch_optuna.py quality FUNCTION SAMPLER TRIALS SEEDS
        SAMPLER tpe (TPESampler with its defaults) or random; prints
        {"best": [per seed], "median": m}
    hpsearch_optuna.py speed FUNCTION SAMPLER HISTORY REPS
        a study holding HISTORY random trials with their values; times REPS
        suggestions (ask and one suggest_float per parameter; the trial is
        then told FAIL, which TPE leaves out, so the history stays the
        same); prints {"ms": mean}
"""
import json
import math
import random
import statistics
import sys
import time

import optuna

optuna.logging.set_verbosity(optuna.logging.WARNING)

A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14], [3, 3.5, 1.7, 10, 17, 8],
     [17, 8, 0.05, 10, 0.1, 14]]
P = [[0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886],
     [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
     [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650],
     [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381]]
ALPHA = [1.0, 1.2, 3.0, 3.2]


def branin(x):
    b, c, t = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    u = x[1] - b * x[0] ** 2 + c * x[0] - 6
    return u * u + 10 * (1 - t) * math.cos(x[0]) + 10


def hartmann6(x):
    return -sum(ALPHA[i] * math.exp(-sum(A[i][j] * (x[j] - P[i][j]) ** 2 for j in range(6)))
                for i in range(4))


SPACES = {"branin": [("x1", -5, 10), ("x2", 0, 15)],
          "hartmann6": [(f"x{i}", 0, 1) for i in range(1, 7)]}
FUNCS = {"branin": branin, "hartmann6": hartmann6}


def sampler(name, seed):
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    return optuna.samplers.RandomSampler(seed=seed)


def quality(fn, name, trials, seeds):
    space, f = SPACES[fn], FUNCS[fn]
    best = []
    for seed in range(seeds):
        study = optuna.create_study(sampler=sampler(name, seed))
        study.optimize(lambda t: f([t.suggest_float(n, lo, hi) for n, lo, hi in space]),
                       n_trials=trials)
        best.append(study.best_value)
    print(json.dumps({"best": [round(b, 6) for b in best], "median": statistics.median(best)}))


def speed(fn, name, history, reps):
    space, f = SPACES[fn], FUNCS[fn]
    rnd = random.Random(12345)
    study = optuna.create_study(sampler=sampler(name, 7))
    dists = {n: optuna.distributions.FloatDistribution(lo, hi) for n, lo, hi in space}
    trials = []
    for _ in range(history):
        params = {n: rnd.uniform(lo, hi) for n, lo, hi in space}
        trials.append(optuna.trial.create_trial(params=params, distributions=dists,
                                                value=f([params[n] for n, _, _ in space])))
    study.add_trials(trials)
    t0 = time.perf_counter()
    for _ in range(reps):
        t = study.ask()
        for n, lo, hi in space:
            t.suggest_float(n, lo, hi)
        study.tell(t, state=optuna.trial.TrialState.FAIL)
    print(json.dumps({"ms": (time.perf_counter() - t0) * 1000 / reps}))


def main():
    mode, fn, name, n, m = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    (quality if mode == "quality" else speed)(fn, name, n, m)


if __name__ == "__main__":
    main()
