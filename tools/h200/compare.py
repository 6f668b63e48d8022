#!/usr/bin/env python3
"""Compares the JSON of benchmark runs (bench_msm, bench_ntt, bench_groth16, --json FILE).

    compare.py BEFORE.json [...] -- AFTER.json [...]

Rows are matched by what they measure (bench_ntt: the size; bench_msm: group, size and
window, or bitmaps of a batch addition; bench_groth16: the case), each side's figure is the median over its files (several
runs of the same binary), and the table gives both and after/before, as Markdown, for
docs/benchmarks.md. A row on one side only is listed with its figures and no ratio.
"""
import json
import statistics
import sys

# Per benchmark: the fields that name a row, and the timings compared (milliseconds).
KINDS = {
    "bench_ntt": (("log_n",), ("ntt_ms", "ntt_with_h2d_ms", "h_pipeline_ms")),
    "bench_msm": (("table", "log_n", "window_bits", "bitmaps"), ("device_ms", "bucket_ms", "reduce_ms", "sort_ms")),
    "bench_groth16": (("case",), ("gpu_proof_ms", "gpu_kernels_ms", "ntt_ms", "msm_h_ms", "msm_l_ms", "msm_a_ms",
                                  "msm_b_g1_ms", "msm_b_g2_ms")),
}


def load(paths):
    """{(benchmark, key): {field: [values]}} over the files, in first-seen order."""
    rows = {}
    for path in paths:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"{path}: {e}")
        bench = doc.get("benchmark")
        if bench not in KINDS:
            sys.exit(f"{path}: benchmark {bench!r} is not one of {', '.join(KINDS)}")
        key_fields, timed = KINDS[bench]
        for row in doc.get("rows", []):
            key = (bench,) + tuple(row.get(k) for k in key_fields)
            slot = rows.setdefault(key, {})
            for field in timed:
                if isinstance(row.get(field), (int, float)):
                    slot.setdefault(field, []).append(float(row[field]))
    return rows


def label(key):
    """bench_msm g1_msm 2^24 20-bit, bench_ntt 2^27, bench_groth16 sha 2^22 ..."""
    bench, *values = key
    words = [bench]
    for field, value in zip(KINDS[bench][0], values):
        if value is None:
            continue
        if field == "log_n":
            words.append(f"2^{value}")
        elif field == "window_bits":
            words.append(f"{value}-bit")
        elif field == "bitmaps":
            words.append(f"{value} bitmaps")
        else:
            words.append(str(value))
    return " ".join(words)


def main(argv):
    if "--" not in argv or argv.index("--") == 0 or argv.index("--") == len(argv) - 1:
        sys.exit(__doc__)
    split = argv.index("--")
    before, after = load(argv[:split]), load(argv[split + 1:])
    print("| row | figure | before (ms) | after (ms) | after/before |")
    print("|---|---|---|---|---|")
    for key in list(before) + [k for k in after if k not in before]:
        b, a = before.get(key, {}), after.get(key, {})
        for field in KINDS[key[0]][1]:
            if field not in b and field not in a:
                continue
            mb = statistics.median(b[field]) if field in b else None
            ma = statistics.median(a[field]) if field in a else None
            ratio = f"{ma / mb:.3f}" if mb and ma is not None else "-"
            fmt = lambda v: "-" if v is None else f"{v:.2f}"
            print(f"| {label(key)} | {field} | {fmt(mb)} | {fmt(ma)} | {ratio} |")


if __name__ == "__main__":
    main(sys.argv[1:])
