"""The GPU benchmark's one table (issue 22, item 6): every row of a run — the memory-bound kernels of bench.py and
the matmul / attention problems of bench_matrix.py — as achieved / ceiling, tilesim beside Triton 3.6 and torch,
written as OUT/table.md and plotted as OUT/table.png (with the date, GPU, driver and tilesim's commit).

Ceilings, all measured in the same run: the device-to-device copy bandwidth for the memory-bound rows; torch's
dense fp16 matmul rate at 8192^3 for matmul and attention; for fp8 and int8, torch's fp8 / int8 GEMM (cuBLAS) rate
when it is higher (the fp16 rate is not a ceiling for them); for tf32, torch's TF32 GEMM rate (half fp16's peak). A matrix row takes each compiler's best verified configuration
(best_configs: the same rule as bench_matrix.py's table).

Needs no GPU, no torch: run it wherever the JSON files are. The PNG needs matplotlib; without it the markdown is
still written and the script says the plot was skipped.
  python3 bench/gpu/table.py --out DIR [--bench DIR/bench.json] [--matrix A/matrix.json,B/matrix.json]
(--matrix: several files, say from runs split over several calls, are merged; a problem in two keeps the last.)
"""
import argparse
import json
import os
import sys
import textwrap


def best_configs(configs):
    """{"tilesim": row or None, "triton": row or None}: the fastest configuration each compiler ran correctly.

    A configuration counts where its output is verified against torch, or where both compilers' outputs miss torch's
    tolerance alike (then Triton's counts as it is, tilesim's when its error is at most 1.25x Triton's: the row's
    tilesim_as_triton)."""
    best = {}
    for key in ("tilesim", "triton"):
        if key == "tilesim":
            counts = lambda r: r.get("tilesim_as_triton")  # noqa: E731
        else:
            counts = lambda r: "tilesim_tflops" in r and not r.get("tilesim_verified")  # noqa: E731
        ok = [r for r in configs if key + "_tflops" in r and (r.get(key + "_verified") or counts(r))]
        best[key] = max(ok, key=lambda r: r[key + "_tflops"]) if ok else None
    return best


def memory_rows(bench):
    rows = []
    for name, row in bench.get("cases", {}).items():
        rows.append(dict(kernel=name, unit="GB/s", ceiling=bench["copy_gbps"], ceiling_name="device copy",
                         tilesim=row.get("tilesim_gbps") if row.get("tilesim_verified") else None,
                         triton=row.get("triton_gbps") if row.get("triton_verified") else None,
                         torch=row.get("torch_gbps"), tilesim_config=f"w{row['num_warps']}",
                         triton_config=f"w{row['num_warps']}"))
    return rows


def matrix_rows(matrix):
    rows = []
    for name, entry in matrix.get("problems", {}).items():
        best = best_configs(entry["configs"])
        ceiling, ceiling_name = matrix["ceiling_tflops"], "torch fp16 8192^3"
        if ("fp8" in name or "i8" in name) and entry.get("torch_tflops", 0) > ceiling:
            ceiling, ceiling_name = entry["torch_tflops"], "torch fp8 GEMM" if "fp8" in name else "torch int8 GEMM"
        if "tf32" in name and entry.get("torch_tflops"):  # TF32's rate is half fp16's: cuBLAS's is the ceiling
            ceiling, ceiling_name = entry["torch_tflops"], "torch tf32 GEMM"
        rows.append(dict(kernel=name, unit="TFLOP/s", ceiling=ceiling, ceiling_name=ceiling_name,
                         tilesim=best["tilesim"]["tilesim_tflops"] if best["tilesim"] else None,
                         triton=best["triton"]["triton_tflops"] if best["triton"] else None,
                         torch=entry.get("torch_tflops"),
                         tilesim_config=best["tilesim"]["config"] if best["tilesim"] else "none verified",
                         triton_config=best["triton"]["config"] if best["triton"] else "none verified"))
    return rows


def heading(bench, matrices):
    """One line: date, GPU, driver, Triton, torch, tilesim's version (its commit) and binary hash."""
    source = matrices[-1] if matrices else bench
    version = source.get("tilesim_version") or bench.get("tilesim_version") or "tilesim (version not recorded)"
    return (f"{source.get('date', '?')}; GPU {source.get('device', '?')}, driver {source.get('driver', '?')}; "
            f"Triton {source.get('triton', '?')}, torch {source.get('torch', '?')}; {version}, binary sha256 "
            f"{source.get('tilesim_sha', '?')}")


