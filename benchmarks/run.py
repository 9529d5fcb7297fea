"""Time dynlib's algorithms against Pinocchio in one run and report the ratios.

Usage: ``make bench`` (or ``.venv/bin/python benchmarks/run.py [--quick]``).  Needs the
test-only package ``pin``.  Prints a Markdown table; timings are medians of repeated calls
on the same machine, so the ratios, not the absolute times, are what carry over.
"""

import argparse
import pathlib
import sys
import timeit

import numpy as np

import dynlib as dl

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))
from pinocchio_bridge import pin, to_pinocchio  # noqa: E402


def median_time(call, repeat):
    timer = timeit.Timer(call)
    number, _ = timer.autorange()
    return np.median(timer.repeat(repeat=repeat, number=number)) / number


def rows(model, repeat):
    rng = np.random.default_rng(0)
    q, qd, qdd = dl.random_configuration(model, rng), dl.random_velocity(model, rng), dl.random_velocity(model, rng)
    tau = dl.rnea(model, q, qd, qdd)
    pm = to_pinocchio(model)
    data = pm.createData()
    cases = [
        ("rnea", lambda: dl.rnea(model, q, qd, qdd), lambda: pin.rnea(pm, data, q, qd, qdd)),
        ("crba", lambda: dl.crba(model, q), lambda: pin.crba(pm, data, q)),
        ("aba", lambda: dl.aba(model, q, qd, tau), lambda: pin.aba(pm, data, q, qd, tau)),
        ("forward_dynamics_crba", lambda: dl.forward_dynamics_crba(model, q, qd, tau), None),
    ]
    for name, ours, theirs in cases:
        t_ours = median_time(ours, repeat)
        t_theirs = median_time(theirs, repeat) if theirs else np.nan
        yield name, t_ours, t_theirs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes and repeats")
    args = parser.parse_args()
    sizes = (5, 20) if args.quick else (5, 10, 20, 40)
    repeat = 3 if args.quick else 7
    print("| model | n | nv | algorithm | dynlib (µs) | Pinocchio (µs) | ratio | µs per body |")
    print("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        models = {
            "revolute chain": dl.random_tree(n, n, kinds=["revolute"], branching=0.0, depth_first=True),
            "mixed tree": dl.random_tree(n, n, branching=0.5, depth_first=True),
        }
        for label, model in models.items():
            aba_time = None
            for name, ours, theirs in rows(model, repeat):
                ratio = ours / theirs if np.isfinite(theirs) else np.nan
                if name == "aba":
                    aba_time = ours
                if name == "forward_dynamics_crba":
                    theirs_text, ratio_text = "—", f"{ours / aba_time:.2f} × aba"
                else:
                    theirs_text, ratio_text = f"{theirs * 1e6:.1f}", f"{ratio:.0f}"
                print(f"| {label} | {n} | {model.nv} | {name} | {ours * 1e6:.0f} | {theirs_text} | {ratio_text} "
                      f"| {ours * 1e6 / n:.0f} |")


if __name__ == "__main__":
    main()
