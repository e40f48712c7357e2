#!/usr/bin/env python3
"""Writes the engine cases of conformance/engine/<family>/<case>/ with a NumPy oracle.

These are the end-to-end semantics tests of the execution engine (they used to be C++ tests with inline TTIR in
interpreter/tests/Engine*Test.cpp): one kernel launch each, as a conformance case that any engine can replay
(`tilesim conformance conformance/engine --engine interp|gpu`). The `layout` family was written here, not taken
from a C++ test: kernels whose GPU lowering moves data between threads through shared memory (tt.trans, reshape,
a reduction broadcast back, join / split / cat, f16 tt.dot, masks, a 2-D grid), with num_warps 1, 2, 4 and 8 in case.json, every
kernel checked to compile with Triton 3.6 too. For every case this script writes
  kernel.ttir                 the kernel (hand-written TTIR, as the C++ test had it; no loc() annotations),
  NAME.npy                    each tensor argument before the launch (fixed values or a seeded generator),
  NAME.expected.npy           each buffer the kernel writes, after the launch, computed HERE with NumPy from the
                              op's definition (docs/semantics.md), never by running tilesim,
  case.json                   the launch (docs/conformance.md), with `notes` saying what the case pins and, for a
                              case about a check, `expect_reports` (and `expect_report_counts`); for a case
                              whose GPU run differs on purpose, `gpu_differs_by_design` with the reason.

Every expected value is exact (integers, bit patterns, float ops whose result is representable or correctly
rounded), so the `triton` profile the runner uses compares them bit for bit; the notes of the one case that goes
through libdevice say why a bound may apply there.

Run it by hand and commit what it writes (CI does not run it; ctest `conformance_tree` replays the cases):
    python3 -m venv /tmp/enginecases-venv && /tmp/enginecases-venv/bin/pip install numpy
    /tmp/enginecases-venv/bin/python conformance/engine/make_cases.py
It deletes and rewrites every family directory below conformance/engine/, and it is deterministic: a second
run leaves `git status` clean. The families are written by cases_FAMILY.py beside it (the `layout` family's TTIR
builders in layout_ttir.py), on the case writer and shared TTIR blocks of engine_case.py.
"""
import os
import shutil

from cases_atomic import atomic_cases
from cases_cast import cast_cases
from cases_control import control_cases
from cases_descriptor import descriptor_cases
from cases_dot import dot_cases
from cases_layout import layout_cases
from cases_memory import memory_cases
from cases_reduce_scan import reduce_scan_cases
from cases_shape import shape_cases
from engine_case import CASES, HERE


def main():
    for entry in sorted(os.listdir(HERE)):
        if os.path.isdir(os.path.join(HERE, entry)):
            shutil.rmtree(os.path.join(HERE, entry))
    for family in (memory_cases, atomic_cases, cast_cases, control_cases, reduce_scan_cases, shape_cases, dot_cases,
                   descriptor_cases, layout_cases):
        family()
    for case in CASES:
        case.write()
    families = {}
    for case in CASES:
        families[case.family] = families.get(case.family, 0) + 1
    print("%d cases: %s" % (len(CASES), ", ".join("%s %d" % item for item in families.items())))


if __name__ == "__main__":
    main()
