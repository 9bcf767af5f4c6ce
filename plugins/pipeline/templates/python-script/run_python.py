"""python-script: runs --code (inline) or --file with this Python 3.

The script runs in the run directory as a separate process (its exit status
is the task's), with --script_args as its argv and the task's environment.
"""
import os
import shlex
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "_lib"))
import cube_task  # noqa: E402


def main(argv=None):
    task = cube_task.start(__file__, argv)
    args = task.args
    if bool(args.code) == bool(args.file):
        cube_task.fail("give exactly one of --code and --file")
    if args.file:
        script = task.path(args.file)
        if not os.path.isfile(script):
            cube_task.fail("script file %s does not exist" % script)
        command = [sys.executable, script]
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
