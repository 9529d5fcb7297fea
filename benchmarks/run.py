"""Time dynlib against Pinocchio, MuJoCo and Modern Robotics, after checking that they agree.

Usage::

    make bench                                   # full run: writes benchmarks/results.md and results.png
    .venv/bin/python benchmarks/run.py --quick   # smoke run (fewer sizes, short timings), prints only
    .venv/bin/python benchmarks/run.py --regressor-only   # the joint-torque regressor against Pinocchio's only
    .venv/bin/python benchmarks/run.py --sizes 8 64 --output bench-output

Needs ``requirements-bench.txt`` (``pin``, ``mujoco``, ``modern-robotics``).  Models: random
revolute chains of n = 1 ... 256 bodies (``dl.random_tree(n, n, kinds=["revolute"],
branching=0, depth_first=True)``) and the 7-dof KUKA iiwa 14 (``dl.kuka_iiwa14()``).

For every model the script first computes ``tau`` (inverse dynamics), ``H`` (mass matrix)
and ``qdd`` (forward dynamics) with every library on the same random state and stops with an
error if any differs from dynlib's by more than ``RTOL`` relative to its magnitude; articulated
mobility and impulse propagation (no reference library has them) are checked once against
``J H^-1 J^T`` built from Pinocchio's ``crba`` and ``getJointJacobian``.  Then it times every
call: per call, a number of loops calibrated like ``timeit``'s autorange, then ``repeat``
samples taken round-robin over the libraries (so that a busy machine slows them all alike),
and the median.  Samples are this process's CPU time (``time.process_time``; ``--wall`` for
the wall clock): the calls are single-threaded, so on an idle machine the two agree, and CPU
time hardly moves when other jobs share the cores.  The batch of 1000 states is the exception:
dynlib splits a large batch over the cores, so it is timed by the wall clock.  dynlib's kernels are
compiled (numba) before anything is timed.  Ratios are dynlib's time over the reference's
(above 1: dynlib is slower).  Before all that, fresh processes time a reader's cold start on the arm:
importing dynlib and its first ``rnea``, ``crba`` and ``aba`` with an empty compile cache, and what
compiling them, then loading them from that cache, costs.
"""

from __future__ import annotations

import argparse
import datetime
import os
import pathlib
import platform
import subprocess
import sys
import time
import timeit
from dataclasses import dataclass, field
from importlib import metadata

# single-threaded linear algebra, like the single calls it is compared with (before numpy loads)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import dynlib as dl  # noqa: E402
from dynlib.core.compile import HOT  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

ALGORITHMS = ("rnea", "crba", "aba", "articulated_mobility", "impulse_propagation")
REFERENCES = ("pin", "mujoco", "MR")
REFERENCE_NAMES = {"pin": "Pinocchio", "mujoco": "MuJoCo", "MR": "Modern Robotics"}
#: What each reference runs for each algorithm (the cheapest calls that give the full answer).
REFERENCE_CALLS = {
    "pin": {"rnea": "pin.rnea", "crba": "pin.crba (upper triangle only)", "aba": "pin.aba"},
    "mujoco": {
        "rnea": "mj_kinematics + mj_comPos + mj_comVel + mj_rne(flg_acc=1)",
        "crba": "mj_kinematics + mj_comPos + mj_crb + mj_fullM",
        "aba": "mj_forward (qfrc_applied = tau; reads qacc)",
    },
    "MR": {"rnea": "InverseDynamics", "crba": "MassMatrix", "aba": "ForwardDynamics"},
}
PACKAGES = {"pin": "pinocchio", "mujoco": "mujoco", "MR": "modern_robotics"}
DISTRIBUTIONS = ("numpy", "numba", "pin", "mujoco", "modern-robotics", "matplotlib")

SIZES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
QUICK_SIZES = (1, 8, 16, 64)
MR_MAX_N = 32  # Modern Robotics' MassMatrix runs n inverse dynamics: O(n^2) numpy calls
QUICK_MR_MAX_N = 16
SLOPE_RANGE = (16, 256)
RTOL = 1e-8  # relative agreement required before anything is timed
EPSILON = 0.5  # coefficient of restitution of the timed impact
ARM = "iiwa14"

# project targets (the performance issue)
PIN_FACTOR_N8 = 10  # rnea, crba and aba within 10x of Pinocchio at n = 8 (stretch: 5x)
MR_SPEEDUP = {"rnea": 100, "crba": 100, "aba": 100}  # at least this many times faster than MR
MAX_SLOPE = 1.1
SLOPE_TARGETS = ("rnea", "aba", "articulated_mobility", "impulse_propagation")
BATCH, BATCH_FACTOR = 1000, 1.5


#: The clock of every sample: this process's CPU time, which for these single-threaded calls equals
#: wall time on an idle machine and hardly moves when other jobs share the cores (``--wall``: wall time).
CLOCK = time.process_time


class AgreementError(AssertionError):
    """A reference library and dynlib disagree: the benchmark would compare different things."""


def relative_error(actual, desired):
    """``max |actual - desired|`` over the larger of the two magnitudes (cf. dl.relative_close)."""
    actual, desired = np.asarray(actual, float), np.asarray(desired, float)
    scale = max(np.abs(actual).max(initial=0.0), np.abs(desired).max(initial=0.0), np.finfo(float).tiny)
    return float(np.abs(actual - desired).max(initial=0.0) / scale)


def check_close(what, actual, desired, rtol=RTOL):
    """Return the relative error, raising :class:`AgreementError` when it exceeds ``rtol``."""
    err = relative_error(actual, desired)
    if not err <= rtol:
        raise AgreementError(f"{what}: relative error {err:.2e} exceeds {rtol:.0e}\n"
                             f"  ours   {np.ravel(actual)[:6]}\n  theirs {np.ravel(desired)[:6]}")
    return err


