"""Fuzz dynlib's public API with bad and edge-case inputs; seeded and repeatable.

Every case calls one public function with inputs built from a valid call by one or two
mutations (wrong shapes and lengths, batch axes that do not broadcast, NaN and infinities,
huge and tiny values, non-unit quaternions, rotation matrices that are no rotations, poses
with a wrong last row, zero vectors and screws, rank-deficient subspaces, singular or
impossible inertias, decompositions that are not normalised, wrong types, empty arrays,
massless leaf bodies, singular configurations) and sorts the outcome:

ok          returned a result with only finite numbers
error       raised ValueError or TypeError from dynlib code, with a message of its own (the
            documented way)
UNEXPECTED  raised anything else, leaked a ValueError/TypeError from numpy or the standard
            library or passed on Python's own message ("unsupported operand type", ...), raised
            with an empty message, returned NaN or infinity without an error, or ran past the
            per-call time limit (a hang)

Case ``i`` of seed ``S`` draws everything from ``numpy.random.default_rng([S, i])``, so the
same seed gives the same cases and the same counts, and one case can be replayed alone::

    python tools/fuzz.py                        # 20,000 cases, seed 0
    python tools/fuzz.py --cases 500 --seed 3
    python tools/fuzz.py --seed 3 --case 417 -v # replay one case, printing its inputs

Exit status 1 if anything was unexpected.  ``tests/test_fuzz.py`` runs a slice in the unit tests.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import time
import traceback
import warnings
from collections import Counter, defaultdict
from dataclasses import fields, is_dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import dynlib as dl  # noqa: E402

DYNLIB_DIR = os.path.dirname(os.path.abspath(dl.__file__))
DOCUMENTED = (ValueError, TypeError)
#: messages of Python's and numpy's own errors: raised through dynlib, they name no argument
INTERNAL_MESSAGE = re.compile(
    r"unsupported operand type|object is not (subscriptable|iterable|callable)|not supported between instances"
    r"|could not convert|setting an array element|unhashable type|has no attribute|positional argument"
    r"|argument must be|cannot be interpreted|only length-1 arrays|truth value of an array|ufunc '"
)
DEFAULT_CASES = 20_000
TIME_LIMIT = 5.0  # seconds per call


# -- classifying one call ------------------------------------------------------------------


class Hang(BaseException):
    """Raised by the alarm inside a call that ran past its time limit (BaseException: never caught by dynlib)."""


def _on_alarm(signum, frame):
    raise Hang()


def non_finite(result, allow_inf=False):
    """A path to the first NaN (or infinity, unless allowed) inside ``result``, or None."""
    def bad(x):
        x = np.asarray(x)
        if x.dtype.kind not in "fc":
            return False
        return bool(np.isnan(x).any() if allow_inf else (~np.isfinite(x)).any())

    if result is None or isinstance(result, (str, bytes, bool, dl.Model, dl.Joint)):
        return None
    if isinstance(result, np.ndarray):
        if result.dtype == object:
            for idx in np.ndindex(result.shape):
                path = non_finite(result[idx], allow_inf)
                if path is not None:
                    return f"[{', '.join(map(str, idx))}]{path}"
            return None
        return "" if bad(result) else None
    if isinstance(result, (float, complex, np.number)):
        return "" if bad(result) else None
    if isinstance(result, tuple) and hasattr(result, "_fields"):
        items = zip((f".{f}" for f in result._fields), result)
    elif is_dataclass(result):
        items = ((f".{f.name}", getattr(result, f.name)) for f in fields(result))
    elif isinstance(result, (tuple, list)):
        items = ((f"[{i}]", x) for i, x in enumerate(result))
    else:
        return None
    for label, item in items:
        path = non_finite(item, allow_inf)
        if path is not None:
            return label + path
    return None


def _raised_in_dynlib(exc):
    """True if the innermost Python frame of the traceback is dynlib's own code."""
    tb = exc.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    return os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(DYNLIB_DIR)


def _where(exc):
    """The innermost traceback line, as ``file:line in function``."""
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    return f"{os.path.relpath(frame.filename)}:{frame.lineno} in {frame.name}"


def classify(func, args=(), kwargs=None, time_limit=TIME_LIMIT, allow_inf=False, also_documented=()):
    """Call ``func`` and sort the outcome: ``("ok" | "error" | "unexpected", detail)``.

    Parameters
    ----------
    func : callable
    args, kwargs : the call's arguments
    time_limit : float
        Seconds before the call counts as a hang (``signal.setitimer``, the sub-second ``alarm``).
    allow_inf : bool
        Infinities in the result are documented (a screw's pitch); NaN never is.
    also_documented : tuple of exception types
        Further exceptions the function documents (a missing file's OSError).
    """
    kwargs = kwargs or {}
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, time_limit)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # overflow warnings: the result is checked instead
            result = func(*args, **kwargs)
    except Hang:
        return "unexpected", f"hang: still running after {time_limit} s"
    except DOCUMENTED + tuple(also_documented) as exc:
        message = str(exc)
        if not re.search(r"[A-Za-z_]{2,}", message):
            return "unexpected", f"{type(exc).__name__} with an empty message {message!r} at {_where(exc)}"
        if isinstance(exc, DOCUMENTED) and not _raised_in_dynlib(exc):
            return "unexpected", f"{type(exc).__name__} leaked from {_where(exc)}: {message[:160]}"
        if INTERNAL_MESSAGE.search(message):
            return "unexpected", f"{type(exc).__name__} with Python's message at {_where(exc)}: {message[:160]}"
        return "error", f"{type(exc).__name__}: {message[:160]}"
    except Exception as exc:  # the point of the fuzzer: anything else is a finding
        return "unexpected", f"{type(exc).__name__} at {_where(exc)}: {str(exc)[:160]}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    path = non_finite(result, allow_inf)
    if path is not None:
        return "unexpected", f"returned a non-finite value at result{path} without an error"
    return "ok", ""


# -- building bad inputs ------------------------------------------------------------------

HUGE, TINY = 1e300, 1e-300


def pick(rng, options):
    """One of ``options`` (any objects), drawn by ``rng``."""
    return options[rng.integers(len(options))]


def _set(a, rng, value):
    a = np.array(a, dtype=float)
    if a.size:
        a.flat[rng.integers(a.size)] = value
    return a


def _resize(a, change):
    """``a`` with its last axis one entry shorter or longer."""
    a = np.atleast_1d(np.asarray(a, dtype=float))
    if change < 0:
        return a[..., :-1] if a.shape[-1] else np.zeros(a.shape[:-1] + (1,))
    return np.concatenate([a, np.zeros(a.shape[:-1] + (1,))], axis=-1)


