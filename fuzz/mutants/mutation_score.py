#!/usr/bin/env python3
"""The fuzzer's mutation score (docs/fuzzing.md, "Mutation score").

Given a `tilesim` built with -DTILESIM_MUTATION_TESTING=ON, runs for each mutant of fuzz/mutants/Mutants.def (the
CPU set: engines interp and eval; the GPU set: engine gpu) a bounded campaign with that mutant active:
    TILESIM_MUTANT=<id> tilesim fuzz --engine interp|gpu --seconds S --jobs J --max-failures F+1 --no-shrink ...
The unmutated build runs the same campaign first (same seed and bound). A mutant is killed only by a program the
unmutated build passes: its campaign may run to one failure more than the unmutated build had, and each failing
program is looked up in the unmutated build's failures (or, past the programs that campaign reached, replayed on
the unmutated build alone: --first I --count I+1). A mutant whose every failure the unmutated build shares is
"not decided" (the reason names the programs); it stays in the score's denominator, not among the killed. A tool
crash or hang kills. The time to kill is the campaign's own wall time. A survivor is then checked for liveness:
CPU mutants by the digest of a fixed campaign (hash of every program's interpreter outputs) against the unmutated
build's, and by the conformance suite; GPU mutants by the PTX of the conformance kernels and of generated
programs. A survivor that changes none of them is "unreached" (no program reaches it, or it is equivalent) and is
not in the score. Score per engine: killed / live (a "not decided" mutant counts as live). Prints a table and
writes it (text and JSON) under fuzz/results/.

    fuzz/mutants/mutation_score.py --tilesim build-mut/tools/cli/tilesim --engine-set cpu --seconds 120 --jobs 2
    fuzz/mutants/mutation_score.py --tilesim build-static/tools/cli/tilesim --engine-set gpu --seconds 30 --jobs 8

Exit: 0, or 1 when --min-score is given and a score is below it, 2 on bad arguments or a build without mutants.
"""
import argparse
import concurrent.futures
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REGISTRY = os.path.join(ROOT, "fuzz", "mutants", "Mutants.def")
ENGINE_SETS = {"cpu": ("interp", "eval"), "gpu": ("gpu",)}
ROW = re.compile(r'^TILESIM_MUTANT_ENTRY\((\w+), (\w+), ([\w ]+), "([^"]+)", "(.*)"\)\s*$')


def read_registry():
    mutants = []
    with open(REGISTRY) as registry:
        for line in registry:
            if not line.startswith("TILESIM_MUTANT_ENTRY("):
                continue
            match = ROW.match(line)
            if not match:
                sys.exit(f"mutation_score: {REGISTRY}: cannot read the row: {line.strip()}")
            ident, engine, category, path, description = match.groups()
            mutants.append({"id": ident, "engine": engine, "category": category, "file": path,
                            "description": description})
    return mutants