def fit_slope(ns, times, lo=SLOPE_RANGE[0], hi=SLOPE_RANGE[1]):
    """Least-squares slope of log(time) against log(n) over ``lo <= n <= hi``.

    Returns ``(slope, n_min, n_max)``, or ``(nan, None, None)`` with fewer than two points.

    >>> round(fit_slope([8, 16, 32, 64], [1.0, 2.0, 4.0, 8.0])[0], 12)
    1.0
    """
    pts = [(n, t) for n, t in zip(ns, times) if lo <= n <= hi and np.isfinite(t)]
    if len(pts) < 2:
        return float("nan"), None, None
    x, y = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(x, y, 1)[0]), pts[0][0], pts[-1][0]


# ------------------------------------------------------------------------------------ models


@dataclass
class Case:
    """A model and the state every library is called with."""

    label: str
    n: int
    model: dl.Model
    q: np.ndarray = field(init=False)
    qd: np.ndarray = field(init=False)
    qdd: np.ndarray = field(init=False)
    tau: np.ndarray = field(init=False)
    contact: np.ndarray = field(init=False)

    def __post_init__(self):
        rng = np.random.default_rng(self.n)
        m = self.model
        self.q, self.qd, self.qdd = (dl.random_configuration(m, rng), dl.random_velocity(m, rng),
                                     dl.random_velocity(m, rng))
        self.tau = dl.random_velocity(m, rng, scale=10.0)
        # the last body hits an obstacle at its centre of mass, moving into it
        kin = dl.forward_kinematics(m, self.q, self.qd)
        k = m.n_bodies - 1
        r = kin.p[k] + kin.R[k] @ m.com[k]
        v_point = kin.v[k][:3] + np.cross(kin.v[k][3:], r)
        self.contact = dl.line_coordinates(r, v_point / np.linalg.norm(v_point))

    @property
    def key(self):
        return (self.label, self.n)

    @property
    def title(self):
        return f"{ARM} (n = 7)" if self.label == ARM else f"chain n = {self.n}"


def chain(n):
    return Case("chain", n, dl.random_tree(n, n, kinds=["revolute"], branching=0.0, depth_first=True))


def arm():
    return Case(ARM, 7, dl.kuka_iiwa14())


# ------------------------------------------------------------------------- calls and checks


def import_references():
    """Import the reference packages, or exit with a message saying how to install them."""
    missing = []
    for lib, module in PACKAGES.items():
        try:
            __import__(module)
        except ImportError:
            missing.append(f"{lib} (import {module})")
    if missing:
        sys.exit(f"missing reference packages: {', '.join(missing)}; "
                 f"install them with: .venv/bin/pip install -r requirements-bench.txt")
    import pinocchio as pin
    from references import ModernRoboticsChain, MuJoCoChain

    from pinocchio_bridge import to_pinocchio

    return pin, to_pinocchio, MuJoCoChain, ModernRoboticsChain


def dynlib_calls(case):
    m, q, qd, qdd, tau, n = case.model, case.q, case.qd, case.qdd, case.tau, case.contact
    return {
        "rnea": lambda: dl.rnea(m, q, qd, qdd),
        "crba": lambda: dl.crba(m, q),
        "aba": lambda: dl.aba(m, q, qd, tau),
        "articulated_mobility": lambda: dl.articulated_mobility(m, q, qd, tau),
        "impulse_propagation": lambda: dl.impulse_propagation(m, q, qd, n, EPSILON),
    }


def reference_calls(case, refs, mr_max_n):
    """``{lib: {algorithm: call}}`` for rnea, crba and aba (MR only up to ``mr_max_n`` bodies)."""
    pin, to_pinocchio, MuJoCoChain, ModernRoboticsChain = refs
    q, qd, qdd, tau = case.q, case.qd, case.qdd, case.tau
    pm = to_pinocchio(case.model)
    pd = pm.createData()
    mj = MuJoCoChain(case.model)
    calls = {
        "pin": {
            "rnea": lambda: pin.rnea(pm, pd, q, qd, qdd),
            "crba": lambda: pin.crba(pm, pd, q),
            "aba": lambda: pin.aba(pm, pd, q, qd, tau),
        },
        "mujoco": {
            "rnea": lambda: mj.inverse_dynamics(q, qd, qdd),
            "crba": lambda: mj.mass_matrix(q),
            "aba": lambda: mj.forward_dynamics(q, qd, tau),
        },
    }
    if case.n <= mr_max_n:
        mr = ModernRoboticsChain(case.model)
        calls["MR"] = {
            "rnea": lambda: mr.inverse_dynamics(q, qd, qdd),
            "crba": lambda: mr.mass_matrix(q),
            "aba": lambda: mr.forward_dynamics(q, qd, tau),
        }
    return calls


def check_references(case, ours, theirs):
    """Compare every reference output with dynlib's on ``case``; return ``{(lib, alg): error}``."""
    expected = {alg: np.array(ours[alg]()) for alg in ("rnea", "crba", "aba")}
    errors = {}
    for lib, calls in theirs.items():
        for alg, call in calls.items():
            out = np.array(call(), dtype=float)
            if lib == "pin" and alg == "crba":  # Pinocchio fills the upper triangle only
                out = np.triu(out) + np.triu(out, 1).T
            errors[lib, alg] = check_close(f"{case.title}: {lib} {alg}", out, expected[alg])
    return errors