#: mutations of a valid array argument: label -> function(rng, good) -> bad value
ARRAY_MUTATIONS = {
    "as list": lambda rng, a: np.asarray(a).tolist(),
    "int dtype": lambda rng, a: np.round(np.nan_to_num(np.asarray(a, dtype=float))).astype(int),
    "one short": lambda rng, a: _resize(a, -1),
    "one long": lambda rng, a: _resize(a, +1),
    "empty": lambda rng, a: np.zeros(0),
    "scalar": lambda rng, a: 0.5,
    "extra axis": lambda rng, a: np.asarray(a)[None],
    "column": lambda rng, a: np.asarray(a).reshape(-1, 1),
    "NaN": lambda rng, a: _set(a, rng, np.nan),
    "inf": lambda rng, a: _set(a, rng, np.inf),
    "-inf": lambda rng, a: _set(a, rng, -np.inf),
    "huge": lambda rng, a: _set(a, rng, HUGE),
    "large": lambda rng, a: _set(a, rng, 1e12),
    "tiny": lambda rng, a: _set(a, rng, TINY),
    "zeros": lambda rng, a: np.zeros_like(np.asarray(a, dtype=float)),
    "string": lambda rng, a: "abc",
    "None": lambda rng, a: None,
    "strings": lambda rng, a: np.full(np.shape(a), "x"),
    "complex": lambda rng, a: np.asarray(a, dtype=float) + 1j,
    "bools": lambda rng, a: np.ones(np.shape(a), dtype=bool),
    "ragged": lambda rng, a: [[1.0, 2.0], [3.0]],
    "list of lists": lambda rng, a: [[x] for x in np.ravel(a)],
    "objects": lambda rng, a: np.full(np.shape(a), None, dtype=object),
    "dict": lambda rng, a: {"q": 1.0},
}

#: mutations of a valid scalar argument
SCALAR_MUTATIONS = {
    "NaN": np.nan, "inf": np.inf, "-inf": -np.inf, "negative": -1.0, "zero": 0.0, "huge": HUGE,
    "tiny": TINY, "string": "x", "None": None, "array": np.ones(2), "complex": 1 + 1j, "list": [0.5],
}

#: mutations of a valid body index
INDEX_MUTATIONS = {
    "-1": -1, "-100": -100, "too big": 10**6, "float": 1.0, "string": "0", "None": None, "bool": True,
    "array": np.array([0]), "numpy int": np.int64(0),
}

#: mutations of the model argument
MODEL_MUTATIONS = {"None": None, "string": "model", "joint": dl.revolute(), "list": [1, 2]}


def mutate(rng, value, kind):
    """A (label, bad value) pair for an argument of the given kind."""
    if kind == "array":
        label = list(ARRAY_MUTATIONS)[rng.integers(len(ARRAY_MUTATIONS))]
        try:
            return label, ARRAY_MUTATIONS[label](rng, value)
        except (ValueError, TypeError):  # a sequence of non-numbers (names, joints): swap in an entry
            bad = list(value)
            bad[rng.integers(len(bad))] = pick(rng, [np.nan, None, "x", [1.0, 2.0]])
            return f"{label} (entry replaced)", bad
    if kind in STRUCTURED_MUTATIONS:  # rotations, poses, generators, kinematics, decompositions
        return STRUCTURED_MUTATIONS[kind](rng, value)
    table = {"scalar": SCALAR_MUTATIONS, "index": INDEX_MUTATIONS, "model": MODEL_MUTATIONS}[kind]
    label = list(table)[rng.integers(len(table))]
    return label, table[label]


def _quaternion_slices(model):
    """q-slices of the quaternions of spherical and free joints."""
    out = []
    for joint, qs in zip(model.joints, model.q_slices):
        if joint.kind == "spherical":
            out.append(qs)
        elif joint.kind == "free":
            out.append(slice(qs.start + 3, qs.stop))
    return out


def bad_configuration(rng, model, q):
    """A mutation of ``q`` that breaks a quaternion (falls back to an array mutation)."""
    slices = _quaternion_slices(model)
    if not slices or rng.random() < 0.5:
        return mutate(rng, q, "array")
    q = np.array(q, dtype=float)
    qs = slices[rng.integers(len(slices))]
    choice = rng.integers(3)
    if choice == 0:
        q[qs] *= 1.5
        return "non-unit quaternion", q
    if choice == 1:
        q[qs] = 0.0
        return "zero quaternion", q
    q[qs] *= 1 + 1e-6
    return "nearly unit quaternion", q


# -- the models ---------------------------------------------------------------------------

def _with_inertia(model, body, inertia):
    inertias = model.inertias.copy()
    inertias[body] = inertia
    return dl.Model(model.parent, model.joints, model.placements, inertias, model.gravity, model.names)


def model_pool():
    """Valid models the cases start from: chains, branched trees, every joint kind, edge cases."""
    kinds = list(dl.JOINT_KINDS)
    chain = dl.random_tree(4, 11, kinds=kinds, branching=0.0)
    pool = {
        "planar_chain(1)": dl.planar_chain(1),
        "planar_chain(3)": dl.planar_chain(3),
        "double_pendulum": dl.double_pendulum(),
        "mixed chain": chain,
        "revolute chain": dl.random_tree(5, 12, kinds=["revolute", "prismatic", "helical"], branching=0.0),
        "branched tree": dl.random_tree(6, 13, kinds=kinds, branching=0.7),
        "spherical+free tree": dl.random_tree(3, 14, kinds=["spherical", "free"], branching=0.5),
        "fixed only": dl.Model((-1,), (dl.fixed(),), np.eye(4)[None],
                               dl.random_inertia(np.random.default_rng(1))[None]),
        "zero gravity chain": dl.planar_chain(2, gravity=(0.0, 0.0, 0.0)),
        "massless leaf": _with_inertia(dl.planar_chain(3), 2, np.zeros((6, 6))),
        "massless middle": _with_inertia(dl.planar_chain(3), 1, np.zeros((6, 6))),
        "tiny mass": _with_inertia(dl.planar_chain(2), 1, dl.spatial_inertia(1e-12, [0.5, 0, 0],
                                                                            1e-14 * np.eye(3))),
        "kuka iiwa14": dl.kuka_iiwa14(),
    }
    return pool


MODELS = model_pool()
CHAINS = [name for name, m in MODELS.items() if m.is_chain()]


def valid_state(rng, model, special=False):
    """(q, qd, qdd/tau) for ``model``: random, or a special configuration (zeros, multiples of pi)."""
    q = dl.random_configuration(model, rng)
    if special:
        q = dl.neutral_configuration(model)
        if rng.random() < 0.5:  # straight or folded joints: singular Jacobians, stretched chains
            for joint, qs in zip(model.joints, model.q_slices):
                if joint.kind in ("revolute", "helical"):
                    q[qs] = np.pi * rng.integers(-1, 2)
    qd = dl.random_velocity(model, rng) * (0.0 if special and rng.random() < 0.5 else 1.0)
    return q, qd, dl.random_velocity(model, rng)


# -- the cases ----------------------------------------------------------------------------

class Case:
    """One call: the function, its arguments and a one-line summary of what was mutated."""

    def __init__(self, name, func, args, kwargs=None, summary="valid", allow_inf=False, also_documented=(),
                 expect=None):
        self.name, self.func, self.args, self.kwargs = name, func, list(args), dict(kwargs or {})
        self.summary, self.allow_inf, self.also_documented = summary, allow_inf, also_documented
        self.expect = expect  # (outcome, words the message must hold) for a case whose answer is known
        self.family = None  # set by make_case: the target family the case was drawn for


def _state_case(rng, name, func, extra, chain_only=False):
    """A case for ``func(model, *state, *extra)``.

    ``extra(rng, model, state)`` returns (names, args, kinds) of the arguments after the model:
    kinds are ``"q"``, ``"array"``, ``"scalar"``, ``"index"`` or ``"fixed"`` (never mutated).
    """
    names = CHAINS if chain_only and rng.random() < 0.9 else list(MODELS)
    model_name = names[rng.integers(len(names))]
    model = MODELS[model_name]
    q, qd, qdd = valid_state(rng, model, special=rng.random() < 0.2)
    arg_names, args, kinds = extra(rng, model, (q, qd, qdd))
    arg_names, args, kinds = ["model"] + arg_names, [model] + args, ["model"] + kinds
    summary = [model_name]
    n_mutations = rng.choice([0, 1, 1, 1, 2])
    candidates = [i for i, k in enumerate(kinds) if k != "fixed"]
    for i in rng.choice(candidates, size=min(n_mutations, len(candidates)), replace=False):
        if kinds[i] == "model":
            label, args[i] = mutate(rng, model, "model")
        elif kinds[i] == "q":
            label, args[i] = bad_configuration(rng, model, args[i])
        else:
            label, args[i] = mutate(rng, args[i], kinds[i])
        summary.append(f"{arg_names[i]}: {label}")
    return Case(name, func, args, summary="; ".join(summary))


