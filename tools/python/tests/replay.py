"""Replays the cases a capture test wrote with `tilesim conformance` (the binary in $TILESIM_CLI, which ctest sets
where the project builds it); skips the rest of the test when no binary is given."""
import os
import subprocess

import pytest


def replay_cases(folder):
    cli = os.environ.get("TILESIM_CLI")
    if not cli or not os.path.exists(cli):
        pytest.skip("TILESIM_CLI (the tilesim binary) not given: cases written but not replayed")
    done = subprocess.run([cli, "conformance", str(folder)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
