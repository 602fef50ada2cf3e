"""Run every benchmark at its smallest setting, each as ``python -m benchmarks.<name>``.

A check that the scripts run, not a measurement: each runs in its own
process from the repository's top, with its smallest setting (``--quick``
where it has one, the fewest rows, repeats and seeds its options allow), and
every file it would write goes to a temporary folder (``--results-dir``,
``--output``, ``--out`` or ``--dir``), so that the committed results are left
as they are (``git status`` is compared before and after). A few scripts run a
second time in a mode that starts child processes or reaches code the first
run does not. Printed: a table of the script, the command, its exit code and
its seconds. The exit code is 1 if a run failed or ``git status`` changed.

Usage, from the repository's top::

    python -m benchmarks.run_smallest [--data-dir DIR] [--only NAME ...] [--logs DIR]

Scripts that read the paper's data sets take ``--data-dir`` (default
``../shared/datasets`` beside the repository). ``situation_testing_networks``
needs pgmpy (the ``benchmarks`` extra) and is skipped without it.
"""

import argparse
import importlib.util
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ._io import DEFAULT_DATA_DIR, REPO, child_env, markdown_table


def runs(data, tmp):
    """``(script, arguments, needs)`` of every run: ``data`` the data folder, ``tmp`` a
    temporary folder for what the scripts write; ``needs``: modules the run requires."""
    out = tmp / "results"
    d = ["--data-dir", str(data)]
    r = ["--results-dir", str(out)]
    return [
        ("bench_audit_lazy", ["--rows", "2e4", "--sample-rows", "2e4", "--repeats", "1",
                              "--structure-seeds", "1", "--dir", str(tmp / "audit_lazy")], ()),
        ("bench_audit_scale", ["--rows", "2000", "--check-rows", "2000"], ()),
        ("bench_bias_audit", ["--rows", "2e4", "--repeats", "1", "--dir", str(tmp / "bias"),
                              *r], ()),
        ("bench_distances", ["--quick", "--seeds", "1", "--no-sklearn"], ()),
        ("bench_distances", ["--memory"], ()),
        ("bench_hfm", ["--quick", "--seeds", "2", "--repeat", "1", "--million", "50000",
                       *d, *r], ()),
        ("bench_hfm", ["--blas", *r], ()),
        ("bench_hfm", ["--defaults", "--quick", "--seeds", "1", "--million", "20000", *r], ()),
        ("bench_hfm", ["--memory", "--million", "50000", "--before", str(tmp / "before"), *r],
         ()),
        ("bench_hfm_auto", ["--quick", "--repeat", "1", *r], ()),
        ("bench_hfm_auto", ["--cost", "--quick", *r], ()),
        ("bench_hfm_auto", ["--low-dim", "--quick", "--repeat", "1", *r], ()),
        ("bench_hfm_auto", ["--floor", "--quick", "--repeat", "1", *r], ()),
        ("bench_lazy", ["--rows", "1e5", "--memory-rows", "1e5", "--repeats", "1",
                        "--dir", str(tmp)], ()),
        ("bench_metrics", ["--group-rows", "10000", "--hfm-rows", "2000", "--features", "10",
                           "--report-rows", "10000", "--repeat", "1"], ()),
        ("bench_regression", ["--rows", "1e5", "--memory-rows", "1e4", "--repeats", "1",
                              "--dir", str(tmp)], ()),
        ("bench_search", ["--quick", "--searches", "logistic", *d, *r], ()),
        ("bench_tie_groups", ["--rows", "2e4", "--repeats", "1", "--dir", str(tmp / "ties"),
                              *r], ()),
        ("bias_audit_coverage", ["--repeats", "3", "--rows", "500", *r], ()),
        ("estimated_demographics", ["--repeats", "3", "--rows", "600", *r], ()),
        ("fig12_correlation", ["--quick", "--datasets", "ricci", *d, *r], ()),
        ("fig3_tradeoff", ["--quick", "--datasets", "ricci", *d, *r], ()),
        ("fig4_approx_vs_exact", ["--quick", "--datasets", "ricci", "--no-crossover", *d, *r],
         ()),
        ("fig5_hyperparameters", ["--quick", "--datasets", "ricci", *d, *r], ()),
        ("fig7_parallel", ["--quick", "--datasets", "ricci", *d, *r], ()),
        ("group_intervals", ["--repeats", "10"], ()),
        ("input_sweep", [*r], ()),
        ("situation_testing_auto_k", ["--audits", "1", "--ks", "50", "--n-samples", "2000",
                                      "--repeats", "1", "--output", str(out / "auto_k.md")], ()),
        ("situation_testing_continuous", ["--sizes", "2000", "--ks", "50", "--repeats", "1",
                                          "--output", str(out / "continuous.md")], ()),
        ("situation_testing_dutch", ["--repeats", "1", "--parts", "audit", "defaults",
                                     "--methods", "CBN-DD (paper's Q)", *d,
                                     "--output", str(out / "dutch.md")], ()),
        ("situation_testing_harm", ["--seeds", "1", "--rows", "2000", "--null-rows", "2000",
                                    "--calibration-rows", "2000", "--calibration-seeds", "1",
                                    "--null-seeds", "1", *d, *r], ()),
        ("situation_testing_mixed", ["--quick", "--n-samples", "2000",
                                     "--error-control-rows", "2000", "--error-control-ks", "50",
                                     "--output", str(out / "mixed.md")], ()),
        ("situation_testing_mixed", ["--oracle-only", "--repeats", "1",
                                     "--error-control-rows", "2000",
                                     "--error-control-ks", "50", "auto",
                                     "--output", str(out / "mixed_oracle.md")], ()),
        ("situation_testing_networks", ["--quick", "--no-pc", "--decisions", "1",
                                        "--output", str(out / "networks.md")], ("pgmpy",)),
        ("situation_testing_pooled", ["--repeats", "1", "--audits", "1", "--ks", "50",
                                      "--n-samples", "2000", "--dutch-repeats", "1", *d,
                                      "--output", str(out / "pooled.md")], ()),
        ("situation_testing_power", ["--n-samples", "2000", "--ks", "50", "--repeats", "1",
                                     "--out", str(out / "power.md")], ()),
        ("table1_datasets", ["--datasets", "ricci", *d, *r], ()),
        ("table2_measures", ["--quick", "--datasets", "ricci", *d, *r], ()),
    ]


