"""data-import: copies a dataset into the run directory.

--source url fetches an http(s):// or file:// URL (urllib), --source path
copies a file, --source sklearn writes one of scikit-learn's built-in
datasets as CSV (no network needed).  Files are written to a temporary name
and renamed, so a failed import leaves no half-written dataset.
Outputs: path (absolute), path_sha256, bytes, and rows, columns,
label_column when the result is a CSV.
"""
import os
import shutil
import sys
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "_lib"))
import cube_data  # noqa: E402
import cube_task  # noqa: E402
from cube_task import fail  # noqa: E402

CHUNK = 1 << 20


def _file_name(url):
    name = os.path.basename(urllib.parse.urlparse(url).path)
    return name or "dataset"


def _fetch(url, destination, timeout):
    scheme = urllib.parse.urlparse(url).scheme
    if scheme not in ("http", "https", "file"):
        fail("argument --url: scheme '%s' is not supported (http, https or file)" % scheme)
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response, open(destination, "wb") as out:
            shutil.copyfileobj(response, out, CHUNK)
    except urllib.error.HTTPError as e:
        fail("argument --url: %s answered HTTP %d %s" % (url, e.code, e.reason))
    except (urllib.error.URLError, OSError, ValueError) as e:
        fail("argument --url: cannot fetch %s: %s" % (url, getattr(e, "reason", e)))


def _default_name(task):
    """The file name of the dataset when --save_path is empty."""
    args = task.args
    if args.source == "sklearn":
        return args.sklearn_dataset + ".csv"
    if args.source == "url":
        if not args.url:
            fail("argument --url is required when --source is url")
        return _file_name(args.url)
    if not args.path:
        fail("argument --path is required when --source is path")
    return os.path.basename(args.path)


def _import(task, temporary):
    """Writes the dataset to `temporary`."""
    args = task.args
    if args.source == "sklearn":
        cube_data.sklearn_dataset(args.sklearn_dataset, args.label_names).to_csv(temporary, index=False)
    elif args.source == "url":
        _fetch(args.url, temporary, args.timeout)
    else:
        source = task.path(args.path)
        if not os.path.isfile(source):
            fail("argument --path: %s is not a file" % source)
        shutil.copyfile(source, temporary)


def _describe_csv(task, path):
    import pandas as pd
    try:
        frame = pd.read_csv(path)
    except Exception as e:  # pandas raises many types for bad files
        print("note: %s is not a readable CSV (%s); imported as is" % (path, e))
        return
    task.output(rows=len(frame), columns=len(frame.columns))
    if "label" in frame.columns:
        task.output(label_column="label")


def main(argv=None):
    task = cube_task.start(__file__, argv)
    path = task.path(task.args.save_path, os.path.join("datasets", _default_name(task)))
    if os.path.isdir(path):
        fail("argument --save_path: %s is a directory" % path)
    # Written next to its final name, so the rename cannot cross file systems.
    temporary = cube_task.ensure_parent(os.path.join(os.path.dirname(path), ".import-%d" % os.getpid()))
    try:
        _import(task, temporary)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    task.output_file("path", path)
    task.output(bytes=os.path.getsize(path))
    if path.endswith(".csv"):
        _describe_csv(task, path)
    print("imported %s (%d bytes)" % (path, os.path.getsize(path)))


if __name__ == "__main__":
    main()