def _f_ext(rng, model):
    return rng.normal(size=(model.n_bodies, 6)) if rng.random() < 0.5 else None


def _state(*parts):
    """An ``extra`` for the common signatures: parts name the state vectors after the model."""
    def extra(rng, model, state):
        q, qd, qdd = state
        values = {"q": (q, "q"), "qd": (qd, "array"), "qdd": (qdd, "array"), "tau": (qdd, "array"),
                  "f_ext": (_f_ext(rng, model), "array"), "body": (int(rng.integers(model.n_bodies)), "index")}
        chosen = [values[p] for p in parts]
        return list(parts), [v for v, _ in chosen], [k for _, k in chosen]
    return extra


def _contact_extra(with_body):
    def extra(rng, model, state):
        q, qd, _ = state
        body = int(rng.integers(model.n_bodies))
        if rng.random() < 0.3:  # a line through the body's origin along its first joint axis: often unreachable
            kin = dl.forward_kinematics(model, q)
            point, direction = kin.p[body], rng.normal(size=3)
        else:
            point, direction = rng.normal(size=3), rng.normal(size=3)
        contact = dl.line_coordinates(point, direction)
        names = ["q", "qd", "contact", "epsilon"] + (["body"] if with_body else [])
        args = [q, qd, contact, float(rng.uniform(0, 1))] + ([body] if with_body else [])
        kinds = ["q", "array", "array", "scalar"] + (["index"] if with_body else [])
        return names, args, kinds
    return extra


def _hybrid_extra(rng, model, state):
    q, qd, qdd = state
    flags = list(rng.random(model.n_bodies) < 0.5)
    if rng.random() < 0.2:
        flags = flags[:-1] if rng.random() < 0.5 else "yes"
    return ["q", "qd", "qdd", "tau", "accel_given"], [q, qd, qdd, qdd, flags], ["q", "array", "array", "array", "fixed"]


def _split_extra(rng, model, state):
    q, qd, tau = state
    return ["q", "qd", "tau", "split"], [q, qd, tau, int(rng.integers(model.n_bodies + 1))], \
        ["q", "array", "array", "index"]


def _constraint(rng, model):
    if model.n_bodies == 1 or rng.random() < 0.3:
        return dl.LoopConstraint(model.n_bodies - 1, -1, point_a=rng.normal(size=3), point_b=rng.normal(size=3))
    a, b = sorted(rng.choice(model.n_bodies, size=2, replace=False))
    return dl.LoopConstraint(int(b), int(a), linear_axes=dl.PLANAR_POINT_AXES)


def _constrained_extra(rng, model, state):
    q, qd, tau = state
    constraints = [_constraint(rng, model)]
    if rng.random() < 0.2:
        constraints = pick(rng, [[], None, ["pin"], [constraints[0], "x"]])
    baumgarte = None if rng.random() < 0.5 else (float(rng.uniform(0, 10)), float(rng.uniform(0, 10)))
    return ["q", "qd", "tau", "constraints", "f_ext", "baumgarte"], \
        [q, qd, tau, constraints, _f_ext(rng, model), baumgarte], ["q", "array", "array", "fixed", "array", "fixed"]


def _simulate_extra(rng, model, state):
    q, qd, tau = state
    return ["q0", "qd0", "duration", "dt", "method", "tau"], \
        [q, qd, 0.02, 0.01, pick(rng, ["rk4", "semi-implicit-euler", "explicit-euler"]), tau], \
        ["q", "array", "scalar", "scalar", "fixed", "array"]


def _jacobian_extra(rng, model, state):
    frame = "world" if rng.random() < 0.5 else ("local" if rng.random() < 0.8 else "body")
    return ["q", "body", "frame"], [state[0], int(rng.integers(model.n_bodies)), frame], ["q", "index", "fixed"]


def _point_jacobian_extra(rng, model, state):
    return ["q", "body", "point"], [state[0], int(rng.integers(model.n_bodies)), rng.normal(size=3)], \
        ["q", "index", "array"]


def _kinematics_extra(rng, model, state):
    q, qd, qdd = state
    return ["q", "qd", "qdd"], [q, qd, qdd], ["q", "array", "array"]


#: model-based functions: name -> (function, extra, chain_only)
STATE_TARGETS = {
    "forward_kinematics": (dl.forward_kinematics, _kinematics_extra, False),
    "body_jacobian": (dl.body_jacobian, _jacobian_extra, False),
    "point_jacobian": (dl.point_jacobian, _point_jacobian_extra, False),
    "rnea": (dl.rnea, _state("q", "qd", "qdd", "f_ext"), False),
    "rnea_body_frame": (dl.rnea_body_frame, _state("q", "qd", "qdd", "f_ext"), False),
    "joint_wrenches": (dl.joint_wrenches, _state("q", "qd", "qdd", "f_ext"), False),
    "bias_forces": (dl.bias_forces, _state("q", "qd", "f_ext"), False),
    "crba": (dl.crba, _state("q"), False),
    "aba": (dl.aba, _state("q", "qd", "tau", "f_ext"), False),
    "aba_body_frame": (dl.aba_body_frame, _state("q", "qd", "tau", "f_ext"), False),
    "forward_dynamics_crba": (dl.forward_dynamics_crba, _state("q", "qd", "tau", "f_ext"), False),
    "hybrid_dynamics": (dl.hybrid_dynamics, _hybrid_extra, False),
    "articulated_mobility": (dl.articulated_mobility, _state("q", "qd", "tau", "f_ext"), True),
    "split_chain_dynamics": (dl.split_chain_dynamics, _split_extra, True),
    "impulse_propagation": (dl.impulse_propagation, _contact_extra(True), True),
    "contact_impulse": (dl.contact_impulse, _contact_extra(True), False),
    "constrained_forward_dynamics": (dl.constrained_forward_dynamics, _constrained_extra, False),
    "simulate": (dl.simulate, _simulate_extra, False),
    "system_energy": (dl.system_energy, _state("q", "qd"), False),
    "system_momentum": (dl.system_momentum, _state("q", "qd"), False),
    "system_centre_of_mass": (dl.system_centre_of_mass, _state("q"), False),
    "integrate": (dl.integrate, _state("q", "qd"), False),
    "joint_torque_regressor": (dl.joint_torque_regressor, _state("q", "qd", "qdd"), False),
    "energy_regressor": (dl.energy_regressor, _state("q", "qd"), False),
    "difference": (dl.difference, lambda rng, m, s: (["q0", "q1"], [s[0], dl.random_configuration(m, rng)],
                                                    ["q", "q"]), False),
}


# constructors and small functions: each returns a Case built from valid arguments and mutations

