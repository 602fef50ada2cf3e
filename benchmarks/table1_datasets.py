"""Table I of the HFM paper (dataset statistics), from our loaders.

Counts rows, raw features (the file's columns kept by the preprocessing, label
included when it is a column of the file), processed features (after
``make_paper_preprocessor(..., sensitive="ordinal")``: numeric columns scaled,
categorical ones one-hot encoded, each sensitive attribute one column), the
privileged members of each sensitive attribute, and the rows privileged in both
or in at least one. Every cell is compared with the paper; the exit status is 1
if any differs.

    python -m benchmarks.table1_datasets [--data-dir DIR]
"""

import sys

from ._io import DATASETS, load, markdown_table, parse_args, write_result

# Table I of the paper: inst, raw, processed, 1st priv, 2nd priv, both, either.
PAPER = {
    "ricci": (118, 5, 6, 68, None, None, None),
    "credit": (1000, 21, 58, 690, 851, 625, 916),
    "income": (30162, 14, 98, 25933, 20380, 18038, 28275),
    "ppr": (6167, 11, 401, 4994, 2100, 1620, 5474),
    "ppvr": (4010, 11, 327, 3173, 1452, 1119, 3506),
}


def statistics(bunch):
    from skfair_manifold.datasets import make_paper_preprocessor

    pre = make_paper_preprocessor(bunch.numerical_features, bunch.categorical_features,
                                  sensitive_features=bunch.sensitive_features,
                                  sensitive="ordinal")
    processed = pre.fit_transform(bunch.data).shape[1]
    priv = [(bunch.sensitive[s] == v).to_numpy() for s, v in bunch.privileged.items()]
    first = int(priv[0].sum())
    second = both = either = None
    if len(priv) > 1:
        second = int(priv[1].sum())
        both = int((priv[0] & priv[1]).sum())
        either = int((priv[0] | priv[1]).sum())
    return (len(bunch.data), len(bunch.raw_columns), processed, first, second, both, either)


def main(argv=None):
    args = parse_args(__doc__.splitlines()[0], argv=argv)
    headers = ["dataset", "#inst", "raw", "processed", "1st priv", "2nd priv",
               "joint both", "joint either", "matches paper"]
    rows, mismatches = [], []
    for name in args.datasets:
        bunch = load(name, args.data_dir)
        ours = statistics(bunch)
        paper = PAPER[name]
        attrs = list(bunch.privileged.items())
        cells = []
        for k, (o, p) in enumerate(zip(ours, paper)):
            if o is None:
                cells.append("—")
                continue
            text = f"{o}"
            if k == 3:
                text += f" in {attrs[0][0]} ({attrs[0][1]})"
            if k == 4:
                text += f" in {attrs[1][0]} ({attrs[1][1]})"
            if o != p:
                text += f" (paper {p})"
                mismatches.append((name, k, o, p))
            cells.append(text)
        rows.append([name] + cells + ["yes" if ours == paper else "**no**"])
    verdict = ("All cells equal the paper's Table I." if not mismatches
               else f"{len(mismatches)} cell(s) differ from the paper: {mismatches}")
    text = "\n\n".join([
        "## Table I: dataset statistics (our loaders vs the HFM paper)",
        markdown_table(headers, rows),
        verdict,
        "Raw: the file's columns kept by the preprocessing (label included when it is a "
        "column of the file; Ricci's label `Class` is derived from `Combine`). Processed: "
        "columns out of `make_paper_preprocessor(..., sensitive=\"ordinal\")`.",
    ])
    if set(args.datasets) == set(DATASETS):
        write_result("table1_datasets", text, args.results_dir)
    else:
        print(text)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
