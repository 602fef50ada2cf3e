"""Render the two HTML reports in headless Chromium and write their screenshots.

1. The fairness report of a LightGBM model on Adult (trained on one half,
   measured on the other) with the combinations of race, sex and an age band
   as the groups: ``skfair-manifold report --intersect``, at 1280 px and at
   400 px (a phone).
2. The situation-testing evidence of the Dutch census audit (sex protected,
   CBN-DD with the paper's Q): ``skfair-manifold audit --html``.

The pages are made by the command line itself, then opened by Chromium
(the Debian package ``chromium``) with every host unresolvable, so a page
that needed the network would show it. Screenshots go to
``docs/_static/reports/``; the HTML files to ``--out`` (not committed: the
evidence file is several MB).

Run from the repository root::

    python docs/render_reports.py --data-dir ../shared/datasets
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "docs" / "_static" / "reports"
PAPER_Q = ["age", "edu_level", "country_birth", "economic_status"]


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("no Chromium found: apt-get update && apt-get install -y chromium")


def screenshot(html, png, *, width=1200, height=1600):
    """Chromium, headless and offline, writes ``png`` of the top of ``html``."""
    profile = tempfile.mkdtemp(prefix="skfair-chromium-")
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--host-resolver-rules=MAP * ~NOTFOUND", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={profile}",
           f"--window-size={width},{height}", f"--screenshot={png}", Path(html).as_uri()]
    t0 = time.perf_counter()
    try:
        subprocess.run(cmd, check=True, capture_output=True, timeout=180)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    print(f"  {png.relative_to(ROOT)} ({png.stat().st_size // 1024} KiB, "
          f"{time.perf_counter() - t0:.1f} s)")


def adult_report(data_dir, out):
    import lightgbm
    import numpy as np
    from sklearn.model_selection import train_test_split

    from skfair_manifold.cli import main
    from skfair_manifold.datasets import load_adult

    bunch = load_adult(data_home=data_dir)
    X, y, A = bunch.data.copy(), bunch.target.to_numpy(), bunch.sensitive
    for column in X.columns:
        if X[column].dtype == object or str(X[column].dtype) in ("str", "string"):
            X[column] = X[column].astype("category")
    features = X.join(A[[c for c in A.columns if c not in X.columns]])
    train, test = train_test_split(np.arange(len(y)), test_size=0.5, random_state=0,
                                   stratify=y)
    model = lightgbm.LGBMClassifier(n_estimators=200, learning_rate=0.05, verbose=-1,
                                    random_state=0)
    model.fit(features.iloc[train], y[train])
    frame = bunch.data.iloc[test].copy()
    for column in A.columns:
        frame[column] = A[column].iloc[test].to_numpy()
    ages = frame["age"].to_numpy(dtype=float)
    frame["age_band"] = np.where(ages < 30, "under 30", np.where(ages < 50, "30-49", "50+"))
    frame["income"] = y[test]
    frame["predicted"] = model.predict(features.iloc[test])
    csv = out / "adult_predictions.csv"
    frame.to_csv(csv, index=False)
    html = out / "adult_report.html"
    code = main(["report", str(csv), "--label", "income", "--prediction", "predicted",
                 "--sensitive", "race", "sex", "age_band", "--intersect", "--features",
                 *[c for c in bunch.data.columns if c not in ("race", "sex")], "--title",
                 "Adult, LightGBM: race x sex x age band", "-o", str(html), "-q"])
    assert code == 0
    print(f"Adult: {len(test)} test rows, accuracy {np.mean(frame.predicted == frame.income):.3f}"
          f" -> {html}")
    return html


def dutch_evidence(data_dir, out):
    from skfair_manifold.cli import main
    from skfair_manifold.datasets import load_dutch_census

    bunch = load_dutch_census(data_home=data_dir)
    frame = bunch.data.copy()
    frame.insert(0, "person", [f"nl{i:05d}" for i in range(len(frame))])
    frame["occupation"] = bunch.target.to_numpy()
    csv = out / "dutch.csv"
    frame.to_csv(csv, index=False)
    graph = out / "dutch_q.json"
    graph.write_text(json.dumps(["sex", *PAPER_Q]))
    html, flagged = out / "dutch_evidence.html", out / "dutch_flagged.csv"
    t0 = time.perf_counter()
    code = main(["audit", str(csv), "--decision", "occupation", "--positive-label", "1",
                 "--protected", "sex", "--protected-value", "female", "--id", "person",
                 "--graph", str(graph), "-k", "50", "--html", str(html), "--html-sheets",
                 "50", "-o", str(flagged), "-q"])
    assert code == 0
    print(f"Dutch census: {len(frame)} rows audited in {time.perf_counter() - t0:.1f} s "
          f"-> {html}")
    return html, flagged


def one_sheet(html, flagged, out):
    """A copy of the evidence page scrolled to the first sheet (for its screenshot)."""
    import pandas as pd

    first = pd.read_csv(flagged)["person"].iloc[0]
    text = html.read_text(encoding="utf-8")
    start = text.index(f'<section class="sheet" id="person-{first}">')
    stop = text.index("</section>", start) + len("</section>")
    head = text[:text.index("<body>") + len("<body>")]
    page = out / "dutch_sheet.html"
    page.write_text(head + text[start:stop] + "</body></html>", encoding="utf-8")
    return page


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "datasets"))
    parser.add_argument("--out", default=None, help="folder for the HTML files "
                                                    "(default: a temporary folder)")
    parser.add_argument("--only", choices=("all", "report", "evidence"), default="all",
                        help="render one page only")
    args = parser.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="skfair-reports-"))
    out.mkdir(parents=True, exist_ok=True)
    SHOTS.mkdir(parents=True, exist_ok=True)
    if args.only in ("all", "report"):
        report = adult_report(args.data_dir, out)
        screenshot(report, SHOTS / "adult_report.png", width=1280, height=2400)
        screenshot(report, SHOTS / "adult_report_400.png", width=400, height=2400)
    if args.only == "report":
        return
    evidence, flagged = dutch_evidence(args.data_dir, out)
    screenshot(evidence, SHOTS / "dutch_evidence_summary.png", width=1280, height=1400)
    screenshot(evidence, SHOTS / "dutch_evidence_summary_400.png", width=400, height=2400)
    sheet = one_sheet(evidence, flagged, out)
    screenshot(sheet, SHOTS / "dutch_evidence_sheet.png", width=1280, height=1800)
    screenshot(sheet, SHOTS / "dutch_evidence_sheet_400.png", width=400, height=2400)


if __name__ == "__main__":
    main()