def _mutated_call(rng, name, func, args, kinds, **options):
    """Mutate zero, one or two of ``args`` (kinds as in :func:`mutate`; ``"fixed"`` is never mutated)."""
    args, summary = list(args), []
    candidates = [i for i, k in enumerate(kinds) if k != "fixed"]
    n = min(rng.choice([0, 1, 1, 1, 2]), len(candidates))
    for i in rng.choice(candidates, size=n, replace=False):
        label, args[i] = mutate(rng, args[i], kinds[i])
        summary.append(f"arg {i}: {label}")
    return Case(name, func, args, summary="; ".join(summary) or "valid", **options)


def _bad_inertia_3(rng):
    """A rotational inertia and its label: valid, or one of the impossible kinds."""
    I_c = np.diag(rng.uniform(0.5, 1.0, size=3))
    choice = rng.integers(6)
    if choice == 1:
        I_c[0, 1] = 0.3
        return I_c, "asymmetric inertia_com"
    if choice == 2:
        I_c[0, 0] = -0.1
        return I_c, "inertia_com not positive definite"
    if choice == 3:
        return np.diag([0.1, 0.1, 1.0]), "inertia_com violates the triangle inequality"
    if choice == 4:
        return np.zeros((3, 3)), "zero inertia_com"
    return I_c, "valid inertia_com"


def _spatial_inertia_case(rng):
    I_c, label = _bad_inertia_3(rng)
    case = _mutated_call(rng, "spatial_inertia", dl.spatial_inertia,
                         [float(rng.uniform(0.1, 3)), rng.normal(size=3), I_c], ["scalar", "array", "array"])
    case.summary = f"{label}; {case.summary}"
    return case


def _bad_spatial_inertia(rng):
    """A 6x6 inertia for a Model: valid, zero (massless), or impossible."""
    choice = rng.integers(7)
    I = dl.random_inertia(rng)
    if choice == 1:
        return np.zeros((6, 6)), "massless"
    if choice == 2:
        return -I, "negative mass"
    if choice == 3:
        I[0, 5] += 0.5
        return I, "asymmetric"
    if choice == 4:
        return dl.spatial_inertia(1.0, [0, 0, 0], np.eye(3)) - np.diag([0, 0, 0, 2, 0, 0]), "not positive definite"
    if choice == 5:
        return np.eye(6) * 1e-300, "tiny"
    return I, "valid"


def _model_case(rng):
    n = int(rng.integers(1, 4))
    base = dl.random_tree(n, int(rng.integers(1000)), kinds=list(dl.JOINT_KINDS))
    parts = {"parent": list(base.parent), "joints": list(base.joints), "placements": base.placements.copy(),
             "inertias": base.inertias.copy(), "gravity": base.gravity.copy(), "names": list(base.names)}
    summary = []
    key = list(parts)[rng.integers(len(parts))]
    if key == "inertias" and rng.random() < 0.6:
        parts["inertias"][-1], label = _bad_spatial_inertia(rng)
    elif key == "placements" and rng.random() < 0.5:
        T = np.eye(4)
        T[:3, :3] = pick(rng, [np.diag([2.0, 1, 1]), np.diag([-1.0, 1, 1]), np.zeros((3, 3))])
        parts["placements"][-1], label = T, "not a rotation"
    elif key == "parent" and rng.random() < 0.6:
        parts["parent"][-1] = pick(rng, [n, -2, 0.5, "0", None])
        label = f"parent[-1] = {parts['parent'][-1]!r}"
    elif key == "joints" and rng.random() < 0.6:
        parts["joints"][-1] = pick(rng, ["revolute", None, 3])
        label = f"joints[-1] = {parts['joints'][-1]!r}"
    elif key == "names" and rng.random() < 0.6:
        parts["names"][-1] = pick(rng, [None, 3, parts["names"][0] if n > 1 else 7])
        label = f"names[-1] = {parts['names'][-1]!r}"
    else:
        label, parts[key] = mutate(rng, parts[key], "array")
    summary.append(f"{key}: {label}")
    return Case("Model", dl.Model, [], parts, summary="; ".join(summary))


def _joint_case(rng):
    kind = pick(rng, ["revolute", "prismatic", "helical", "Joint"])
    if kind == "helical":
        return _mutated_call(rng, "helical", dl.helical, [rng.normal(size=3), 0.1], ["array", "scalar"])
    if kind == "Joint":
        kind_arg = pick(rng, list(dl.JOINT_KINDS) + ["ball", "", None, 3])
        axis = rng.normal(size=3) if kind_arg in ("revolute", "prismatic", "helical") else None
        if rng.random() < 0.3:
            axis = pick(rng, [None, np.zeros(3), np.array([np.nan, 0, 1])])
        return Case("Joint", dl.Joint, [kind_arg, axis], summary=f"kind={kind_arg!r}, axis={axis}")
    return _mutated_call(rng, kind, getattr(dl, kind), [rng.normal(size=3)], ["array"])


def _screw_case(rng):
    which = rng.integers(8)
    v = rng.normal(size=6)
    if which == 0:
        pitch = pick(rng, [0.0, 0.3, np.inf])
        return _mutated_call(rng, "twist_from_screw", dl.twist_from_screw,
                             [rng.normal(size=3), rng.normal(size=3), pitch, 1.5],
                             ["array", "array", "scalar", "scalar"])
    if which == 1:
        return _mutated_call(rng, "wrench_from_screw", dl.wrench_from_screw,
                             [rng.normal(size=3), rng.normal(size=3), 0.2, 2.0], ["array", "array", "scalar", "scalar"])
    if which == 2:
        if rng.random() < 0.2:
            v[3:] = 0  # pure translation: infinite pitch, documented
        return _mutated_call(rng, "screw_of_twist", dl.screw_of_twist, [v], ["array"], allow_inf=True)
    if which == 3:
        return _mutated_call(rng, "screw_of_wrench", dl.screw_of_wrench, [v], ["array"], allow_inf=True)
    if which == 4:
        return _mutated_call(rng, "line_coordinates", dl.line_coordinates, [rng.normal(size=3), rng.normal(size=3)],
                             ["array", "array"])
    if which == 5:
        p = rng.normal(size=3)
        return _mutated_call(rng, "line_through_points", dl.line_through_points,
                             [p, p if rng.random() < 0.2 else rng.normal(size=3)], ["array", "array"])
    if which == 6:
        return _mutated_call(rng, "cylindroid", dl.cylindroid, [v, rng.normal(size=6), 0.4],
                             ["array", "array", "scalar"], allow_inf=True)
    b = rng.normal(size=6)
    if rng.random() < 0.2:
        b[3:] = v[3:]  # parallel angular parts
    return _mutated_call(rng, "principal_screws", dl.principal_screws, [v, b], ["array", "array"])


def _quaternion_case(rng):
    q = dl.random_quaternion(rng)
    which = rng.integers(9)
    if which == 0:
        return _mutated_call(rng, "rotation_from_quaternion", dl.rotation_from_quaternion, [q], ["array"])
    if which == 1:
        R = dl.random_rotation(rng)
        if rng.random() < 0.3:
            R = pick(rng, [np.eye(3) * -5, np.zeros((3, 3)), rng.normal(size=(3, 3)), np.diag([1.0, -1, -1])])
        return _mutated_call(rng, "quaternion_from_rotation", dl.quaternion_from_rotation, [R], ["array"])
    if which == 2:
        return _mutated_call(rng, "quaternion_multiply", dl.quaternion_multiply, [q, dl.random_quaternion(rng)],
                             ["array", "array"])
    if which == 3:
        return _mutated_call(rng, "quaternion_conjugate", dl.quaternion_conjugate, [q], ["array"])
    if which == 4:
        return _mutated_call(rng, "quaternion_rate_matrix", dl.quaternion_rate_matrix, [q], ["array"])
    if which == 5:
        return _mutated_call(rng, "quaternion_from_rotation_vector", dl.quaternion_from_rotation_vector,
                             [rng.normal(size=3)], ["array"])
    if which == 6:
        return _mutated_call(rng, "normalize_quaternion", dl.normalize_quaternion, [q * 3], ["array"])
    if which == 7:
        return _mutated_call(rng, "rotation_about_axis", dl.rotation_about_axis, [rng.normal(size=3), 0.7],
                             ["array", "scalar"])
    return _mutated_call(rng, "rotation_from_rpy", dl.rotation_from_rpy, [0.1, -0.2, 0.3],
                         ["scalar", "scalar", "scalar"])


