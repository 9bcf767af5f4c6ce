"""custom-command: runs --command with bash -c; its exit status is the task's.

The command sees the task's environment (CUBE_RUN_DIR, CUBE_OUTPUT_DIR,
CUBE_OUTPUTS ...) and runs in --workdir, or the run directory.  The output
directory is created first so the command can write results straight away.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "_lib"))
import cube_task  # noqa: E402


def main(argv=None):
    task = cube_task.start(__file__, argv)
    workdir = task.path(task.args.workdir, task.run_dir)
    if not os.path.isdir(workdir):
        cube_task.fail("working directory %s does not exist" % workdir)
    os.makedirs(task.output_dir, exist_ok=True)
    env = dict(os.environ, CUBE_RUN_DIR=task.run_dir, CUBE_OUTPUT_DIR=task.output_dir)
    sys.stdout.flush()
    os.chdir(workdir)
    os.execvpe("/bin/bash", ["/bin/bash", "-c", task.args.command], env)


if __name__ == "__main__":
    main()
