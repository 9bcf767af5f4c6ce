"""python-script: runs --code (inline) or --file with this Python 3.

The script runs in the run directory as a separate process (its exit status
is the task's), with --script_args as its argv and the task's environment.

A --file is code: it runs as it is only when nobody but this account (or
root) could have changed it (cube_task.private_path); else --file_sha256 must
be given (e.g. the sha256 an upstream task recorded), and the bytes checked
against it are what runs, not the file read again.
"""
import os
import shlex
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "_lib"))
import cube_task  # noqa: E402


# Runs the checked copy (argv[1], removed once read) as if it were the
# script (argv[2]): its name, directory on sys.path and __file__.
RUN_COPY = ("import os, sys\n"
            "copy, sys.argv = sys.argv[1], sys.argv[2:]\n"
            "sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))\n"
            "with open(copy, 'rb') as f:\n"
            "    source = f.read()\n"
            "os.unlink(copy)\n"
            "os.rmdir(os.path.dirname(copy))\n"
            "code = compile(source, sys.argv[0], 'exec')\n"
            "del copy, source, f\n"
            "exec(code, {'__name__': '__main__', '__file__': sys.argv[0], '__builtins__': __builtins__})\n")


def _script_command(script, sha256):
    """The command that runs script: itself when private, else a private
    copy of its bytes checked against sha256 (required then)."""
    if not sha256:
        where = cube_task.private_path(script)
        if where:
            cube_task.fail("script file %s could be changed by others (%s is writable by other "
                           "accounts): give --file_sha256 so that it is checked before it runs"
                           % (script, where))
        return [sys.executable, script]
    data = cube_task.read_verified(script, sha256, "--file_sha256", "script file")
    directory = tempfile.mkdtemp(prefix="cube-script-")
    copy = os.path.join(directory, "script.py")
    with open(copy, "wb") as f:
        f.write(data)
    return [sys.executable, "-c", RUN_COPY, copy, script]


def main(argv=None):
    task = cube_task.start(__file__, argv)
    args = task.args
    if bool(args.code) == bool(args.file):
        cube_task.fail("give exactly one of --code and --file")
    if args.file:
        script = task.path(args.file)
        if not os.path.isfile(script):
            cube_task.fail("script file %s does not exist" % script)
        command = _script_command(script, args.file_sha256)
    else:
        command = [sys.executable, "-c", args.code]
    try:
        command += shlex.split(args.script_args or "")
    except ValueError as e:
        cube_task.fail("argument --script_args: %s" % e)
    os.makedirs(task.output_dir, exist_ok=True)
    env = dict(os.environ, CUBE_RUN_DIR=task.run_dir, CUBE_OUTPUT_DIR=task.output_dir,
               MPLBACKEND=os.environ.get("MPLBACKEND", "Agg"))
    sys.stdout.flush()
    os.chdir(task.run_dir)
    os.execve(sys.executable, command, env)


if __name__ == "__main__":
    main()