# -- the geometry modules: spatial algebra, Lie groups, inertia, decompositions, projective
# geometry, rotations and the marker functions ----------------------------------------------

def _symbols(n, name="x"):
    """A sympy object array of ``n`` symbols (the symbolic path of a function must work too)."""
    import sympy as sp

    return np.array(sp.symbols(f"{name}0:{n}", real=True), dtype=object)


def _rotation_defect(rng, R):
    """``R`` made into a matrix that is no rotation (or a rotation by about pi), with a label."""
    choice = rng.integers(4)
    if choice == 0:
        return "scaled rotation", 1.5 * R
    if choice == 1:
        return "reflection", -R
    if choice == 2:
        return "non-orthogonal", R + 0.1 * rng.normal(size=R.shape)
    return "rotation by about pi", dl.rotation_about_axis(rng.normal(size=3), np.pi * (1 - pick(rng, [0, 1e-9, 1e-5])))


def _bad_rotation(rng, R):
    """A mutation of a rotation matrix: a defect, or an array mutation."""
    return _rotation_defect(rng, R) if rng.random() < 0.6 else mutate(rng, R, "array")


def _bad_pose(rng, T):
    """A mutation of a 4x4 homogeneous matrix: a wrong last row, a defective rotation, or an array mutation."""
    T = np.array(T, dtype=float)
    choice = rng.integers(3)
    if choice == 0:
        T[3] = pick(rng, [[0.0, 0, 0, 2], [0.0, 0, 1, 1], [0.0, 0, 0, 0]])
        return "bad last row", T
    if choice == 1:
        label, T[:3, :3] = _rotation_defect(rng, T[:3, :3])
        return f"R: {label}", T
    return mutate(rng, T, "array")


def _bad_rng(rng, value):
    """Something other than a numpy Generator."""
    label = pick(rng, ["None", "int seed", "string", "legacy RandomState", "array"])
    return label, {"None": None, "int seed": 3, "string": "rng", "legacy RandomState": np.random.RandomState(0),
                   "array": np.ones(3)}[label]


def _kinematics_of(rng, model, with_v=True, with_a=True):
    q, qd, qdd = valid_state(rng, model, special=rng.random() < 0.2)
    return dl.forward_kinematics(model, q, qd if with_v else None, qdd if with_v and with_a else None)


def _bad_kinematics(rng, kin):
    """Kinematics of another model, or something else."""
    if rng.random() < 0.4:
        other = pick(rng, ["planar_chain(1)", "kuka iiwa14", "branched tree"])
        return f"kinematics of {other}", _kinematics_of(rng, MODELS[other])
    label = pick(rng, ["None", "string", "model", "tuple"])
    return label, {"None": None, "string": "kin", "model": MODELS["double_pendulum"],
                   "tuple": (kin.R, kin.p)}[label]


def _bad_decomposition(rng, dec):
    """A decomposition not normalised, of the wrong size, holding NaN, or something else."""
    choice = rng.integers(5)
    if choice == 0:
        return "basic (not normalised)", dl.basic_decomposition(dec.s, np.diag(rng.uniform(1, 3, size=len(dec.s))))
    if choice == 1:
        return "planar decomposition", dl.subspace_decomposition(np.array([0.0, 0, 1]), np.diag([1.0, 1, 0.2]))
    if choice == 2:
        return "NaN in T", dl.Decomposition(dec.s, dec.U, np.full_like(dec.T, np.nan), dec.R)
    label = pick(rng, ["None", "string", "tuple of 3"])
    return label, {"None": None, "string": "dec", "tuple of 3": tuple(dec)[:3]}[label]


#: mutations of structured arguments: kind -> function(rng, good) -> (label, bad value)
STRUCTURED_MUTATIONS = {
    "rotation": _bad_rotation,
    "pose": _bad_pose,
    "rng": _bad_rng,
    "kin": _bad_kinematics,
    "dec": _bad_decomposition,
}


def _random_pose(rng, special=False):
    if special:
        return dl.homogeneous(dl.rotation_about_axis(rng.normal(size=3), np.pi), rng.normal(size=3))
    return dl.homogeneous(dl.random_rotation(rng), rng.normal(size=3))


def _vectors(rng, n, count, batch=False):
    """``count`` random n-vectors (a batch of two each, sometimes), one of them zero sometimes."""
    shape = (2, n) if batch else (n,)
    out = [rng.normal(size=shape) for _ in range(count)]
    if rng.random() < 0.1:
        out[rng.integers(count)] = np.zeros(shape)
    return out


def _spatial_case(rng):
    which = rng.integers(10)
    batch = rng.random() < 0.2
    symbolic = not batch and rng.random() < 0.05
    if which in (0, 2, 5, 6) and rng.random() < 0.1:  # batch axes that do not broadcast
        n = 3 if which in (0, 2) else 6
        args = [rng.normal(size=(2, n)), rng.normal(size=(3, n))]
        func = {0: dl.cross3, 2: dl.cross3, 5: dl.cross_motion, 6: dl.cross_force}[which]
        return Case(func.__name__, func, args, summary="batch shapes (2,) and (3,)")
    if which == 0:
        w = _symbols(3, "w") if symbolic else _vectors(rng, 3, 1, batch)[0]
        return _mutated_call(rng, "skew", dl.skew, [w], ["array"])
    if which == 1:
        S = dl.skew(rng.normal(size=3)) if rng.random() < 0.7 else rng.normal(size=(2, 3, 3) if batch else (3, 3))
        return _mutated_call(rng, "unskew", dl.unskew, [S], ["array"])
    if which == 2:
        args = [_symbols(3, "a"), _symbols(3, "b")] if symbolic else _vectors(rng, 3, 2, batch)
        return _mutated_call(rng, "cross3", dl.cross3, args, ["array", "array"])
    if which in (3, 4):
        func = dl.crm if which == 3 else dl.crf
        v = _symbols(6, "v") if symbolic else _vectors(rng, 6, 1, batch)[0]
        return _mutated_call(rng, func.__name__, func, [v], ["array"])
    if which in (5, 6):
        func = dl.cross_motion if which == 5 else dl.cross_force
        args = [_symbols(6, "v"), _symbols(6, "m")] if symbolic else _vectors(rng, 6, 2, batch)
        if not symbolic and not batch and rng.random() < 0.2:
            args[1] = rng.normal(size=(2, 6))  # one vector against a batch: broadcast
        return _mutated_call(rng, func.__name__, func, args, ["array", "array"])
    if which in (7, 8):
        func = dl.motion_transform if which == 7 else dl.force_transform
        R = np.stack([dl.random_rotation(rng) for _ in range(2)]) if batch else dl.random_rotation(rng)
        p = rng.normal(size=3)
        if symbolic:  # a rotation with exact entries: rounding floats to rationals is slow
            R, p = np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 1]]), _symbols(3, "p")
        return _mutated_call(rng, func.__name__, func, [R, p], ["rotation", "array"])
    X = dl.motion_transform(dl.random_rotation(rng), rng.normal(size=3))
    if batch:
        X = np.stack([X, X.T])
    return _mutated_call(rng, "inverse_transform", dl.inverse_transform, [X], ["array"])


