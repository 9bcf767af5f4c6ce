"""data-split: a training and a test CSV from one CSV (optionally stratified).

Outputs: train_csv, test_csv (absolute paths), train_csv_sha256,
test_csv_sha256, train_rows, test_rows.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "_lib"))
import cube_data  # noqa: E402
import cube_task  # noqa: E402
from cube_task import fail  # noqa: E402


def _default_path(input_path, suffix):
    stem, ext = os.path.splitext(input_path)
    return "%s-%s%s" % (stem, suffix, ext or ".csv")


def _stratify_column(frame, label):
    if label not in frame.columns:
        fail("argument --label_column: '%s' is not among the CSV columns %s; "
             "stratify needs it" % (label, list(frame.columns)))
    counts = frame[label].value_counts()
    if (counts < 2).any():
        fail("stratify needs at least 2 rows per class; classes %s have 1"
             % counts[counts < 2].index.tolist())
    return frame[label]


def main(argv=None):
    from sklearn.model_selection import train_test_split
    task = cube_task.start(__file__, argv)
    args = task.args
    input_path = task.path(args.input_csv)
    frame = cube_data.read_table(input_path, "input")
    if len(frame) < 2:
        fail("input file %s has %d row; a split needs two or more" % (input_path, len(frame)))
    stratify = _stratify_column(frame, args.label_column) if args.stratify else None
    try:
        train, test = train_test_split(frame, test_size=args.test_size, random_state=args.seed,
                                       stratify=stratify)
    except ValueError as e:  # e.g. fewer test rows than classes
        fail("cannot split: %s" % e)
    train_path = task.path(args.train_csv, _default_path(input_path, "train"))
    test_path = task.path(args.test_csv, _default_path(input_path, "test"))
    cube_data.write_table(train, train_path)
    cube_data.write_table(test, test_path)
    task.output_file("train_csv", train_path)
    task.output_file("test_csv", test_path)
    task.output(train_rows=len(train), test_rows=len(test))
    print("split %d rows: %d train -> %s, %d test -> %s" % (
        len(frame), len(train), train_path, len(test), test_path))


if __name__ == "__main__":
    main()
