#!/usr/bin/env python3
"""mutation_score.py's judgement against the unmutated build (ctest mutation_score_logic, label unit), with a fake
tilesim (fake_tilesim.py) whose failing programs per mutant are given: a mutant that fails only programs the
unmutated build fails too is "not decided", not killed; a mutant is killed by the first program the unmutated build
passes, also past the programs the unmutated campaign reached (replayed on the unmutated build alone)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCORE = os.path.join(os.path.dirname(HERE), "mutation_score.py")
FAKE = os.path.join(HERE, "fake_tilesim.py")


def score(table, *options):
    """Runs mutation_score.py on the fake; returns ({mutant: (result, check)}, the JSON's scores, stdout)."""
    with tempfile.TemporaryDirectory() as results:
        environment = dict(os.environ, FAKE_TILESIM=json.dumps(table))
        done = subprocess.run([sys.executable, SCORE, "--tilesim", FAKE, "--engine-set", "cpu", "--jobs", "1",
                               "--results", results, *options], env=environment, capture_output=True, text=True)
        if done.returncode not in (0, 1):
            raise AssertionError(f"mutation_score.py exited {done.returncode}:\n{done.stdout}{done.stderr}")
        [name] = [f for f in os.listdir(results) if f.endswith(".json")]
        with open(os.path.join(results, name)) as file:
            written = json.load(file)
    return {m["id"]: (m["result"], m["check"]) for m in written["mutants"]}, written["scores"], done.stdout


class MutationScoreJudgesAgainstTheUnmutatedBuild(unittest.TestCase):
    def test_shared_failures_are_not_kills(self):
        table = {"failures": {"": [5], "interp_load_other_last_lane": [5],
                              "interp_cmpi_ult_i8_signed": [5, 9], "interp_reduce16_drops_upper": [3]},
                 "digests": {"interp_atomic_umax_signed": "changed"}}
        only = "interp_load_other_last_lane,interp_cmpi_ult_i8_signed,interp_reduce16_drops_upper," \
               "interp_atomic_umax_signed,interp_fp_to_fp_ignores_rtz"
        results, scores, output = score(table, "--programs", "100", "--only", only)
        self.assertEqual(results["interp_load_other_last_lane"][0], "not decided", output)
        self.assertIn("#5 mismatch", results["interp_load_other_last_lane"][1])
        self.assertEqual(results["interp_cmpi_ult_i8_signed"], ("killed", "mismatch (program 9)"), output)
        self.assertEqual(results["interp_reduce16_drops_upper"], ("killed", "mismatch (program 3)"), output)
        self.assertEqual(results["interp_atomic_umax_signed"][0], "survived", output)  # outputs change: live
        self.assertEqual(results["interp_fp_to_fp_ignores_rtz"][0], "unreached", output)
        self.assertEqual((scores["all"]["killed"], scores["all"]["live"]), (2, 4), output)
        self.assertEqual(scores["interp"]["not_decided"], 1, output)
        self.assertIn("unmutated build: failed 1 programs (#5 mismatch)", output)

    def test_failures_past_the_unmutated_campaign_are_replayed(self):
        # A --seconds campaign: the unmutated build reached 100 programs, the mutants 200. Program 150 fails on the
        # unmutated build too (found by replaying it alone), program 160 does not.
        table = {"failures": {"": [150], "interp_load_other_last_lane": [150], "interp_cmpi_ult_i8_signed": [150, 160]},
                 "programs": {"": 100, "interp_load_other_last_lane": 200, "interp_cmpi_ult_i8_signed": 200}}
        results, _, output = score(table, "--seconds", "10", "--only",
                                   "interp_load_other_last_lane,interp_cmpi_ult_i8_signed")
        self.assertIn("unmutated build: passed", output)
        self.assertEqual(results["interp_load_other_last_lane"][0], "not decided", output)
        self.assertEqual(results["interp_cmpi_ult_i8_signed"], ("killed", "mismatch (program 160)"), output)

    def test_expect_accepts_not_decided(self):
        table = {"failures": {"": [5], "interp_load_other_last_lane": [5]}}
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as expect:
            expect.write("interp_load_other_last_lane not-decided  # the unmutated build fails #5 too\n")
        try:
            environment = dict(os.environ, FAKE_TILESIM=json.dumps(table))
            done = subprocess.run([sys.executable, SCORE, "--tilesim", FAKE, "--engine-set", "cpu", "--programs", "50",
                                   "--results", "none", "--only", "interp_load_other_last_lane", "--expect", expect.name],
                                  env=environment, capture_output=True, text=True)
        finally:
            os.unlink(expect.name)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)


if __name__ == "__main__":
    unittest.main()