def scripts():
    """The benchmark scripts: the modules of this folder not starting with ``_`` but this one."""
    here = Path(__file__).resolve().parent
    return sorted(p.stem for p in here.glob("*.py")
                  if not p.stem.startswith("_") and p.stem != "run_smallest")


def git_status():
    """``git status --porcelain`` of the repository (untracked files included), or None."""
    try:
        return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                              cwd=REPO, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


def shell_words(args):
    return " ".join(a if a and all(c.isalnum() or c in "-_./=:" for c in a) else repr(a)
                    for a in args)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR,
                        help="folder laid out like shared/datasets (default: %(default)s)")
    parser.add_argument("--only", nargs="+", metavar="NAME", default=None,
                        help="run these scripts only (default: every one)")
    parser.add_argument("--logs", type=Path, default=None,
                        help="keep each run's output in this folder (default: not kept)")
    parser.add_argument("--timeout", type=float, default=1800,
                        help="seconds a run may take (default: %(default)s)")
    args = parser.parse_args(argv)
    before = git_status()
    rows, failed = [], 0
    with tempfile.TemporaryDirectory(prefix="skfm_run_smallest_") as name:
        tmp = Path(name)
        # another checkout's package for bench_hfm --memory --before: a copy of this one
        shutil.copytree(REPO / "skfair_manifold", tmp / "before" / "skfair_manifold",
                        ignore=shutil.ignore_patterns("__pycache__"))
        logs = args.logs or tmp / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        todo = [run for run in runs(args.data_dir.resolve(), tmp)
                if args.only is None or run[0] in args.only]
        missing = set(scripts()) - {run[0] for run in runs(args.data_dir, tmp)}
        if missing:
            raise SystemExit(f"no smallest setting for {sorted(missing)}: add it to runs()")
        for i, (script, script_args, needs) in enumerate(todo):
            command = ["python", "-m", f"benchmarks.{script}", *script_args]
            shown = shell_words(command).replace(str(tmp), "$TMP")
            absent = [m for m in needs if importlib.util.find_spec(m) is None]
            if absent:
                rows.append([script, f"`{shown}`", f"skipped (needs {', '.join(absent)})", "-"])
                print(f"[{i + 1}/{len(todo)}] {script}: skipped, needs {absent}", flush=True)
                continue
            log = logs / f"{i:02d}_{script}.log"
            start = time.perf_counter()
            with open(log, "w") as out:
                try:
                    code = subprocess.run([sys.executable, *command[1:]], cwd=REPO,
                                          env=child_env(), stdout=out,
                                          stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                          timeout=args.timeout).returncode
                except subprocess.TimeoutExpired:
                    code = "timeout"
            seconds = time.perf_counter() - start
            rows.append([script, f"`{shown}`", code, f"{seconds:.1f}"])
            print(f"[{i + 1}/{len(todo)}] {script}: exit {code}, {seconds:.1f} s", flush=True)
            if code != 0:
                failed += 1
                tail = log.read_text(errors="replace").splitlines()[-25:]
                print("\n".join("    " + line for line in tail), flush=True)
    after = git_status()
    print()
    print(markdown_table(["script", "command", "exit code", "seconds"], rows))
    print()
    if before is None:
        print("git status: not read (no git)")
    elif after == before:
        print("git status: unchanged by the runs")
    else:
        print("git status: CHANGED by the runs:\n" + after)
    print(f"{len(rows)} runs, {failed} failed")
    return 1 if failed or (before is not None and after != before) else 0


if __name__ == "__main__":
    sys.exit(main())
