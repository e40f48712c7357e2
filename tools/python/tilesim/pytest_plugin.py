"""pytest under tilesim: loaded by itself when TILESIM_INTERPRET=1 (through PYTEST_PLUGINS, see _dropin.py), or
with `-p tilesim.pytest_plugin`.

- `@pytest.mark.tilesim_waive("race", ...)`: the test's launches warn instead of raising for those report kinds.
- `TILESIM_RUN_INTERPRETER_SKIPS=1`: a suite written for Triton's interpreter skips what that interpreter cannot
  do (bf16, `input_precision` bf16x3/bf16x6, fp16/bf16 atomics, "not supported in the interpreter"); tilesim
  can. With the variable set, a `pytest.skip` whose reason is one of those limits does not skip: the test goes
  on, on tilesim, and is judged by its own assertions. Any other skip skips. The reasons are matched by
  INTERPRETER_LIMITS below (the wording of Triton 3.6's suite); each skip turned off is counted in the summary.
"""
from __future__ import annotations

import os
import re

import pytest

# The reasons Triton's test suite gives when it skips for its interpreter's limits, not for the test's.
INTERPRETER_LIMITS = (
    re.compile(r"\bis not supported in the interpreter\b"),  # "bfloat16 ...", "input_precision bf16x3 ..."
    re.compile(r"^not supported in the interpreter$"),
    re.compile(r"^Only test atomic bfloat16/float16 ops on GPU$"),
)

_unskipped = {"count": 0}


def _run_interpreter_skips() -> bool:
    value = os.environ.get("TILESIM_RUN_INTERPRETER_SKIPS", "0")
    if value not in ("0", "1"):
        raise pytest.UsageError(f"tilesim: TILESIM_RUN_INTERPRETER_SKIPS={value!r} is not 0 or 1")
    return value == "1"


def is_interpreter_limit(reason: str) -> bool:
    return any(pattern.search(reason) for pattern in INTERPRETER_LIMITS)


def pytest_configure(config):
    config.addinivalue_line("markers", "tilesim_waive(*kinds): report kinds that warn instead of raising under tilesim")
    if not _run_interpreter_skips():
        return
    original = pytest.skip

    def skip(reason: str = "", *, allow_module_level: bool = False, **kwargs):
        if not allow_module_level and is_interpreter_limit(str(reason)):
            _unskipped["count"] += 1
            return None  # tilesim runs it
        return original(reason, allow_module_level=allow_module_level, **kwargs)

    skip.Exception = original.Exception
    pytest.skip = skip
    config.add_cleanup(lambda: setattr(pytest, "skip", original))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    marker = item.get_closest_marker("tilesim_waive")
    if marker is None:
        return (yield)
    from ._interpret import waive
    with waive(*marker.args):
        return (yield)


def pytest_terminal_summary(terminalreporter):
    if _unskipped["count"]:
        terminalreporter.write_line(f"tilesim: ran {_unskipped['count']} test(s) past a skip for Triton's interpreter's "
                                    "limits (TILESIM_RUN_INTERPRETER_SKIPS=1)")