def parse_arguments(mutants):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tilesim", required=True, help="a tilesim built with -DTILESIM_MUTATION_TESTING=ON")
    parser.add_argument("--engine-set", required=True, choices=sorted(ENGINE_SETS))
    parser.add_argument("--seconds", type=float, default=None, help="campaign bound per mutant (default 120)")
    parser.add_argument("--programs", type=int, default=None,
                        help="bound each campaign by programs (--count N) instead of seconds: the same programs "
                             "whatever the load, so the outcome is deterministic (the ctest uses this)")
    parser.add_argument("--expect", default=None,
                        help="a file of `id status` lines (survived / unreached / not-decided); exit 1 unless exactly those mutants "
                             "have those outcomes and every other one is killed")
    parser.add_argument("--jobs", type=int, default=2, help="campaign worker threads (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="campaign seed (default 1)")
    parser.add_argument("--only", default="", help="comma-separated mutant ids (default: the whole set)")
    parser.add_argument("--baseline-failures", type=int, default=20,
                        help="the unmutated build's campaign stops after this many failing programs (default 20); "
                             "programs past it are replayed on the unmutated build one by one when a mutant fails them")
    parser.add_argument("--liveness-programs", type=int, default=300,
                        help="programs of the fixed campaign the liveness checks use (default 300)")
    parser.add_argument("--results", default=os.path.join(ROOT, "fuzz", "results"),
                        help="where the dated table goes ('none': nowhere; default fuzz/results)")
    parser.add_argument("--liveness-only", action="store_true",
                        help="no campaigns: only whether each mutant changes outputs (cpu) or PTX (gpu); needs no GPU")
    parser.add_argument("--min-score", type=float, default=None,
                        help="exit 1 when the set's score (killed / live mutants, percent) is below this")
    args = parser.parse_args()
    if args.seconds is not None and args.programs is not None:
        parser.error("give --seconds or --programs, not both")
    if args.programs is not None and not 1 <= args.programs <= 10**9:
        parser.error("--programs must be in [1, 1e9]")
    if args.programs is None and args.seconds is None:
        args.seconds = 120.0
    if args.seconds is not None and not 0 < args.seconds < 1e6:
        parser.error("--seconds must be a positive number of seconds")
    args.bound = ["--count", str(args.programs)] if args.programs else ["--seconds", f"{args.seconds:g}"]
    args.bound_text = f"{args.programs} programs" if args.programs else f"{args.seconds:g} s"
    args.timeout = 3600 if args.programs else args.seconds + 180
    if args.expect is not None:
        args.expected = read_expectations(args.expect, parser)
    if not 1 <= args.jobs <= 256:
        parser.error("--jobs must be in [1, 256]")
    if not 1 <= args.baseline_failures <= 10000:
        parser.error("--baseline-failures must be in [1, 10000]")
    if args.liveness_programs < 1:
        parser.error("--liveness-programs must be positive")
    if args.min_score is not None and not 0 <= args.min_score <= 100:
        parser.error("--min-score is a percentage in [0, 100]")
    args.tilesim = os.path.abspath(args.tilesim)
    if not (os.path.isfile(args.tilesim) and os.access(args.tilesim, os.X_OK)):
        parser.error(f"--tilesim {args.tilesim} is not an executable")
    known = {m["id"] for m in mutants}
    args.only = [ident for ident in args.only.split(",") if ident]
    for ident in args.only:
        if ident not in known:
            parser.error(f"--only: {ident} is not in {REGISTRY}")
    return args


def read_expectations(path, parser):
    """`id status  # why` lines; status is survived, unreached or not-decided."""
    expected = {}
    try:
        lines = open(path).read().splitlines()
    except OSError as error:
        parser.error(f"--expect: {error}")
    known = {m["id"] for m in read_registry()}
    for number, line in enumerate(lines, 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) != 2 or words[1] not in ("survived", "unreached", "not-decided") or words[0] not in known:
            parser.error(f"--expect: {path}:{number}: expected `<mutant id> survived|unreached|not-decided`, got: {line}")
        expected[words[0]] = words[1].replace("-", " ")
    return expected


def run(command, mutant=None, timeout=None, cwd=ROOT):
    environment = dict(os.environ)
    environment.pop("TILESIM_MUTANT", None)
    if mutant:
        environment["TILESIM_MUTANT"] = mutant
    environment.setdefault("OMP_WAIT_POLICY", "passive")
    try:
        done = subprocess.run(command, env=environment, cwd=cwd, timeout=timeout, capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as expired:
        return None, f"timed out after {expired.timeout} s"


def check_mutation_build(args, mutants):
    code, output = run([args.tilesim, "--help"], mutant=mutants[0]["id"])
    if code != 0:
        sys.stderr.write(f"mutation_score: {args.tilesim} is not a mutation build "
                         f"(configure with -DTILESIM_MUTATION_TESTING=ON):\n{output}")
        sys.exit(2)


class Outcome:
    """What one campaign did: status (survived: no failure; failed: failing programs in `failures`, index ->
    check; killed: the tool itself crashed or hung), seconds, programs run, and for a crash its check."""

    def __init__(self, status, seconds, programs=None, failures=None, check=""):
        self.status, self.seconds, self.programs, self.check = status, seconds, programs, check
        self.failures = failures or {}


def campaign(args, engine, mutant, work, name, max_failures=1, bound=None):
    """One bounded campaign, stopping after `max_failures` failing programs."""
    summary = os.path.join(work, name + ".json")
    regressions = os.path.join(work, name + "-cases")
    os.makedirs(regressions, exist_ok=True)
    command = [args.tilesim, "fuzz", "--engine", engine, *(bound or args.bound), "--jobs", str(args.jobs),
               "--seed", str(args.seed), "--max-failures", str(max_failures), "--no-shrink", "--quiet",
               "--hang-seconds", "60", "--regressions", regressions, "--json", summary]
    started = time.monotonic()
    code, output = run(command, mutant=mutant, timeout=args.timeout)
    wall = time.monotonic() - started
    if code is None:
        return Outcome("killed", wall, check="timeout (tool hung)")
    if code < 0 or code >= 128:
        return Outcome("killed", wall, check=f"crash (signal {-code if code < 0 else code - 128})")
    if code == 4:
        sys.exit(f"mutation_score: the {engine} engine is unavailable here:\n{output}")
    if code not in (0, 1) or not os.path.exists(summary):
        if code == 3:
            return Outcome("killed", wall, check="internal error")
        sys.exit(f"mutation_score: `{' '.join(command)}` exited {code}:\n{output}")
    with open(summary) as file:
        result = json.load(file)
    failures = {f["index"]: f.get("check", "?") for f in result.get("failures", []) if "index" in f}
    if result.get("failed", 0) > 0 and not failures:  # a failure without a program (should not happen): a kill
        return Outcome("killed", result["seconds"], result["programs"], check="failed (no program index)")
    return Outcome("failed" if failures else "survived", result["seconds"], result["programs"], failures)


class Baseline:
    """The unmutated build's verdict per program: its campaign's failures, and single-program replays of the
    programs that campaign did not reach (cached)."""

    def __init__(self, args, engine, work, outcome, max_failures):
        self.args, self.engine, self.work, self.outcome = args, engine, work, outcome
        self.max_failures = max_failures
        self.replayed = {}

    def reached(self, index):
        # Programs start in index order; a campaign stopped by --max-failures may have left programs after its
        # last failure unfinished, so only those up to it count as reached.
        if self.outcome.programs is None or index >= self.outcome.programs:
            return False
        stopped = len(self.outcome.failures) >= self.max_failures
        return not stopped or index <= max(self.outcome.failures)

    def fails(self, index):
        """The unmutated build's check at program `index`, or "" when it passes (or skips) it."""
        if self.reached(index):
            return self.outcome.failures.get(index, "")
        if index not in self.replayed:
            replay = campaign(self.args, self.engine, None, self.work, f"unmutated-{index}",
                              bound=["--first", str(index), "--count", str(index + 1)])
            self.replayed[index] = replay.check or replay.failures.get(index, "")
        return self.replayed[index]


def mutant_campaign(args, engine, mutant, work, baseline, rounds=5):
    """The mutant's campaign, judged: (status, check, seconds, programs). It may fail one program more than the
    unmutated build did; when every failure so far is one the unmutated build shares and the campaign stopped for
    that, it goes on after the last of them (--first), within what is left of the bound, up to `rounds` times."""
    limit = len(baseline.outcome.failures) + 1
    outcome = campaign(args, engine, mutant, work, mutant, max_failures=limit)
    status, check = judge(outcome, baseline)
    for extra in range(1, rounds):
        if status != "not decided" or len(outcome.failures) < limit:
            break
        start = max(outcome.failures) + 1
        if args.programs is not None:
            if start >= args.programs:
                break
            bound = ["--first", str(start), "--count", str(args.programs)]
        else:
            if args.seconds - outcome.seconds < 1:
                break
            bound = ["--first", str(start), "--seconds", f"{args.seconds - outcome.seconds:g}"]
        more = campaign(args, engine, mutant, work, f"{mutant}-{extra}", max_failures=limit, bound=bound)
        if more.status == "killed":
            return more.status, more.check, outcome.seconds + more.seconds, None
        outcome = Outcome("failed" if outcome.failures or more.failures else "survived", outcome.seconds + more.seconds,
                          start + (more.programs or 0), {**outcome.failures, **more.failures})
        status, check = judge(outcome, baseline)
    return status, check, outcome.seconds, outcome.programs


def judge(outcome, baseline):
    """killed / not decided / survived, and the check or reason, from a mutant's campaign and the baseline."""
    if outcome.status != "failed":
        return outcome.status, outcome.check
    own = {i: c for i, c in sorted(outcome.failures.items()) if not baseline.fails(i)}
    if own:
        index, check = next(iter(own.items()))
        return "killed", f"{check} (program {index})"
    shared = ", ".join(f"#{i} {c}" for i, c in sorted(outcome.failures.items()))
    return "not decided", f"fails only programs the unmutated build fails too: {shared}"


def digest(args, mutant, work):
    """Digest of a fixed campaign: a hash of each program and its interpreter outputs (None: it failed)."""
    summary = os.path.join(work, f"digest-{mutant or 'none'}.json")
    code, _ = run([args.tilesim, "fuzz", "--count", str(args.liveness_programs), "--seed", str(args.seed),
                   "--jobs", str(args.jobs), "--no-shrink", "--quiet", "--regressions",
                   os.path.join(work, "digest-cases"), "--json", summary], mutant=mutant,
                  timeout=600)
    if code not in (0, 1) or not os.path.exists(summary):
        return None
    with open(summary) as file:
        return json.load(file).get("digest")


def conformance_fails(args, mutant):
    code, _ = run([args.tilesim, "conformance", "conformance"], mutant=mutant, timeout=900)
    return code != 0


def liveness_kernels(args, work):
    """The kernels whose PTX decides a GPU mutant's liveness: the conformance kernels and generated programs."""
    emitted = os.path.join(work, "emitted")
    os.makedirs(emitted, exist_ok=True)
    run([args.tilesim, "fuzz", "--count", str(args.liveness_programs), "--seed", str(args.seed), "--jobs",
         str(args.jobs), "--no-shrink", "--quiet", "--emit-dir", emitted, "--regressions",
         os.path.join(work, "emit-cases")], timeout=600)
    kernels = []
    for top in (os.path.join(ROOT, "conformance"), emitted):
        for directory, _, files in os.walk(top):
            if "malformed" in directory:
                continue
            kernels += [os.path.join(directory, f) for f in files if f.endswith(".ttir")]
    return sorted(kernels)


def first_ptx_change(args, kernels, baseline, mutant):
    """The first kernel (in `kernels` order) whose PTX (or compile diagnostic) the mutant changes, or None.
    `baseline` caches the unmutated build's PTX by kernel."""
    def compile_one(path, active):
        return run([args.tilesim, "compile", path, "--emit=ptx", "-o", "-"], mutant=active, timeout=120)
    chunk = 4 * max(2, args.jobs)
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for start in range(0, len(kernels), chunk):
            batch = kernels[start:start + chunk]
            missing = [k for k in batch if k not in baseline]
            for kernel, result in zip(missing, pool.map(lambda k: compile_one(k, None), missing)):
                baseline[kernel] = result
            for kernel, result in zip(batch, pool.map(lambda k: compile_one(k, mutant), batch)):
                if result != baseline[kernel]:
                    return kernel
    return None


def score_table(results, engines):
    lines = [f"{'mutant':40} {'engine':6} {'category':14} {'result':10} {'seconds':>8} {'programs':>8}  check"]
    for r in results:
        programs = "" if r["programs"] is None else str(r["programs"])
        lines.append(f"{r['id']:40} {r['engine']:6} {r['category']:14} {r['result']:10} {r['seconds']:8.1f} "
                     f"{programs:>8}  {r['check']}")
    scores = {}
    for engine in engines:
        mine = [r for r in results if r["engine"] == engine]
        if not mine:
            continue
        killed = sum(r["result"] == "killed" for r in mine)  # 0 with --liveness-only
        live = sum(r["result"] != "unreached" for r in mine)
        undecided = sum(r["result"] == "not decided" for r in mine)
        scores[engine] = {"killed": killed, "live": live, "not_decided": undecided, "total": len(mine),
                          "percent": 100.0 * killed / live if live else 100.0}
        lines.append(f"score {engine}: {killed}/{live} live mutants killed ({scores[engine]['percent']:.0f}%); "
                     f"{undecided} not decided (counted live, not killed); {len(mine) - live} unreached; "
                     f"{len(mine)} in all")
    killed = sum(r["result"] == "killed" for r in results)
    live = sum(r["result"] != "unreached" for r in results)
    scores["all"] = {"killed": killed, "live": live, "total": len(results),
                     "percent": 100.0 * killed / live if live else 100.0}
    lines.append(f"score: {killed}/{live} live mutants killed ({scores['all']['percent']:.0f}%), "
                 f"{len(results)} mutants")
    return "\n".join(lines), scores


def main():
    mutants = read_registry()
    args = parse_arguments(mutants)
    engines = ENGINE_SETS[args.engine_set]
    chosen = [m for m in mutants if m["engine"] in engines and (not args.only or m["id"] in args.only)]
    if not chosen:
        sys.exit("mutation_score: no mutant of this engine set is selected")
    check_mutation_build(args, mutants)
    campaign_engine = "gpu" if args.engine_set == "gpu" else "interp"
    work = tempfile.mkdtemp(prefix="tilesim-mutants-")
    started = time.monotonic()
    print(f"mutation score: {len(chosen)} {args.engine_set} mutants, {args.bound_text} each, --jobs {args.jobs}, "
          f"seed {args.seed}; {args.tilesim}", flush=True)

    # The unmutated build first, on the same programs: a program it fails too (a real bug, or a flaky check)
    # kills no mutant.
    unmutated, baseline = "not run", None
    if not args.liveness_only:
        outcome = campaign(args, campaign_engine, None, work, "unmutated", max_failures=args.baseline_failures)
        if outcome.status == "killed":
            sys.exit(f"mutation_score: the unmutated build's campaign itself failed: {outcome.check}")
        baseline = Baseline(args, campaign_engine, work, outcome, args.baseline_failures)
        failed = ", ".join(f"#{i} {c}" for i, c in sorted(outcome.failures.items()))
        unmutated = (f"failed {len(outcome.failures)} programs ({failed}): a mutant failing only these is not decided"
                     if outcome.failures else "passed") + f" after {outcome.seconds:.1f} s, {outcome.programs} programs"
        print(f"unmutated build: {unmutated}", flush=True)
    baseline_digest = digest(args, None, work) if args.engine_set == "cpu" else None
    kernels, baseline_ptx = None, {}

    results = []
    for mutant in chosen:
        if args.liveness_only:
            status, seconds, check, programs = "survived", 0.0, "", None
        else:
            status, check, seconds, programs = mutant_campaign(args, campaign_engine, mutant["id"], work, baseline)
        evidence = "killed"
        if status == "survived":
            if args.engine_set == "cpu":
                changed = digest(args, mutant["id"], work) != baseline_digest
                evidence = "outputs change" if changed else ("conformance fails" if conformance_fails(args, mutant["id"])
                                                            else "")
            else:
                if kernels is None:
                    kernels = liveness_kernels(args, work)
                changed = first_ptx_change(args, kernels, baseline_ptx, mutant["id"])
                evidence = f"PTX changes: {os.path.relpath(changed, ROOT if changed.startswith(ROOT) else work)}" \
                    if changed else ""
            if not evidence:
                status = "unreached"
            elif args.liveness_only:
                status = "live"
        row = dict(mutant, result=status, seconds=seconds, check=check or evidence, programs=programs)
        results.append(row)
        print(f"  {mutant['id']:40} {status:10} {seconds:6.1f} s  {row['check']}", flush=True)

    table, scores = score_table(results, engines)
    elapsed = time.monotonic() - started
    method = (f"liveness only ({args.liveness_programs} generated programs and the conformance kernels)"
              if args.liveness_only else
              f"fuzz --engine {campaign_engine} {' '.join(args.bound)} --jobs {args.jobs} --seed {args.seed} "
              f"--max-failures (the unmutated build's failures + 1) --no-shrink")
    header = (f"tilesim mutation score, {args.engine_set} mutants, {method}; "
              f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; whole run {elapsed:.0f} s; "
              f"load {os.getloadavg()[0]:.2f}")
    header += f"\nunmutated build: {unmutated}"
    print(header)
    print(table)
    if args.results != "none":
        os.makedirs(args.results, exist_ok=True)
        bound = "liveness" if args.liveness_only else (f"{args.programs}programs" if args.programs else f"{args.seconds:g}s")
        stem = os.path.join(args.results, f"mutation-{args.engine_set}-{bound}-"
                                          f"{datetime.date.today().isoformat()}")
        with open(stem + ".txt", "w") as file:
            file.write(header + "\n" + table + "\n")
        with open(stem + ".json", "w") as file:
            json.dump({"header": header, "scores": scores, "mutants": results}, file, indent=1)
        print(f"written: {stem}.txt, {stem}.json")
    shutil.rmtree(work, ignore_errors=True)
    status = 0
    if args.expect is not None:
        for r in results:
            want = args.expected.get(r["id"], "killed")
            if r["result"] != want:
                print(f"mutation_score: {r['id']} was {r['result']}, {args.expect} expects {want}")
                status = 1
    if args.min_score is not None:
        if scores["all"]["percent"] < args.min_score:
            print(f"mutation_score: score {scores['all']['percent']:.0f}% is below {args.min_score:g}%")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
