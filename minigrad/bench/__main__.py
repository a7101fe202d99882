"""``python -m minigrad.bench [cpu] ...``: pick a subcommand (``cpu`` when none is named)."""
import argparse
import importlib
import os
import sys

from . import THREAD_VARS

# name -> module with add_arguments(parser) and run(args); a GPU benchmark adds its line here.
COMMANDS = {
    "cpu": "minigrad.bench.cpu",
    "gpu": "minigrad.bench.gpu",
    "floor": "minigrad.bench.floor",
}
DEFAULT = "cpu"


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m minigrad.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="{" + ",".join(COMMANDS) + "}")
    for name, module in COMMANDS.items():
        mod = importlib.import_module(module)
        mod.add_arguments(sub.add_parser(name, help=mod.__doc__.splitlines()[0], description=mod.__doc__,
                                         formatter_class=argparse.RawDescriptionHelpFormatter))
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help")):
        argv = [DEFAULT, *argv]
    return parser.parse_args(argv)


def pin_threads(n):
    """BLAS and OpenMP pools read their size once, when loaded, and numpy is loaded already
    (importing minigrad loads it): a different value means starting the interpreter again."""
    want = str(n)
    if all(os.environ.get(var) == want for var in THREAD_VARS):
        return
    env = dict(os.environ, **{var: want for var in THREAD_VARS})
    args = sys.orig_argv[1:] if hasattr(sys, "orig_argv") else ["-m", "minigrad.bench", *sys.argv[1:]]
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, *args], env)


def main():
    args = parse_args(sys.argv[1:])
    if getattr(args, "threads", None):
        pin_threads(args.threads)
    return importlib.import_module(COMMANDS[args.command]).run(args)


if __name__ == "__main__":
    sys.exit(main())