def _liegroup_case(rng):
    which = rng.integers(13)
    special = rng.random() < 0.2
    T = _random_pose(rng, special)
    V = rng.normal(size=6)
    if special:
        V[3:] = pick(rng, [np.zeros(3), np.array([np.pi, 0, 0]), np.array([0, 1e-9, 0]), np.array([0, 0, 2 * np.pi])])
    if which == 0:
        return _mutated_call(rng, "homogeneous", dl.homogeneous, [dl.random_rotation(rng), rng.normal(size=3)],
                             ["rotation", "array"])
    if which in (1, 2, 5, 6, 12):
        func = {1: dl.homogeneous_inverse, 2: dl.rotation_translation, 5: dl.Ad, 6: dl.Ad_dual, 12: dl.log_se3}[which]
        return _mutated_call(rng, func.__name__, func, [T], ["pose"])
    if which in (3, 7, 8, 11):
        func = {3: dl.hat, 7: dl.ad, 8: dl.ad_dual, 11: dl.exp_se3}[which]
        if rng.random() < 0.05:
            V = _symbols(6, "V")
        return _mutated_call(rng, func.__name__, func, [V], ["array"])
    if which == 4:
        M = dl.hat(V) if rng.random() < 0.8 else rng.normal(size=(4, 4))
        return _mutated_call(rng, "vee", dl.vee, [M], ["array"])
    if which == 9:
        return _mutated_call(rng, "exp_so3", dl.exp_so3, [V[3:]], ["array"])
    return _mutated_call(rng, "log_so3", dl.log_so3, [T[:3, :3]], ["rotation"])


def _inertia_case(rng):
    which = rng.integers(9)
    I = dl.random_inertia(rng)
    v = rng.normal(size=6)
    if rng.random() < 0.2:  # a batch of two bodies
        I, v = np.stack([I, dl.random_inertia(rng)]), rng.normal(size=(2, 6))
    if which == 0:
        I_c, label = _bad_inertia_3(rng)
        case = _mutated_call(rng, "check_rotational_inertia", dl.check_rotational_inertia, [I_c], ["array"])
        case.summary = f"{label}; {case.summary}"
        return case
    if which == 1:
        I, label = _bad_spatial_inertia(rng)
        case = _mutated_call(rng, "inertia_parameters", dl.inertia_parameters, [I], ["array"])
        case.summary = f"{label}; {case.summary}"
        return case
    if which == 2:
        X = dl.motion_transform(dl.random_rotation(rng), rng.normal(size=3))
        return _mutated_call(rng, "transform_inertia", dl.transform_inertia, [X, I], ["array", "array"])
    if which in (3, 4):
        func = dl.kinetic_energy if which == 3 else dl.momentum
        return _mutated_call(rng, func.__name__, func, [I, v], ["array", "array"])
    if which == 5:
        point = None if rng.random() < 0.3 else rng.normal(size=3)
        return _mutated_call(rng, "angular_momentum", dl.angular_momentum, [I, v, point],
                             ["array", "array", "fixed" if point is None else "array"])
    if which == 6:
        return _mutated_call(rng, "planar_link_inertia", dl.planar_link_inertia, [float(rng.uniform(0.1, 2))],
                             ["scalar"])
    if which == 7:
        return _mutated_call(rng, "planar_body_inertia", dl.planar_body_inertia,
                             [float(rng.uniform(0.1, 3)), rng.normal(size=2), float(rng.uniform(0.05, 1))],
                             ["scalar", "array", "scalar"])
    return _mutated_call(rng, "random_inertia", dl.random_inertia, [rng, (0.5, 2.0), 0.3], ["rng", "array", "scalar"])


def _subspace(rng, n=6):
    """A motion subspace (n, k): a joint's, a random one, rank deficient sometimes, or a vector."""
    choice = rng.integers(6)
    if choice == 0 and n == 6:
        kind = pick(rng, ["revolute", "prismatic", "helical", "spherical", "translational", "free"])
        axis = rng.normal(size=3) if kind in ("revolute", "prismatic", "helical") else None
        return dl.Joint(kind, axis, 0.1 if kind == "helical" else 0).S
    if choice == 1:
        return rng.normal(size=n)
    if choice == 2:
        s = rng.normal(size=(n, 2))
        s[:, 1] = 2 * s[:, 0]  # rank deficient
        return s
    return rng.normal(size=(n, int(rng.integers(1, n))))


def _decomposition_case(rng):
    which = rng.integers(8)
    planar = rng.random() < 0.2
    n = 3 if planar else 6
    I = dl.planar_body_inertia(1.2, rng.normal(size=2), 0.4) if planar else dl.random_inertia(rng)
    if rng.random() < 0.1:
        I = pick(rng, [np.zeros((n, n)), -I, I + np.triu(np.ones((n, n)), 1)])
    s = _subspace(rng, n)
    if which == 0:
        return _mutated_call(rng, "reaction_subspace", dl.reaction_subspace, [s], ["array"])
    if which in (1, 2):
        func = dl.basic_decomposition if which == 1 else dl.subspace_decomposition
        k = 1 if np.ndim(s) == 1 else s.shape[1]
        R = None  # the default reaction basis, or a given one: the right one or any n x (n - k)
        if rng.random() < 0.4:
            R = dl.reaction_subspace(s) if rng.random() < 0.7 and np.linalg.matrix_rank(s) == k \
                else rng.normal(size=(n, n - k))
        return _mutated_call(rng, func.__name__, func, [s, I, R], ["array", "array", "fixed" if R is None else "array"])
    if which == 3:
        k = 1 if np.ndim(s) == 1 else s.shape[1]
        U = rng.normal(size=(n, max(n - k, 0)))
        return _mutated_call(rng, "dual_decomposition", dl.dual_decomposition, [s, U], ["array", "array"])
    s = rng.normal(size=(n, int(rng.integers(1, n + 1))))
    try:
        dec = dl.subspace_decomposition(s, dl.planar_body_inertia(1.2, [0.3, 0.1], 0.4) if planar else I)
    except ValueError:
        I = dl.planar_body_inertia(1.2, [0.3, 0.1], 0.4) if planar else dl.random_inertia(rng)
        dec = dl.subspace_decomposition(s, I)
    if which in (4, 5):
        func = dl.motion_components if which == 4 else dl.force_components
        x = rng.normal(size=(2, n) if rng.random() < 0.2 else n)
        return _mutated_call(rng, func.__name__, func, [dec, x], ["dec", "array"])
    func = dl.projected_acceleration if which == 6 else dl.projected_force
    k = dec.s.shape[1]
    args = [dec, I, rng.normal(size=n), rng.normal(size=n), rng.normal(size=k), rng.normal(size=n), rng.normal(size=n)]
    return _mutated_call(rng, func.__name__, func, args, ["dec"] + ["array"] * 6)


