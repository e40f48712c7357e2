#!/usr/bin/env python3
"""How many generated programs reach each GPU mutant: the share whose PTX the mutant changes (docs/fuzzing.md,
"Mutation score"). A reached mutant is not yet a killed one (only a GPU run tells), but a mutant no program
reaches cannot be killed, so this is the generator's side of the score, measurable without a GPU.

    python3 fuzz/mutants/ptx_reach.py --tilesim MUTATION_BUILD [--generator TILESIM] [--programs 400] [--seed 1]
        [--only id,id] [--jobs 2]

`--generator` (default: --tilesim) writes the programs (`tilesim fuzz --count N --emit-dir`), so the programs of
one build can be compiled by another's backend. Prints one line per mutant: programs whose PTX changes, of those
that compile."""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from mutation_score import read_registry  # noqa: E402


def compile_ptx(tilesim, kernel, warps, mutant):
    environment = dict(os.environ)
    environment.pop("TILESIM_MUTANT", None)
    if mutant:
        environment["TILESIM_MUTANT"] = mutant
    done = subprocess.run([tilesim, "compile", kernel, "--emit", "ptx", "--num-warps", str(warps)],
                          env=environment, capture_output=True, text=True, timeout=300)
    return done.stdout if done.returncode == 0 else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tilesim", required=True, help="a mutation build (-DTILESIM_MUTATION_TESTING=ON)")
    parser.add_argument("--generator", default=None, help="the tilesim that generates the programs (default --tilesim)")
    parser.add_argument("--programs", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default="", help="comma-separated gpu mutant ids (default: every gpu mutant)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    if not 1 <= args.programs <= 100000 or not 1 <= args.jobs <= 256:
        parser.error("--programs must be in [1, 100000] and --jobs in [1, 256]")
    mutants = [m["id"] for m in read_registry() if m["engine"] == "gpu"]
    if args.only:
        unknown = [m for m in args.only.split(",") if m not in mutants]
        if unknown:
            parser.error(f"--only: not gpu mutants of Mutants.def: {', '.join(unknown)}")
        mutants = args.only.split(",")
    with tempfile.TemporaryDirectory() as work:
        emitted = os.path.join(work, "emitted")
        subprocess.run([args.generator or args.tilesim, "fuzz", "--count", str(args.programs), "--seed", str(args.seed),
                        "--jobs", str(args.jobs), "--quiet", "--no-shrink", "--emit-dir", emitted, "--regressions",
                        os.path.join(work, "cases")], capture_output=True, timeout=3600)
        kernels = []
        for name in sorted(os.listdir(emitted)):
            with open(os.path.join(emitted, name, "case.json")) as file:
                kernels.append((os.path.join(emitted, name, "kernel.ttir"), json.load(file).get("num_warps", 4)))
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            baseline = list(pool.map(lambda k: compile_ptx(args.tilesim, k[0], k[1], None), kernels))
            compiled = sum(ptx is not None for ptx in baseline)
            print(f"{len(kernels)} programs of seed {args.seed}, {compiled} compile for the GPU")
            for mutant in mutants:
                mutated = pool.map(lambda k: compile_ptx(args.tilesim, k[0], k[1], mutant), kernels)
                changed = sum(a is not None and a != b for a, b in zip(baseline, mutated))
                print(f"  {mutant:36} PTX changes in {changed:5} ({100.0 * changed / max(compiled, 1):5.1f}%)", flush=True)


if __name__ == "__main__":
    main()
