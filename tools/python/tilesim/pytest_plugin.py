"""pytest under tilesim: loaded by itself when TILESIM_INTERPRET=1 (through PYTEST_PLUGINS, see _dropin.py), or
with `-p tilesim.pytest_plugin`.

- `@pytest.mark.tilesim_waive("race", ...)`: the test's launches warn instead of raising for those report kinds.
- `TILESIM_WAIVE_FILE=path`: the same for a suite you cannot edit, one waiver a line:
  `<test id pattern> <kind>[,<kind>...]  # why` (the pattern is matched against pytest's whole node id, `*`
  matching any text and everything else itself, brackets included: `*test_block_pointer.py::test_block_copy[*-None]`;
  the reason is required). A bad line is a usage error.
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


_waiver_file: list = []  # (compiled pattern, kinds)


def node_pattern(text: str):
    """A node id pattern: `*` matches any text; every other character (brackets too) matches itself."""
    return re.compile("".join(".*" if part == "*" else re.escape(part) for part in re.split(r"(\*)", text)) + r"\Z")


def read_waiver_file(path: str) -> list:
    """The waivers of a TILESIM_WAIVE_FILE; a bad line raises pytest.UsageError naming file and line."""
    from ._environment import BadEnvironment, waived_kinds
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as error:
        raise pytest.UsageError(f"tilesim: TILESIM_WAIVE_FILE={path!r}: {error.strerror}") from None
    waivers = []
    for number, line in enumerate(text.splitlines(), 1):
        body, hash_sign, reason = line.partition("#")
        if not body.strip():
            continue
        fields = body.split()
        if len(fields) != 2 or not hash_sign or not reason.strip():
            raise pytest.UsageError(f"{path}:{number}: expected '<test id glob> <kind>[,<kind>...]  # reason'")
        try:
            waivers.append((node_pattern(fields[0]), waived_kinds(fields[1], f"{path}:{number}")))
        except BadEnvironment as bad:
            raise pytest.UsageError(str(bad)) from None
    return waivers


def pytest_configure(config):
    config.addinivalue_line("markers", "tilesim_waive(*kinds): report kinds that warn instead of raising under tilesim")
    if os.environ.get("TILESIM_WAIVE_FILE"):
        _waiver_file[:] = read_waiver_file(os.environ["TILESIM_WAIVE_FILE"])
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
    kinds = set(marker.args) if marker is not None else set()
    for pattern, waived in _waiver_file:
        if pattern.match(item.nodeid):
            kinds |= waived
    if not kinds:
        return (yield)
    from ._interpret import waive
    with waive(*sorted(kinds)):
        return (yield)


def pytest_terminal_summary(terminalreporter):
    if _unskipped["count"]:
        terminalreporter.write_line(f"tilesim: ran {_unskipped['count']} test(s) past a skip for Triton's interpreter's "
                                    "limits (TILESIM_RUN_INTERPRETER_SKIPS=1)")
