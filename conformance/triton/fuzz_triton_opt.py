#!/usr/bin/env python3
"""Real Triton's TTIR optimiser as a fuzz target, on the CPU (docs/fuzzing.md, "Real Triton as a target").

For each conformance case under the given directories (kernel.ttir + inputs + case.json: `tilesim fuzz
--emit-dir` writes generated programs this way; the hand-made and recorded cases of conformance/ work too):
 1. the interpreter runs the case as it is (`tilesim run CASE --profile exact --out before/`);
 2. Triton 3.6's own optimiser rewrites kernel.ttir (triton_passes.py: the pass list of make_ttir, and an
    extended pipeline with the later target-independent passes), through the `triton` package's MLIR bindings;
 3. the interpreter runs the optimised TTIR on the same inputs (`--out after/`);
 4. every buffer must be the same bit for bit (two NaNs equal whatever their payloads), and the checks must report
    the same things. Triton's TTIR passes are value-preserving: no fast-math, no reassociation. The one rewrite
    allowed to change float bits is `combine`'s dot fusion (addf(dot(a, b, 0), c) -> dot(a, b, c): the
    accumulator then starts at c); a difference in a kernel where that fired is judged under the triton profile's
    dot bound instead and counted as `allowed` when it is within it.
A difference is classified (triton-optimiser, tilesim, unspecified), reduced (fuzzcases.reduce_ttir: drop
stores and dead ops while the difference persists; then the grid) and written as a case directory under
--findings DIR: original/ (replays with `tilesim run`: expected = the interpreter's outputs before the
optimiser) and optimised/ (the same expected outputs: fails, showing the difference), plus finding.json.

    python3 conformance/triton/fuzz_triton_opt.py --tilesim build/tools/cli/tilesim [--seconds 40] \\
        [--pipelines make_ttir,extended] [--findings DIR] [--json summary.json] CASE_DIRS...
Exit 0: no unexplained difference (and nothing tilesim failed to parse); 1: findings; 77: triton is missing.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzzcases  # noqa: E402

SKIP = 77


def classify(case, before, after, differences, original_text, optimised_text):
    """(outcome, classification, explanation) for a launch whose before/after runs are in hand."""
    if before.returncode in (2, 3) or (before.returncode == 124):
        return "skipped", None, "the original does not run on tilesim: " + before.first_error()
    if after.returncode == 2 and not after.total_reports:
        return "finding", "tilesim", "tilesim cannot run Triton's optimised TTIR: " + after.first_error()
    if after.returncode == 3:
        return "finding", "tilesim", "tilesim internal error on the optimised TTIR: " + after.first_error()
    unclean = before.total_reports > 0
    same_reports = dict(before.reports) == dict(after.reports)
    if not differences and same_reports:
        return "agreed", None, ""
    if unclean:
        return "unspecified", "unspecified", (
            f"the original is not well defined ({dict(before.reports)}); the optimiser may change what it does: "
            f"after {dict(after.reports)}")
    if not same_reports:
        return "finding", "triton-optimiser?", f"reports changed: before none, after {dict(after.reports)}"
    if "tt.dot" in original_text and dot_fused(original_text, optimised_text):
        return "allowed?", None, "dot accumulator fusion changed float bits (judged under the triton profile)"
    return "finding", "triton-optimiser?", "outputs differ: " + "; ".join(
        f"{d['name']}: {d['differ']} of {d['elements']} differ, first [{d['first']}] before {d['before']} "
        f"after {d['after']}" for d in differences)


def dot_fused(original_text, optimised_text):
    """Whether combine's dot fusion may have fired: a dot in the original fed an addf that the optimised lacks."""
    return original_text.count("arith.addf") > optimised_text.count("arith.addf")


