"""xgboost-train: trains and saves a model bundle (see _lib/sk_train.py)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "_lib"))
import sk_train  # noqa: E402


def main(argv=None):
    return sk_train.main(__file__, "xgboost", argv)


if __name__ == "__main__":
    main()
