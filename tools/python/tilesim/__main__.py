"""`python -m tilesim run SCRIPT [ARGS...]`: runs a Python script with every Triton launch on tilesim (like
TILESIM_INTERPRET=1). `python -m tilesim.capture` is the recorder (capture.py)."""
import runpy
import sys


def main(argv):
    if len(argv) < 2 or argv[0] != "run":
        print("usage: python -m tilesim run SCRIPT [ARGS...]   (options: TILESIM_PROFILE, TILESIM_THREADS, "
              "TILESIM_ENGINE, TILESIM_CHECK=ub|none)", file=sys.stderr)
        return 2
    from . import _interpret
    _interpret.enable(**_interpret.options_from_environment())
    sys.argv = argv[1:]
    runpy.run_path(argv[1], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