def _projective_case(rng):
    which = rng.integers(11)
    batch = rng.random() < 0.2
    shape2, shape3 = ((2, 2), (2, 3)) if batch else ((2,), (3,))
    x = rng.normal(size=shape3)
    if rng.random() < 0.15:  # a point or a line at infinity
        x[..., 0] = 0.0
    if which == 0:
        return _mutated_call(rng, "homogeneous_point", dl.homogeneous_point,
                             [rng.normal(size=shape2), float(rng.normal())], ["array", "scalar"])
    if which == 1:
        return _mutated_call(rng, "homogeneous_line", dl.homogeneous_line,
                             [rng.normal(size=shape2), rng.normal(size=shape2)], ["array", "array"])
    if which == 2:
        return _mutated_call(rng, "cartesian_point", dl.cartesian_point, [x], ["array"])
    if which == 3:
        if rng.random() < 0.15:
            x[..., 1:] = 0.0
        return _mutated_call(rng, "line_point_direction", dl.line_point_direction, [x], ["array"])
    if which == 4:
        return _mutated_call(rng, "incidence", dl.incidence, [x, rng.normal(size=shape3)], ["array", "array"])
    if which in (5, 6, 7, 8):
        func = {5: dl.point_of_twist, 6: dl.twist_of_point, 7: dl.line_of_wrench, 8: dl.wrench_of_line}[which]
        return _mutated_call(rng, func.__name__, func, [x], ["array"])
    com = rng.normal(size=2)
    I = dl.planar_body_inertia(float(rng.uniform(0.1, 3)), com, float(rng.uniform(0.05, 1)))
    if rng.random() < 0.3:
        I = dl.spatial_inertia(1.0, [com[0], com[1], 0.0], np.diag([0.1, 0.2, 0.25]))
    if which == 9:
        return _mutated_call(rng, "inertia_point_line_map", dl.inertia_point_line_map, [I], ["array"])
    pivot = com if rng.random() < 0.2 else rng.normal(size=2)  # the centre of mass: the line at infinity
    return _mutated_call(rng, "percussion_axis", dl.percussion_axis, [I, pivot], ["array", "array"])


def _rotation_helpers_case(rng):
    which = rng.integers(6)
    if which == 0:
        axis = pick(rng, [rng.normal(size=3), np.zeros(3), np.array([1e-13, 0, 0]), np.array([1e200, 1e200, 0])])
        return _mutated_call(rng, "unit_axis", dl.unit_axis, [axis], ["array"])
    if which == 1:
        q = dl.random_quaternion(rng) * pick(rng, [1.0, 1.0, 1 + 1e-12, 1 + 1e-6, 2.0])
        if rng.random() < 0.2:
            q = np.stack([q, dl.random_quaternion(rng)])
        return _mutated_call(rng, "check_unit_quaternion", dl.check_unit_quaternion, [q], ["array"])
    if which in (2, 3):
        func = dl.random_rotation if which == 2 else dl.random_quaternion
        return _mutated_call(rng, func.__name__, func, [np.random.default_rng(int(rng.integers(100)))], ["rng"])
    a, b = rng.normal(size=6), rng.normal(size=6)
    if rng.random() < 0.2:
        a, b = rng.normal(size=(2, 6)), rng.normal(size=(2, 6))
    return _mutated_call(rng, "reciprocal_product", dl.reciprocal_product, [a, b], ["array", "array"])


def _marker_case(rng):
    which = rng.integers(3)
    model_name = list(MODELS)[rng.integers(len(MODELS))]
    model = MODELS[model_name]
    kin = _kinematics_of(rng, model, with_v=rng.random() < 0.7, with_a=rng.random() < 0.7)
    body = int(rng.integers(model.n_bodies))
    if which == 2:
        case = _mutated_call(rng, "centres_of_mass", dl.centres_of_mass, [model, kin], ["model", "kin"])
    else:
        func = dl.marker_motion if which == 0 else dl.direction_marker_motion
        case = _mutated_call(rng, func.__name__, func, [kin, body, rng.normal(size=3)], ["kin", "index", "array"])
    case.summary = f"{model_name}; {case.summary}"
    return case


URDF = """<robot name="fuzz">
  <link name="base"/>
  <joint name="j1" type="revolute">
    <parent link="base"/><child link="l1"/><origin xyz="0 0 0.1" rpy="0 0 0.2"/><axis xyz="0 0 1"/>
  </joint>
  <link name="l1"><inertial><origin xyz="0 0 0.2" rpy="0 0 0"/><mass value="1.5"/>
    <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.01"/></inertial></link>
  <joint name="j2" type="prismatic">
    <parent link="l1"/><child link="l2"/><origin xyz="0 0 0.4"/><axis xyz="1 0 0"/>
  </joint>
  <link name="l2"><inertial><mass value="0.5"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <joint name="flange" type="fixed">
    <parent link="l2"/><child link="tool"/><origin xyz="0.1 0 0"/>
  </joint>
  <link name="tool"><inertial><mass value="0.1"/>
    <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial></link>
</robot>"""

#: replacement values for one attribute of the URDF
URDF_VALUES = ["nan", "inf", "-1", "0", "", "abc", "1 2", "1e400", "0 0 0", "nan 0 0", "1 0 0 0", "floating",
               "planar", "nowhere", "base", "l1", "1e-300"]


def _urdf_case(rng):
    text, label = URDF, "valid"
    choice = rng.integers(6)
    attributes = re.findall(r'(\w+)="([^"]*)"', URDF)
    if choice <= 2:  # one attribute value replaced
        name, value = attributes[rng.integers(len(attributes))]
        new = URDF_VALUES[rng.integers(len(URDF_VALUES))]
        start = [m.start(2) for m in re.finditer(r'(\w+)="([^"]*)"', URDF)][rng.integers(len(attributes))]
        end = URDF.index('"', start)
        text = URDF[:start] + new + URDF[end:]
        label = f"attribute at {start} -> {new!r}"
    elif choice == 3:  # one element removed
        tags = list(re.finditer(r"<(\w+)[^<>]*/>", URDF))
        m = tags[rng.integers(len(tags))]
        text, label = URDF[:m.start()] + URDF[m.end():], f"removed {m.group(0)[:40]!r}"
    elif choice == 4:  # truncated or garbled
        cut = int(rng.integers(len(URDF)))
        text = URDF[:cut] if rng.random() < 0.5 else URDF[:cut] + "<<&>" + URDF[cut:]
        label = f"cut/garbled at {cut}"
    elif rng.random() < 0.5:
        text, label = pick(rng, ["", "   ", "<robot/>", "<robot><link name='a'/></robot>", "<a>"]), "tiny document"
    else:
        text = pick(rng, [None, 123, b"<robot/>", 4.5])
        label = f"source={text!r}"
    kwargs = {"floating_base": True} if rng.random() < 0.3 else {}  # drawn last: the draws above stay as they were
    return Case("load_urdf", dl.load_urdf, [text], kwargs, summary=label + " floating" * bool(kwargs),
                also_documented=(OSError,))