def markdown(rows, title):
    fmt = lambda v: "-" if v is None else f"{v:.1f}"  # noqa: E731
    share = lambda v, row: "-" if v is None else f"{v / row['ceiling']:.3f}"  # noqa: E731
    lines = [title, "", "| kernel | unit | tilesim (config) | Triton 3.6 (config) | torch | ceiling | tilesim / Triton | "
             "tilesim / ceiling | Triton / ceiling | torch / ceiling |", "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        ratio = f"{row['tilesim'] / row['triton']:.3f}" if row["tilesim"] and row["triton"] else "-"
        lines.append(f"| {row['kernel']} | {row['unit']} | {fmt(row['tilesim'])} ({row['tilesim_config']}) | "
                     f"{fmt(row['triton'])} ({row['triton_config']}) | {fmt(row['torch'])} | "
                     f"{row['ceiling']:.0f} ({row['ceiling_name']}) | {ratio} | {share(row['tilesim'], row)} | "
                     f"{share(row['triton'], row)} | {share(row['torch'], row)} |")
    lines += ["", "A missing number (-) is a run that failed or was not verified against torch; bench.md and "
              "matrix.md beside this file say which and why."]
    return "\n".join(lines) + "\n"


def plot(rows, title, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    names = [row["kernel"] for row in rows]
    figure, axes = plt.subplots(figsize=(max(8.0, 0.9 * len(rows) + 2.0), 5.2))
    width = 0.27
    for offset, (key, label, colour) in enumerate((("tilesim", "tilesim", "#1f77b4"), ("triton", "Triton 3.6", "#ff7f0e"),
                                                   ("torch", "torch (cuBLAS / SDPA / eager)", "#7f7f7f"))):
        values = [(row[key] or 0.0) / row["ceiling"] for row in rows]
        xs = [i + (offset - 1) * width for i in range(len(rows))]
        axes.bar(xs, values, width, label=label, color=colour)
    axes.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    axes.text(len(rows) - 0.5, 1.01, "measured ceiling", ha="right", va="bottom", fontsize=8)
    axes.set_xticks(range(len(rows)))
    axes.set_xticklabels([f"{n}\n({row['unit']}: ceiling {row['ceiling']:.0f})" for n, row in zip(names, rows)],
                         rotation=35, ha="right", fontsize=7)
    axes.set_ylabel("achieved / ceiling (same run)")
    axes.set_ylim(0, max(1.15, max(((row[k] or 0.0) / row["ceiling"] for row in rows for k in ("tilesim", "triton",
                                                                                                 "torch")),
                                   default=1.0) * 1.05))
    axes.set_title(textwrap.fill(title, 110), fontsize=8)
    axes.legend(fontsize=8, loc="upper left")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="where table.md and table.png go (and bench.json is looked for)")
    parser.add_argument("--bench", help="bench.py's bench.json (default OUT/bench.json when it exists)")
    parser.add_argument("--matrix", help="bench_matrix.py's matrix.json files, comma-separated "
                                         "(default OUT/matrix/matrix.json when it exists)")
    options = parser.parse_args(argv)
    bench_path = options.bench or os.path.join(options.out, "bench.json")
    matrix_paths = options.matrix.split(",") if options.matrix else [os.path.join(options.out, "matrix", "matrix.json")]
    bench = json.load(open(bench_path)) if os.path.exists(bench_path) else {}
    matrices = [json.load(open(p)) for p in matrix_paths if os.path.exists(p)]
    missing = [p for p in matrix_paths if not os.path.exists(p)] if options.matrix else []
    if missing or (options.bench and not bench):
        parser.error(f"not found: {missing or [options.bench]}")
    if not bench and not matrices:
        parser.error(f"neither {bench_path} nor a matrix.json: run bench/gpu/run_h200.sh first")
    merged = {}
    for matrix in matrices:
        for name, entry in matrix.get("problems", {}).items():
            merged[name] = (matrix, entry)
    rows = memory_rows(bench) + [row for name, (matrix, entry) in merged.items()
                                 for row in matrix_rows(dict(matrix, problems={name: entry}))]
    title = heading(bench, matrices)
    os.makedirs(options.out, exist_ok=True)
    with open(os.path.join(options.out, "table.md"), "w") as f:
        f.write(markdown(rows, title))
    print(open(os.path.join(options.out, "table.md")).read())
    if plot(rows, title, os.path.join(options.out, "table.png")):
        print(f"plot: {os.path.join(options.out, 'table.png')}")
    else:
        print("plot: skipped (no matplotlib here; `pip install matplotlib`, then run this script again)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