def check_mobility_and_impulse(case, ours, refs):
    """Articulated mobility and impulse propagation against ``J H^-1 J^T`` from Pinocchio."""
    pin, to_pinocchio = refs[0], refs[1]

    def joint_space(model):
        pm = to_pinocchio(model)
        pd = pm.createData()
        H = pin.crba(pm, pd, case.q[: model.nq])
        H = np.triu(H) + np.triu(H, 1).T
        pin.computeJointJacobians(pm, pd, case.q[: model.nq])
        J = pin.getJointJacobian(pm, pd, model.n_bodies, pin.ReferenceFrame.WORLD)
        return np.reshape(H, (model.nv, model.nv)), np.reshape(J, (6, model.nv))  # nv = 1 comes back flat

    errors = {}
    mobility = ours["articulated_mobility"]()
    n = case.model.n_bodies
    for k in sorted({n - 1, n // 2}):  # the whole chain, and a sub-chain from the base to body k
        H, J = joint_space(case.model.first_bodies(k + 1))
        Lambda_inv = J @ np.linalg.solve(H, J.T)
        errors[f"Lambda_inv[{k}]"] = check_close(f"{case.title}: articulated mobility of body {k}",
                                                 mobility.Lambda_inv[k], Lambda_inv)
    H, J = joint_space(case.model)
    c = case.contact
    magnitude = (1 + EPSILON) * (c @ J @ case.qd) / (c @ J @ np.linalg.solve(H, J.T @ c))
    dqd = -np.linalg.solve(H, J.T @ c) * magnitude
    response = ours["impulse_propagation"]()
    errors["impulse J"] = check_close(f"{case.title}: impulse magnitude", response.J, magnitude)
    errors["impulse dqd"] = check_close(f"{case.title}: impulse dqd", response.dqd, dqd)
    return errors


# ---------------------------------------------------------------------------------- timing


def calibrate(call, target, clock=None):
    """Loops per sample so that a sample lasts at least ``target`` s (timeit's autorange rule)."""
    timer = timeit.Timer(call, timer=clock or CLOCK)
    number = 1
    while True:
        for factor in (1, 2, 5):
            loops = number * factor
            if timer.timeit(loops) >= target:
                return timer, loops
        number *= 10


def measure(calls, repeat, target, slow=0.5, clock=None):
    """Median seconds per call of each callable, samples taken round-robin.

    A call slower than ``slow`` seconds gets at most 3 samples (the cap on slow cases).  ``clock``
    replaces the default clock (the wall clock for the batches, which run on every core).
    """
    timers = {key: calibrate(call, target, clock) for key, call in calls.items()}
    samples = {key: [] for key in calls}
    for r in range(repeat):
        for key, (timer, loops) in timers.items():
            if r >= 3 and samples[key] and samples[key][0] > slow:
                continue
            samples[key].append(timer.timeit(loops) / loops)
    return {key: float(np.median(s)) for key, s in samples.items()}


# ------------------------------------------------------------------------- the derivatives

DERIVATIVE_SIZES = (2, 4, 8, 16, 32, 64)


def derivative_calls(case, pin, to_pinocchio):
    """Check dl's derivatives against Pinocchio's on ``case``; return their calls and the largest error."""
    m, q, qd, qdd, tau = case.model, case.q, case.qd, case.qdd, case.tau
    pm = to_pinocchio(m)
    pd = pm.createData()
    worst = 0.0
    ours, theirs = dl.rnea_derivatives(m, q, qd, qdd), pin.computeRNEADerivatives(pm, pd, q, qd, qdd)
    for k, what in enumerate(("dtau/dq", "dtau/dqd")):
        worst = max(worst, check_close(f"{case.title}: {what}", ours[k], np.array(theirs[k])))
    ours, theirs = dl.aba_derivatives(m, q, qd, tau), pin.computeABADerivatives(pm, pd, q, qd, tau)
    rtol = max(RTOL, 100 * np.linalg.cond(dl.crba(m, q)) * np.finfo(float).eps)  # a solve with H
    for k, what in enumerate(("dqdd/dq", "dqdd/dqd")):
        worst = max(worst, check_close(f"{case.title}: {what}", ours[k], np.array(theirs[k]), rtol))
    steps = np.eye(m.nv) * 6e-6
    calls = {
        "rnea_derivatives": {
            "dynlib": lambda: dl.rnea_derivatives(m, q, qd, qdd),
            "pin": lambda: pin.computeRNEADerivatives(pm, pd, q, qd, qdd),
            "central differences": lambda: [dl.rnea(m, q + sign * e, qd, qdd) for e in steps for sign in (1, -1)],
        },
        "aba_derivatives": {
            "dynlib": lambda: dl.aba_derivatives(m, q, qd, tau),
            "pin": lambda: pin.computeABADerivatives(pm, pd, q, qd, tau),
        },
    }
    return calls, worst


def derivative_times(cases, refs, repeat, target):
    """Time ``dl.rnea_derivatives`` and ``dl.aba_derivatives`` against Pinocchio's, after checking they agree.

    Central differences of ``dl.rnea`` (two calls per joint) are timed beside them.  Returns
    ``({case.key: {algorithm: {library: seconds}}}, largest relative error)``.
    """
    times, worst = {}, 0.0
    for case in cases:
        if case.label == "chain" and case.n not in DERIVATIVE_SIZES:
            continue
        calls, error = derivative_calls(case, refs[0], refs[1])
        worst = max(worst, error)
        times[case.key] = t = {alg: measure(c, repeat, target) for alg, c in calls.items()}
        r, a = t["rnea_derivatives"], t["aba_derivatives"]
        print(f"{case.title:<16} rnea_derivatives {us(r['dynlib']):>10} {us(r['pin']):>11} "
              f"{ratio_text(r['dynlib'] / r['pin']):>7}   aba_derivatives {us(a['dynlib']):>10} "
              f"{us(a['pin']):>11} {ratio_text(a['dynlib'] / a['pin']):>7}", flush=True)
    return times, worst


def derivative_table(cases, times):
    """Two tables, in µs: the derivatives of inverse dynamics, then those of forward dynamics."""
    inverse = ["Inverse dynamics, `rnea_derivatives` against `computeRNEADerivatives` and central differences:", "",
               "| model | dynlib | Pinocchio | ratio | central differences |", "|---|---|---|---|---|"]
    forward = ["Forward dynamics, `aba_derivatives` against `computeABADerivatives`:", "",
               "| model | dynlib | Pinocchio | ratio |", "|---|---|---|---|"]
    for case in cases:
        if case.key not in times:
            continue
        r, a = times[case.key]["rnea_derivatives"], times[case.key]["aba_derivatives"]
        inverse.append(f"| {case.title} | {us(r['dynlib'])} | {us(r['pin'])} | {ratio_text(r['dynlib'] / r['pin'])} "
                       f"| {us(r['central differences'])} |")
        forward.append(f"| {case.title} | {us(a['dynlib'])} | {us(a['pin'])} | {ratio_text(a['dynlib'] / a['pin'])} |")
    return "\n".join(inverse + [""] + forward)


# ------------------------------------------------------------------------------- the regressor

REGRESSOR_SIZES = DERIVATIVE_SIZES
#: Pinocchio orders a body's rotational inertia (xx, xy, yy, xz, yz, zz); dynlib (xx, xy, xz, yy, yz, zz)
PINOCCHIO_PARAMETER_ORDER = np.array([0, 1, 2, 3, 4, 5, 7, 6, 8, 9])


def regressor_calls(case, pin, to_pinocchio):
    """Check dl.joint_torque_regressor against Pinocchio's (parameter order mapped); return the calls and the error."""
    m, q, qd, qdd = case.model, case.q, case.qd, case.qdd
    pm = to_pinocchio(m)
    pd = pm.createData()
    order = np.concatenate([10 * i + PINOCCHIO_PARAMETER_ORDER for i in range(m.n_bodies)])
    error = check_close(f"{case.title}: joint torque regressor", dl.joint_torque_regressor(m, q, qd, qdd)[:, order],
                        np.array(pin.computeJointTorqueRegressor(pm, pd, q, qd, qdd)))
    calls = {
        "dynlib": lambda: dl.joint_torque_regressor(m, q, qd, qdd),
        "pin": lambda: pin.computeJointTorqueRegressor(pm, pd, q, qd, qdd),
        "rnea": lambda: dl.rnea(m, q, qd, qdd),
    }
    return calls, error


def regressor_times(cases, refs, repeat, target):
    """Time ``dl.joint_torque_regressor`` against Pinocchio's ``computeJointTorqueRegressor`` (and ``dl.rnea``).

    Returns ``({case.key: {library: seconds}}, largest relative error)``.
    """
    times, worst = {}, 0.0
    for case in cases:
        if case.label == "chain" and case.n not in REGRESSOR_SIZES:
            continue
        calls, error = regressor_calls(case, refs[0], refs[1])
        worst = max(worst, error)
        times[case.key] = t = measure(calls, repeat, target)
        print(f"{case.title:<16} joint_torque_regressor {us(t['dynlib']):>10} {us(t['pin']):>11} "
              f"{ratio_text(t['dynlib'] / t['pin']):>7}   (dl.rnea {us(t['rnea'])})", flush=True)
    return times, worst


def regressor_table(cases, times):
    rows = ["| model | `joint_torque_regressor` | Pinocchio | ratio | `rnea` |", "|---|---|---|---|---|"]
    for case in cases:
        if case.key in times:
            t = times[case.key]
            rows.append(f"| {case.title} | {us(t['dynlib'])} | {us(t['pin'])} | {ratio_text(t['dynlib'] / t['pin'])} "
                        f"| {us(t['rnea'])} |")
    return "\n".join(rows)


# ------------------------------------------------------------------------------- the batch


def batched_target(arm_case, pin_times, repeat, target):
    """Per-state time of dl.rnea / dl.aba on B states of the arm, if dynlib accepts (B, nq)."""
    m, rng = arm_case.model, np.random.default_rng(1)
    Q = np.array([dl.random_configuration(m, rng) for _ in range(BATCH)])
    QD, QDD = rng.normal(size=(BATCH, m.nv)), rng.normal(size=(BATCH, m.nv))
    calls = {"rnea": lambda: dl.rnea(m, Q, QD, QDD), "aba": lambda: dl.aba(m, Q, QD, QDD)}
    single = {"rnea": lambda i: dl.rnea(m, Q[i], QD[i], QDD[i]), "aba": lambda i: dl.aba(m, Q[i], QD[i], QDD[i])}
    out = {}
    for alg, call in calls.items():
        try:
            result = np.asarray(call())
        except (ValueError, TypeError, IndexError):
            out[alg] = None
            continue
        if result.shape != (BATCH, m.nv):
            out[alg] = None
            continue
        for i in (0, BATCH - 1):
            check_close(f"batched {alg}, state {i}", result[i], single[alg](i))
        per_state = measure({alg: call}, repeat, target, clock=time.perf_counter)[alg] / BATCH  # wall: all cores
        out[alg] = (per_state, per_state / pin_times[alg])
    return out


# ------------------------------------------------------------------------------- cold start

COLD_BUDGET = 3.0  # s: the first rnea, crba and aba on the arm in a fresh process with no cache, together
COLD_CALLS = """
import json, time
start = time.perf_counter()
import numpy as np
import dynlib as dl
imported = time.perf_counter()
if {compile_now}:
    dl.core.compile.compile_now()
model = dl.kuka_iiwa14()
rng = np.random.default_rng(0)
q, qd, qdd = dl.random_configuration(model, rng), rng.normal(size=7), rng.normal(size=7)
calls = []
for call in (lambda: dl.rnea(model, q, qd, qdd), lambda: dl.crba(model, q), lambda: dl.aba(model, q, qd, qdd)):
    before = time.perf_counter()
    call()
    calls.append(time.perf_counter() - before)
print(json.dumps({{"import": imported - start, "calls": calls}}))
"""


def cold_start():
    """Wall times of a fresh process on the arm: importing dynlib, then its first ``rnea``, ``crba`` and ``aba``.

    ``{"first": ..., "compiling": ..., "from cache": ...}``, each ``{"import": s, "calls": [s, s, s]}``:
    ``first`` as a reader meets them (an empty cache, the kernels' Python text until they are used
    often), ``compiling`` the same calls compiled at once (``compile_now``) with an empty cache, and
    ``from cache`` again, the compiled code loaded from the cache that run left.
    """
    import json
    import tempfile

    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)  # an empty cache of its own, not the project's
        for label, compile_now in (("first", False), ("compiling", True), ("from cache", True)):
            done = subprocess.run([sys.executable, "-c", COLD_CALLS.format(compile_now=compile_now)], env=env,
                                  capture_output=True, text=True, timeout=1800, cwd=tempfile.gettempdir())
            if done.returncode != 0:
                raise RuntimeError(f"the cold-start run failed:\n{done.stderr[-2000:]}")
            out[label] = json.loads(done.stdout.splitlines()[-1])
            print(f"cold start, {label:<10}: import {out[label]['import']:.2f} s, first rnea, crba, aba "
                  + ", ".join(f"{t:.3f}" for t in out[label]["calls"]) + " s", flush=True)
    return out


def cold_table(cold):
    rows = ["| fresh process on the arm | import dynlib s | first `rnea` s | first `crba` s | first `aba` s | "
            "the three s |", "|---|---|---|---|---|---|"]
    what = {"first": "as a reader meets it: empty cache, Python text until used often",
            "compiling": "compiled at once (`compile_now`), empty cache",
            "from cache": "compiled at once, loaded from the disk cache"}
    for label, text in what.items():
        run = cold[label]
        rows.append(f"| {text} | {run['import']:.2f} | " + " | ".join(f"{t:.3f}" for t in run["calls"])
                    + f" | {sum(run['calls']):.2f} |")
    return "\n".join(rows)


# ---------------------------------------------------------------------------------- report


def us(t):
    if not np.isfinite(t):
        return "—"
    x = t * 1e6
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def ratio_text(r):
    if not np.isfinite(r):
        return "—"
    return f"{r:,.0f}" if r >= 100 else f"{r:.3g}"


def get(times, key, alg, lib):
    return times.get(key, {}).get(alg, {}).get(lib, float("nan"))


def table_rows(cases, times):
    rows = []
    for alg in ALGORITHMS:
        for case in cases:
            t = get(times, case.key, alg, "dynlib")
            row = [f"`{alg}`", case.title.replace("chain n = ", "").replace("(n = ", "("), us(t)]
            for lib in REFERENCES:
                ref = get(times, case.key, alg, lib)
                row += [us(ref), ratio_text(t / ref)]
            rows.append(row)
    return rows


def markdown_table(cases, times):
    header = ["algorithm", "n", "dynlib", "pin", "ratio", "mujoco", "ratio", "MR", "ratio"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in table_rows(cases, times)]
    return "\n".join(lines)


def compute_slopes(cases, times):
    """``{alg: {lib: (slope, n_min, n_max)}}`` over the chains in SLOPE_RANGE."""
    chains = [c for c in cases if c.label == "chain"]
    ns = [c.n for c in chains]
    slopes = {}
    for alg in ALGORITHMS:
        for lib in ("dynlib", *REFERENCES):
            ts = [get(times, c.key, alg, lib) for c in chains]
            slope = fit_slope(ns, ts)
            if np.isfinite(slope[0]):
                slopes.setdefault(alg, {})[lib] = slope
    return slopes


def slope_table(slopes):
    header = ["algorithm", "dynlib", "pin", "mujoco", "MR"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for alg, by_lib in slopes.items():
        cells = []
        for lib in ("dynlib", *REFERENCES):
            if lib in by_lib:
                s, lo, hi = by_lib[lib]
                cells.append(f"{s:.2f}" + ("" if (lo, hi) == SLOPE_RANGE else f" (n = {lo}…{hi})"))
            else:
                cells.append("—")
        lines.append(f"| `{alg}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def evaluate_targets(cases, times, slopes, batched, cold=None):
    """``[(target, measured, verdict)]`` with verdict "PASS", "FAIL" or "not measured"."""
    results = []
    target = (f"fresh process, empty cache: first rnea, crba and aba on {ARM} within {COLD_BUDGET:g} s in all "
              "(after importing dynlib)")
    if cold is None:
        results.append((target, "—", "not measured"))
    else:
        first = sum(cold["first"]["calls"])
        results.append((target, f"{first:.2f} s (import {cold['first']['import']:.2f} s)",
                        "PASS" if first <= COLD_BUDGET else "FAIL"))

    def verdict(ok):
        return "PASS" if ok else "FAIL"

    key8 = ("chain", 8)
    for alg in ("rnea", "crba", "aba"):
        r = get(times, key8, alg, "dynlib") / get(times, key8, alg, "pin")
        target = f"n = 8 chain, {alg} within {PIN_FACTOR_N8}× of Pinocchio"
        results.append((target, f"{ratio_text(r)}× slower" if np.isfinite(r) else "—",
                        verdict(r <= PIN_FACTOR_N8) if np.isfinite(r) else "not measured"))
    mr_names = REFERENCE_CALLS["MR"]
    for key, label in (((ARM, 7), f"{ARM} (n = 7)"), (key8, "n = 8 chain")):
        for alg, factor in MR_SPEEDUP.items():
            speedup = get(times, key, alg, "MR") / get(times, key, alg, "dynlib")
            target = f"{label}, {alg} at least {factor}× faster than MR {mr_names[alg]}"
            if not np.isfinite(speedup):
                results.append((target, "—", "not measured"))
                continue
            measured = f"{ratio_text(speedup)}× faster" if speedup >= 1 else f"{ratio_text(1 / speedup)}× slower"
            results.append((target, measured, verdict(speedup >= factor)))
    for alg in SLOPE_TARGETS:
        s = slopes.get(alg, {}).get("dynlib")
        target = f"log-log slope of {alg} over n = {SLOPE_RANGE[0]}…{SLOPE_RANGE[1]} at most {MAX_SLOPE}"
        if s is None or (s[1], s[2]) != SLOPE_RANGE:
            measured = "—" if s is None else f"{s[0]:.2f} (n = {s[1]}…{s[2]} only)"
            results.append((target, measured, "not measured"))
        else:
            results.append((target, f"{s[0]:.2f}", verdict(s[0] <= MAX_SLOPE)))
    for alg in ("rnea", "aba"):
        target = f"batched B = {BATCH}, {ARM}, {alg} within {BATCH_FACTOR}× of Pinocchio per state"
        b = batched.get(alg) if batched else None
        if b is None:
            results.append((target, "no batched API" if batched is not None else "skipped", "not measured"))
        else:
            results.append((target, f"{us(b[0])} µs per state, {ratio_text(b[1])}×", verdict(b[1] <= BATCH_FACTOR)))
    return results


def targets_table(targets):
    lines = ["| target | measured | verdict |", "|---|---|---|"]
    lines += [f"| {t} | {m} | **{v}** |" for t, m, v in targets]
    return "\n".join(lines)


def machine_info():
    cpu = platform.processor() or platform.machine()
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {"python": platform.python_version(), "dynlib": dl.__version__}
    for dist in DISTRIBUTIONS:
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = "not installed"
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=HERE.parent, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "dynlib"], capture_output=True, text=True,
                               cwd=HERE.parent, timeout=10).stdout.strip()
        commit = (commit + (" with uncommitted changes in dynlib/" if dirty else "")) or "unknown"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    return {"cpu": cpu, "cores": os.cpu_count(), "platform": platform.platform(), "versions": versions,
            "commit": commit}


def write_markdown(path, cases, times, slopes, targets, checks, info, settings, derivatives, regressors, cold):
    versions = ", ".join(f"{k} {v}" for k, v in info["versions"].items())
    worst = {}
    for (_case, lib, _alg), err in checks["references"].items():
        worst[lib] = max(worst.get(lib, 0.0), err)
    worst_mob = max(checks["mobility"].values(), default=float("nan"))
    calls = "\n".join(
        f"- **{REFERENCE_NAMES[lib]}**: " + "; ".join(f"{alg} ← `{c}`" for alg, c in REFERENCE_CALLS[lib].items())
        for lib in REFERENCES)
    busy = max(settings["load_before"], settings["load_after"]) > (info["cores"] or 1)
    load_note = ("above the core count, other jobs were sharing the cores: CPU-time samples taken round-robin "
                 "keep the ratios meaningful, but cache and memory contention still add noise" if busy else
                 "no more than the core count: the machine was otherwise idle or nearly so")
    text = f"""# Benchmark: dynlib against Pinocchio, MuJoCo and Modern Robotics

Written by `benchmarks/run.py` ({settings['mode']}) on {settings['date']}; took {settings['elapsed']:.0f} s.

- **Machine**: {info['cpu']}, {info['cores']} cores, {info['platform']}; load average
  {settings['load_before']:.1f} before and {settings['load_after']:.1f} after the run ({load_note}).
- **Versions**: {versions}; dynlib at commit {info['commit']}.
- **Models**: random revolute chains `dl.random_tree(n, n, kinds=["revolute"], branching=0.0,
  depth_first=True)` and the KUKA iiwa 14 (`dl.kuka_iiwa14()`, 7 revolute joints).  The same random
  state `(q, qd, qdd, tau)` for every library.
- **Timing**: median over {settings['repeat']} samples of each call, each sample at least
  {settings['target']} s of loops (3 samples for calls over 0.5 s), round-robin over the libraries;
  microseconds per call measured as {settings['clock']}; single-threaded Python calls (BLAS
  limited to one thread), except dynlib's batch of states, which runs on every core and is timed by
  the wall clock.  dynlib's kernels are compiled (numba {settings.get('numba', '')}) before timing
  (`dl.compile_kernels()`), except in the cold-start table.
  **ratio = dynlib time / reference time** (above 1: dynlib is slower).
- **Agreement first**: before timing, `tau`, `H` and `qdd` of every reference agree with dynlib's to
  a relative {RTOL:.0e} (largest errors seen: {', '.join(f'{k} {v:.1e}' for k, v in worst.items())});
  articulated mobility (bodies n-1 and n/2) and impulse propagation (`J`, `dqd`), which no reference
  library offers, agree with `J H^-1 J^T` from Pinocchio's `crba` and `getJointJacobian` (largest
  error {worst_mob:.1e}).  Those two are timed for dynlib only.
- **Modern Robotics** is timed up to n = {settings['mr_max_n']} only: its `MassMatrix` calls inverse
  dynamics n times and `ForwardDynamics` calls `MassMatrix`, so it is O(n²) in slow numpy steps.

What each reference runs:

{calls}

dynlib runs `dl.rnea(model, q, qd, qdd)`, `dl.crba(model, q)`, `dl.aba(model, q, qd, tau)`,
`dl.articulated_mobility(model, q, qd, tau)` (with bias accelerations) and
`dl.impulse_propagation(model, q, qd, contact, {EPSILON})` (contact on the last body).

## Cold start

A reader's first calls, each row a fresh process on the arm timed by the wall clock (`cold_start` in
`benchmarks/run.py`; the cache is a new `NUMBA_CACHE_DIR`).  A kernel runs as Python for its first
{HOT} calls (unless a call brings a batch of {HOT} states), then numba compiles it; the other rows compile at
once, with an empty cache and with the cache the previous row left.

{cold_table(cold)}

## Time per call (warm: kernels compiled)

Microseconds per call; each ratio is dynlib's time over the reference's to its left.

{markdown_table(cases, times)}

## Log-log slopes of time against n (n = {SLOPE_RANGE[0]}…{SLOPE_RANGE[1]}, chains)

1 is linear in n, 2 quadratic.

{slope_table(slopes)}

## Targets

{targets_table(targets)}

## Derivatives of the dynamics

`dl.rnea_derivatives(model, q, qd, qdd)` against Pinocchio's `computeRNEADerivatives`, and
`dl.aba_derivatives(model, q, qd, tau)` against `computeABADerivatives`, on the chains with n in
{DERIVATIVE_SIZES} and the arm.  Before timing, every derivative agrees with Pinocchio's to a relative
{RTOL:.0e} (forward dynamics: or 100 cond(H) eps, whichever is larger; largest error seen
{checks['derivatives']:.1e}).  "Central differences" times the `2 n` calls of `dl.rnea` that a
difference quotient of `dtau/dq` needs.  Microseconds per call.

{derivative_table(cases, derivatives)}

## The joint-torque regressor

`dl.joint_torque_regressor(model, q, qd, qdd)` against Pinocchio's `computeJointTorqueRegressor`, on the
same models.  Before timing, the two agree to a relative {RTOL:.0e} once Pinocchio's order of a body's
rotational inertia (xx, xy, yy, xz, yz, zz) is mapped onto dynlib's (largest error seen
{checks['regressor']:.1e}).  `dl.rnea` on the same state is timed beside them.  Microseconds per call.

{regressor_table(cases, regressors)}

![Time per call against n, log-log](results.png)
"""
    path.write_text(text)


def plot(path, cases, times, slopes, info, settings):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    chains = [c for c in cases if c.label == "chain"]
    arm_case = next((c for c in cases if c.label == ARM), None)
    styles = {"dynlib": ("C0", "o"), "pin": ("C1", "s"), "mujoco": ("C2", "^"), "MR": ("C3", "D")}
    names = {"dynlib": "dynlib", **REFERENCE_NAMES}
    fig, axes = plt.subplots(2, 3, figsize=(13, 8), constrained_layout=True)
    for ax, alg in zip(axes.flat, ALGORITHMS):
        for lib, (color, marker) in styles.items():
            pts = [(c.n, get(times, c.key, alg, lib)) for c in chains]
            pts = [(n, t * 1e6) for n, t in pts if np.isfinite(t)]
            if not pts:
                continue
            s = slopes.get(alg, {}).get(lib)
            span = "" if not s or (s[1], s[2]) == SLOPE_RANGE else f", n = {s[1]}…{s[2]}"
            label = names[lib] + (f" (slope {s[0]:.2f}{span})" if s else "")
            ax.loglog(*zip(*pts), marker=marker, color=color, label=label, ms=4)
            if arm_case is not None and np.isfinite(get(times, arm_case.key, alg, lib)):
                ax.loglog([7], [get(times, arm_case.key, alg, lib) * 1e6], marker="*", color=color, ms=12,
                          mfc="none", ls="none")
        ns = np.array([c.n for c in chains], float)
        t0 = get(times, ("chain", SLOPE_RANGE[0]), alg, "dynlib") * 1e6
        if np.isfinite(t0):
            ax.loglog(ns, t0 * ns / SLOPE_RANGE[0], ls=":", color="0.5", lw=1)
        ax.set_title(f"{alg}" + ("" if alg in ("rnea", "crba", "aba") else " (dynlib only)"))
        ax.set_xticks(ns, [f"{n:.0f}" for n in ns])
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        ax.set_xlabel("bodies n")
        ax.set_ylabel("µs per call")
        ax.grid(True, which="both", alpha=0.3)
        low, high = ax.get_ylim()
        ax.set_ylim(low, high * (high / low) ** 0.35)  # headroom for the legend above the lines
        ax.legend(fontsize=8, loc="upper left")
    ax = axes.flat[-1]
    ax.axis("off")
    ax.text(0, 1, "Lines: random revolute chains.\nStars: KUKA iiwa 14 (n = 7).\n"
            "Dotted grey: slope 1 (time ∝ n)\nthrough dynlib at n = 16.\n\n"
            f"Median of {settings['repeat']} samples, {settings['date']}.\n"
            f"{info['cpu']}, {info['cores']} cores.\n"
            + "\n".join(f"{k} {v}" for k, v in info["versions"].items()),
            va="top", fontsize=9, family="monospace")
    fig.suptitle("Time per call against chain length (log-log): dynlib vs Pinocchio, MuJoCo and Modern Robotics")
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------------------------ main


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes, shorter samples, no files (smoke run)")
    parser.add_argument("--sizes", type=int, nargs="+", help="chain lengths (default 1 2 4 ... 256)")
    parser.add_argument("--output", type=pathlib.Path,
                        help="folder for results.md and results.png (default: benchmarks/ for a full run, "
                             "none with --quick)")
    parser.add_argument("--no-files", action="store_true", help="print only")
    parser.add_argument("--wall", action="store_true", help="time with the wall clock instead of CPU time")
    parser.add_argument("--strict", action="store_true", help="exit with status 1 when a target fails")
    parser.add_argument("--regressor-only", action="store_true",
                        help="check and time only the joint-torque regressor against Pinocchio's (prints, no files)")
    args = parser.parse_args(argv)
    global CLOCK
    CLOCK = time.perf_counter if args.wall else time.process_time
    sizes = tuple(args.sizes or (QUICK_SIZES if args.quick else SIZES))
    repeat, target = (3, 0.01) if args.quick else (5, 0.2)
    mr_max_n = QUICK_MR_MAX_N if args.quick else MR_MAX_N
    output = args.output or (None if args.quick else HERE)
    if args.no_files:
        output = None

    refs = import_references()
    cold = cold_start()  # fresh processes first, before this one loads anything
    compiled = dl.compile_kernels()  # compile (or load from the disk cache) before anything is timed
    print(f"dynlib's kernels are {'compiled by numba' if compiled else 'running as plain Python (no numba)'}.")
    start, load_before = time.perf_counter(), os.getloadavg()[0]
    cases = [chain(n) for n in sizes] + [arm()]
    if args.regressor_only:
        print("Joint-torque regressor (µs: dynlib, Pinocchio, ratio):", flush=True)
        _, worst = regressor_times(cases, refs, repeat, target)
        print(f"\nAgreement before timing: within {worst:.1e} of Pinocchio (rtol {RTOL:.0e}).")
        return 0
    times, checks = {}, {"references": {}, "mobility": {}}
    print(f"{'model':<16} {'algorithm':<21} {'dynlib µs':>10}" + "".join(f" {lib + ' µs':>11} {'ratio':>7}"
                                                                      for lib in REFERENCES), flush=True)
    for case in cases:
        ours = dynlib_calls(case)
        theirs = reference_calls(case, refs, mr_max_n)
        checks["references"].update(
            {(case.key, *k): v for k, v in check_references(case, ours, theirs).items()})
        checks["mobility"].update(
            {(case.key, k): v for k, v in check_mobility_and_impulse(case, ours, refs).items()})
        for alg in ALGORITHMS:
            calls = {"dynlib": ours[alg], **{lib: c[alg] for lib, c in theirs.items() if alg in c}}
            times.setdefault(case.key, {})[alg] = measure(calls, repeat, target)
            t = times[case.key][alg]
            cells = "".join(f" {us(t.get(lib, np.nan)):>11} {ratio_text(t['dynlib'] / t.get(lib, np.nan)):>7}"
                            for lib in REFERENCES)
            print(f"{case.title:<16} {alg:<21} {us(t['dynlib']):>10}{cells}", flush=True)

    arm_case = cases[-1]
    batched = batched_target(arm_case, {alg: times[arm_case.key][alg]["pin"] for alg in ("rnea", "aba")},
                             repeat, target)
    print("\nDerivatives (µs: dynlib, Pinocchio, ratio):", flush=True)
    derivatives, worst_derivative = derivative_times(cases, refs, repeat, target)
    checks["derivatives"] = worst_derivative
    print("\nJoint-torque regressor (µs: dynlib, Pinocchio, ratio):", flush=True)
    regressors, checks["regressor"] = regressor_times(cases, refs, repeat, target)
    slopes = compute_slopes(cases, times)
    targets = evaluate_targets(cases, times, slopes, batched, cold)
    worst = max(checks["references"].values())
    worst_mob = max(checks["mobility"].values())
    print(f"\nAgreement before timing: references within {worst:.1e} of dynlib (rtol {RTOL:.0e}); "
          f"mobility and impulse within {worst_mob:.1e} of J H^-1 J^T (Pinocchio).")
    print(f"Modern Robotics timed up to n = {mr_max_n} only (O(n^2) numpy calls).\n")
    print(markdown_table(cases, times))
    print(f"\nLog-log slopes of time against n over n = {SLOPE_RANGE[0]}…{SLOPE_RANGE[1]} (chains):\n")
    print(slope_table(slopes))
    print("\nTargets:\n")
    for t, m, v in targets:
        print(f"  {v:<12} {t}: {m}")
    elapsed = time.perf_counter() - start
    print(f"\n{len(cases)} models timed in {elapsed:.0f} s.")

    if output is not None:
        output.mkdir(parents=True, exist_ok=True)
        info = machine_info()
        settings = {
            "mode": "--quick" if args.quick else "full run",
            "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
            "elapsed": elapsed, "repeat": repeat, "target": target, "mr_max_n": mr_max_n,
            "load_before": load_before, "load_after": os.getloadavg()[0],
            "clock": "wall time (`time.perf_counter`)" if args.wall else "process CPU time (`time.process_time`)",
            "numba": metadata.version("numba") if compiled else "not installed: kernels uncompiled",
        }
        write_markdown(output / "results.md", cases, times, slopes, targets, checks, info, settings, derivatives,
                       regressors, cold)
        plot(output / "results.png", cases, times, slopes, info, settings)
        print(f"Wrote {output / 'results.md'} and {output / 'results.png'}.")
    if args.strict and any(v == "FAIL" for _, _, v in targets):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