#: constructors and the geometry modules: family -> (case generator, weight)
def _hostile_case(rng):
    """Inputs an independent hostile-input campaign found mishandled, each with the outcome it must have.

    A NaN or infinity in hybrid dynamics' mask of prescribed joints; a mobility matrix holding NaN;
    axes and contact lines of size 1e300 (a direction of any finite length is fine; a contact line
    that large overflows and must be refused for its size, not "cannot be moved by the chain");
    joint forces or external wrenches without velocities in articulated mobility (they would be
    ignored); and non-finite values in the arguments of builders that go unused (the last length).
    """
    chain = MODELS["revolute chain"]
    q, qd = np.zeros(chain.nq), np.ones(chain.nv)
    which = int(rng.integers(6))
    bad = pick(rng, [np.nan, np.inf, -np.inf])
    if which == 0:
        flags = [True] * chain.n_bodies
        flags[int(rng.integers(chain.n_bodies))] = pick(rng, [np.nan, np.inf, 2.0, -1.0, "yes"])
        return Case("hybrid_dynamics", dl.hybrid_dynamics, [chain, q, qd, qd, qd, flags], summary="bad mask entry",
                    expect=("error", "accel_given"))
    if which == 1:
        L = dl.articulated_mobility(chain, q).Lambda_inv[-1].copy()
        L[tuple(rng.integers(6, size=2))] = bad
        func = pick(rng, [dl.point_mobility, dl.mobility_ellipse])
        return Case(func.__name__, func, [L, [1.0, 0.0, 0.0]], summary="non-finite mobility",
                    expect=("error", "Lambda_inv"))
    if which == 2:
        scale = pick(rng, [1e300, 1e-300, 1e40])
        return Case("Joint", dl.Joint, ["revolute", rng.normal(size=3) * scale], summary=f"axis of size {scale:g}",
                    expect=("error", "non-zero") if scale < 1 else ("ok", None))
    if which == 3:
        n = dl.line_coordinates([2.0, 0.0, 0.0], [0.0, 1.0, 0.0]) * pick(rng, [1e300, 1e41])
        func = pick(rng, [dl.impulse_propagation, dl.contact_impulse])
        return Case(func.__name__, func, [chain, q, qd, n, 0.5], summary="contact line of size 1e41 or more",
                    expect=("error", "magnitude"))
    if which == 4:
        extra = pick(rng, [dict(tau=qd), dict(f_ext=np.ones((chain.n_bodies, 6)))])
        return Case("articulated_mobility", dl.articulated_mobility, [chain, q], kwargs=extra,
                    summary=f"{next(iter(extra))} without qd", expect=("error", "need qd"))
    n = int(rng.integers(1, 4))
    parts = [np.ones(n), np.full(n, 0.5), np.ones(n)]
    parts[int(rng.integers(3))][-1] = bad
    return Case("serial_chain", dl.serial_chain, [*parts, np.tile(np.eye(3) / 12, (n, 1, 1))],
                summary="non-finite last entry", expect=("error", "finite"))


OTHER_TARGETS = {
    "hostile inputs": (_hostile_case, 3.0),
    "Model": (_model_case, 3.0),
    "spatial_inertia": (_spatial_inertia_case, 2.0),
    "joints": (_joint_case, 2.0),
    "screws": (_screw_case, 3.5),
    "quaternions": (_quaternion_case, 3.5),
    "load_urdf": (_urdf_case, 2.5),
    "spatial": (_spatial_case, 5.0),
    "liegroup": (_liegroup_case, 6.0),
    "inertia": (_inertia_case, 4.5),
    "decompositions": (_decomposition_case, 4.0),
    "projective": (_projective_case, 5.0),
    "rotation helpers": (_rotation_helpers_case, 2.5),
    "markers": (_marker_case, 2.0),
}


def make_case(seed, index):
    """Case ``index`` of seed ``seed`` (its own generator, so any case replays alone)."""
    rng = np.random.default_rng([seed, index])
    names = list(STATE_TARGETS) + list(OTHER_TARGETS)
    # the model-based functions get about half of the cases, the rest by the size of each family
    weights = np.array([2.0] * len(STATE_TARGETS) + [w for _, w in OTHER_TARGETS.values()])
    name = names[rng.choice(len(names), p=weights / weights.sum())]
    if name in OTHER_TARGETS:
        case = OTHER_TARGETS[name][0](rng)
        case.family = name
        return case
    func, extra, chain_only = STATE_TARGETS[name]
    case = _state_case(rng, name, func, extra, chain_only)
    case.family = "model-based"
    return case


# -- the campaign -------------------------------------------------------------------------

#: function name -> the family of targets it was drawn from (filled by :func:`run`)
FAMILY_OF = {}


def run(cases=DEFAULT_CASES, seed=0, time_limit=TIME_LIMIT, only=None, verbose=False, out=None):
    """Run ``cases`` cases; return ``(counts, unexpected)``.

    counts : dict function -> Counter of "ok", "error", "unexpected"
    unexpected : list of (case index, function, summary, detail)
    """
    out = out or sys.stdout
    dl.compile_kernels()  # compile first: the time limit is for the calls, not for numba
    counts, unexpected = defaultdict(Counter), []
    indices = range(cases) if only is None else [only]
    for index in indices:
        case = make_case(seed, index)
        FAMILY_OF[case.name] = case.family
        outcome, detail = classify(case.func, case.args, case.kwargs, time_limit, case.allow_inf,
                                   case.also_documented)
        if case.expect is not None and outcome != "unexpected":
            want, words = case.expect
            if outcome != want or (words is not None and words not in detail):
                outcome, detail = "unexpected", f"expected {want} ({words}), got {outcome}: {detail}"
        counts[case.name][outcome] += 1
        if outcome == "unexpected":
            unexpected.append((index, case.name, case.summary, detail))
        if verbose:
            print(f"case {index}: {case.name} [{case.summary}] -> {outcome} {detail}", file=out)
    return counts, unexpected


def _kind_of(detail):
    """An unexpected outcome's detail without the numbers and the message tail, to group alike findings."""
    return re.sub(r"\d+", "N", detail.split(": ")[0] if "leaked" not in detail else detail[:90])


def report(counts, unexpected, seconds, show_all=False, out=None):
    """Print the counts per function, the totals, the counts per family and the unexpected outcomes
    (one per kind unless ``show_all``)."""
    out = out or sys.stdout

    def row(name, c):
        print(f"{name:32s} {sum(c.values()):6d} {c['ok']:6d} {c['error']:6d} {c['unexpected']:10d}", file=out)

    print(f"{'function':32s} {'cases':>6s} {'ok':>6s} {'error':>6s} {'UNEXPECTED':>10s}", file=out)
    total, families = Counter(), defaultdict(Counter)
    for name in sorted(counts):
        total.update(counts[name])
        families[FAMILY_OF.get(name, "other")].update(counts[name])
        row(name, counts[name])
    row("total", total)
    print(f"\n{'family':32s} {'cases':>6s} {'ok':>6s} {'error':>6s} {'UNEXPECTED':>10s}", file=out)
    for family in sorted(families):
        row(family, families[family])
    print(f"{seconds:.1f} s", file=out)
    groups = defaultdict(list)
    for finding in unexpected:
        groups[(finding[1], _kind_of(finding[3]))].append(finding)
    for (name, _), findings in sorted(groups.items()):
        for index, name, summary, detail in findings if show_all else findings[:1]:
            more = "" if show_all or len(findings) == 1 else f" (and {len(findings) - 1} more alike)"
            print(f"UNEXPECTED case {index}: {name} [{summary}]: {detail}{more}", file=out)
    return total


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=DEFAULT_CASES, help="number of cases (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default %(default)s)")
    parser.add_argument("--case", type=int, default=None, help="replay this case alone")
    parser.add_argument("--time-limit", type=float, default=TIME_LIMIT, help="seconds per call (default %(default)s)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every case")
    parser.add_argument("--all", action="store_true", help="list every unexpected case, not one of each kind")
    options = parser.parse_args(argv)
    start = time.perf_counter()
    counts, unexpected = run(options.cases, options.seed, options.time_limit, options.case, options.verbose)
    report(counts, unexpected, time.perf_counter() - start, options.all)
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