class Campaign:
    def __init__(self, options, work):
        self.options = options
        self.work = work
        self.counts = collections.Counter()
        self.unchanged = collections.Counter()
        self.results = []
        self.pool = None
        self.before_runs = {}

    def new_pool(self):
        if self.pool:
            self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = concurrent.futures.ProcessPoolExecutor(max_workers=self.options.jobs)

    def optimise(self, path, pipeline):
        import triton_passes
        try:
            return self.pool.submit(triton_passes.worker, (path, pipeline)).result(timeout=120)
        except concurrent.futures.process.BrokenProcessPool:
            self.new_pool()
            return "crash", "the Triton optimiser crashed the process (signal)", None
        except concurrent.futures.TimeoutError:
            self.new_pool()
            return "crash", "the Triton optimiser ran for more than 120 s", None

    def check(self, case_dir, case, kernel_text, pipeline, tag):
        """Runs one (kernel text, pipeline) through both sides; returns the result dict (with the runs)."""
        work = os.path.join(self.work, tag)
        plain = fuzzcases.write_case(case_dir, os.path.join(work, "original"), case, kernel_text=kernel_text,
                                     strip_reports=True)
        key = (case_dir, kernel_text, json.dumps(case, sort_keys=True))
        before = self.before_runs.get(key)
        if before is None:  # the same for every pipeline: run once (kept in a directory of its own)
            before = fuzzcases.run_tilesim(self.options.tilesim, plain,
                                           os.path.join(self.work, "before", f"{len(self.before_runs):06d}"),
                                           check=case.get("check"), max_steps=self.options.max_steps)
            self.before_runs = {key: before}  # only the latest: callers use one case at a time
        stage, text, unchanged = self.optimise(os.path.join(plain, "kernel.ttir"), pipeline)
        result = {"pipeline": pipeline, "unchanged": unchanged}
        if stage != "ok":
            kind = {"parse": "triton-rejects-input", "pass": "triton-pass-failed", "crash": "triton-pass-failed"}
            result.update(outcome="finding" if stage != "parse" else "rejected",
                          classification="triton-optimiser" if stage != "parse" else "tilesim-printer?",
                          explanation=f"{kind[stage]}: {text[-600:]}")
            return result, before, None, None
        text, renamed = fuzzcases.restore_parameter_names(kernel_text, text, case.get("entry"))
        result["renamed_parameters"] = renamed
        optimised = fuzzcases.write_case(case_dir, os.path.join(work, "optimised"), case, kernel_text=text,
                                         strip_reports=True)
        after = fuzzcases.run_tilesim(self.options.tilesim, optimised, os.path.join(work, "after"),
                                      check=case.get("check"), max_steps=self.options.max_steps)
        differences = fuzzcases.compare_runs(case, before, after) if before.returncode in (0, 1) and \
            after.returncode in (0, 1) else []
        outcome, classification, explanation = classify(case, before, after, differences, kernel_text, text)
        if outcome == "allowed?":
            outcome, classification, explanation = self.judge_dot_fusion(case_dir, case, before, optimised,
                                                                         explanation)
        result.update(outcome=outcome, classification=classification, explanation=explanation,
                      differences=differences)
        return result, before, after, text

    def judge_dot_fusion(self, case_dir, case, before, optimised_dir, explanation):
        """The optimised kernel under the triton profile with the original's outputs as expected: within the
        interpreter's dot bounds -> allowed, else a finding."""
        judged = fuzzcases.write_case(optimised_dir, optimised_dir + "-judged", case,
                                      expected={a["name"]: before.output(a["name"])
                                                for a in fuzzcases.tensor_args(case)}, strip_reports=True)
        run = fuzzcases.run_tilesim(self.options.tilesim, judged, judged + "-out", profile="triton",
                                    check=case.get("check"), max_steps=self.options.max_steps)
        if run.returncode == 0:
            return "allowed", None, explanation + ": within bounds"
        return "finding", "triton-optimiser?", explanation + ": NOT within the triton profile's bounds"

    def reduce(self, case_dir, case, text, pipeline, tag, result):
        """Shrinks the kernel while the same outcome (and classification) persists."""
        counter = [0]

        def still_fails(candidate):
            counter[0] += 1
            again, *_ = self.check(case_dir, case, candidate, pipeline, f"{tag}-reduce")
            return again["outcome"] == result["outcome"] and again.get("classification") == \
                result.get("classification")

        reduced, calls = fuzzcases.reduce_ttir(text, still_fails, case.get("entry"),
                                               budget=self.options.reduce_budget)
        shrunk = dict(case)
        for grid in ([1, 1, 1],):
            if list(case.get("grid", [1, 1, 1])) != grid:
                smaller = json.loads(json.dumps(case))
                smaller["grid"] = grid
                again, *_ = self.check(case_dir, smaller, reduced, pipeline, f"{tag}-reduce")
                if again["outcome"] == result["outcome"]:
                    shrunk = smaller
        return reduced, shrunk, calls

    def record(self, case_dir, case, text, pipeline, tag, result):
        """Writes the (reduced) finding: original/ and optimised/ case dirs and finding.json."""
        reduced, shrunk, calls = self.reduce(case_dir, case, text, pipeline, tag, result) \
            if self.options.reduce_budget else (text, case, 0)
        final, before, after, optimised_text = self.check(case_dir, shrunk, reduced, pipeline, f"{tag}-final")
        name = f"{os.path.basename(case_dir)}-{pipeline}"
        where = os.path.join(self.options.findings, name)
        if os.path.isdir(where):
            shutil.rmtree(where)
        expected = {a["name"]: before.output(a["name"]) for a in fuzzcases.tensor_args(shrunk)
                    if os.path.exists(before.output(a["name"]))}
        fuzzcases.write_case(case_dir, os.path.join(where, "original"), shrunk, kernel_text=reduced,
                             expected=expected, strip_reports=True, name=name + "-original")
        if optimised_text is not None:
            fuzzcases.write_case(case_dir, os.path.join(where, "optimised"), shrunk, kernel_text=optimised_text,
                                 expected=expected, strip_reports=True, name=name + "-optimised")
        info = {"source_case": case_dir, "pipeline": pipeline, "ops_before_reduction": fuzzcases.count_ops(text),
                "ops_after_reduction": fuzzcases.count_ops(reduced), "reduction_checks": calls,
                "grid": shrunk.get("grid"), **{k: v for k, v in final.items() if k != "unchanged"},
                "first_seen": {k: v for k, v in result.items() if k != "unchanged"}}
        with open(os.path.join(where, "finding.json"), "w") as handle:
            json.dump(info, handle, indent=1)
        return where

    def run_case(self, case_dir, pipelines):
        try:
            case = fuzzcases.load_case(case_dir)
        except (OSError, ValueError) as exc:
            self.counts["skipped"] += 1
            self.results.append({"case": case_dir, "outcome": "skipped", "explanation": str(exc)})
            return
        with open(os.path.join(case_dir, "kernel.ttir")) as handle:
            kernel_text = handle.read()
        for pipeline in pipelines:
            tag = f"{len(self.results):05d}"
            result, before, after, text = self.check(case_dir, case, kernel_text, pipeline, tag)
            result["case"] = case_dir
            if result.get("unchanged"):
                self.unchanged[pipeline] += 1
            self.counts[result["outcome"]] += 1
            self.counts[f"{pipeline}:{result['outcome']}"] += 1
            if result["outcome"] == "finding" and self.options.findings:
                result["repro"] = self.record(case_dir, case, kernel_text, pipeline, tag, result)
            self.results.append(result)
            line = f"{result['outcome']:<12} {pipeline:<9} {os.path.relpath(case_dir)}"
            if result["outcome"] not in ("agreed",):
                line += f"  [{result.get('classification')}] {result.get('explanation', '')[:400]}"
                if result.get("repro"):
                    line += f"\n             minimal repro: {result['repro']}"
            print(line, flush=True)
            shutil.rmtree(os.path.join(self.work, tag), ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="*", help="case directories, or directories holding cases")
    parser.add_argument("--tilesim", required=True, help="the tilesim binary")
    parser.add_argument("--pipelines", default="make_ttir,extended")
    parser.add_argument("--seconds", type=float, default=0, help="stop starting new cases after N s (0: all)")
    parser.add_argument("--limit", type=int, default=0, help="at most N cases (0: all)")
    parser.add_argument("--findings", default=None, help="write each (reduced) finding here")
    parser.add_argument("--reduce-budget", type=int, default=60, help="reduction steps per finding (0: none)")
    parser.add_argument("--json", default=None, help="write the summary and every result here")
    parser.add_argument("--jobs", type=int, default=1, help="optimiser worker processes")
    parser.add_argument("--max-steps", type=int, default=1 << 22)
    parser.add_argument("--keep-work", default=None, help="work directory to keep (default: a temporary one)")
    parser.add_argument("--generate", type=int, default=0,
                        help="first write N generated programs with `tilesim fuzz --emit-dir` and fuzz them too")
    parser.add_argument("--seed", type=int, default=1, help="campaign seed for --generate")
    parser.add_argument("--frontend", action="store_true",
                        help="first rebuild the recorded launches' TTIR before Triton's optimiser (frontend_corpus.py)")
    options = parser.parse_args()
    try:
        import triton
        import triton_passes
        triton_passes._libtriton()
    except ImportError as exc:
        print(f"skipped: the triton package is not importable here ({exc})")
        return SKIP
    if not os.access(options.tilesim, os.X_OK):
        print(f"error: --tilesim {options.tilesim}: not an executable", file=sys.stderr)
        return 2
    pipelines = [p for p in options.pipelines.split(",") if p]
    for pipeline in pipelines:
        if pipeline not in triton_passes.PIPELINES:
            print(f"error: --pipelines: unknown pipeline '{pipeline}' ({', '.join(triton_passes.PIPELINES)})",
                  file=sys.stderr)
            return 2
    work = options.keep_work or tempfile.mkdtemp(prefix="tilesim-triton-opt-")
    os.makedirs(work, exist_ok=True)
    cases = []
    if options.frontend:
        import frontend_corpus
        front = os.path.join(work, "frontend")
        shutil.rmtree(front, ignore_errors=True)
        sys.argv = [sys.argv[0], front]
        frontend_corpus.main()
        cases += fuzzcases.find_cases([front])
    if options.generate:
        generated = os.path.join(work, "generated")
        shutil.rmtree(generated, ignore_errors=True)
        command = [options.tilesim, "fuzz", "--emit-dir", generated, "--count", str(options.generate), "--seed",
                   str(options.seed), "--jobs", "1", "--quiet"]
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if done.returncode != 0 and not os.path.isdir(generated):
            print(f"error: {' '.join(command)} exited {done.returncode}:\n{done.stdout.decode()[-2000:]}",
                  file=sys.stderr)
            return 2
        cases += fuzzcases.find_cases([generated])
        print(f"generated {len(cases)} programs: {' '.join(command)} (exit {done.returncode})")
    cases += [c for c in fuzzcases.find_cases(options.cases) if c not in cases]
    if options.limit:
        cases = cases[:options.limit]
    if not cases:
        print("error: no case directories (case.json + kernel.ttir) under " + " ".join(options.cases),
              file=sys.stderr)
        return 2
    print(f"triton {triton.__version__}; {len(cases)} cases; pipelines:")
    for pipeline in pipelines:
        print(f"  {pipeline}: {', '.join(triton_passes.pass_list(pipeline))}")
    campaign = Campaign(options, work)
    campaign.new_pool()
    started = time.monotonic()
    done = 0
    for case_dir in cases:
        if options.seconds and time.monotonic() - started > options.seconds:
            break
        campaign.run_case(case_dir, pipelines)
        done += 1
    elapsed = time.monotonic() - started
    campaign.pool.shutdown()
    if not options.keep_work:
        shutil.rmtree(work, ignore_errors=True)
    counts = campaign.counts
    print(f"\n{done} of {len(cases)} cases in {elapsed:.1f} s ({done / max(elapsed, 1e-9):.1f} cases/s), "
          f"{sum(counts[f'{p}:{o}'] for p in pipelines for o in ('agreed',))} runs agreed")
    for pipeline in pipelines:
        parts = ", ".join(f"{o} {counts[f'{pipeline}:{o}']}" for o in
                          ("agreed", "allowed", "unspecified", "finding", "rejected", "skipped")
                          if counts[f"{pipeline}:{o}"])
        print(f"  {pipeline}: {parts}; the optimiser changed {done - campaign.unchanged[pipeline]} of {done}")
    findings = [r for r in campaign.results if r.get("outcome") == "finding"]
    for result in findings:
        print(f"  FINDING [{result.get('classification')}] {result['case']} ({result['pipeline']}): "
              f"{result.get('explanation', '')[:300]}" + (f"\n    repro: {result['repro']}"
                                                         if result.get("repro") else ""))
    if options.json:
        with open(options.json, "w") as handle:
            json.dump({"triton": triton.__version__, "cases": done, "seconds": elapsed, "counts": dict(counts),
                       "pipelines": {p: triton_passes.pass_list(p) for p in pipelines},
                       "results": campaign.results}, handle, indent=1, default=str)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
