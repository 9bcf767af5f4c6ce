"""An NNI trial as NNI's documentation shapes one (written for Cube's
tests, not copied): argparse defaults, the tuner's parameters merged over
them with nni.utils.merge_parameter, an intermediate result per epoch and a
final one, the ids logged, exceptions logged and re-raised. It fits
y = 3x + 2 by gradient descent in pure Python, so it needs nothing but NNI's
trial API: under Cube that is the `nni` module shipped with Cube's SDK;
with NNI installed it runs there unchanged."""
import argparse
import logging
import random

import nni
from nni.utils import merge_parameter

logger = logging.getLogger("linear_regression_trial")


def get_params():
    parser = argparse.ArgumentParser(description="Linear regression trial")
    parser.add_argument("--lr", type=float, default=0.05, help="learning rate")
    parser.add_argument("--epochs", type=int, default=5, help="epochs to train")
    parser.add_argument("--batch_size", type=int, default=16, help="batch size")
    parser.add_argument("--seed", type=int, default=7, help="random seed")
    args, _ = parser.parse_known_args()
    return args


def make_data(n, rng):
    xs = [rng.uniform(-1, 1) for _ in range(n)]
    return [(x, 3 * x + 2 + rng.gauss(0, 0.01)) for x in xs]


def train_epoch(w, b, data, lr, batch_size):
    for i in range(0, len(data), batch_size):
        batch = data[i:i + batch_size]
        gw = sum(2 * (w * x + b - y) * x for x, y in batch) / len(batch)
        gb = sum(2 * (w * x + b - y) for x, y in batch) / len(batch)
        w, b = w - lr * gw, b - lr * gb
    return w, b


def score(w, b, data):
    mse = sum((w * x + b - y) ** 2 for x, y in data) / len(data)
    return 1.0 / (1.0 + mse)            # higher is better, in (0, 1]


def main(args):
    rng = random.Random(args["seed"])
    train, test = make_data(256, rng), make_data(64, rng)
    w = b = 0.0
    for epoch in range(args["epochs"]):
        w, b = train_epoch(w, b, train, args["lr"], args["batch_size"])
        acc = score(w, b, test)
        logger.debug("epoch %d: score %.4f", epoch, acc)
        nni.report_intermediate_result(acc)
    final = score(w, b, test)
    nni.report_final_result({"default": final, "w": w, "b": b})
    logger.info("experiment %s trial %s sequence %s: final %.4f", nni.get_experiment_id(),
                nni.get_trial_id(), nni.get_sequence_id(), final)
    print(f"trial done: w={w:.3f} b={b:.3f} score={final:.4f}", flush=True)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    try:
        tuner_params = nni.get_next_parameter()
        logger.debug(tuner_params)
        params = vars(merge_parameter(get_params(), tuner_params))
        print("parameters", sorted(params.items()), flush=True)
        main(params)
    except Exception as exception:
        logger.exception(exception)
        raise
