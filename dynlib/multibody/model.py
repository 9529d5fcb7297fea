"""The immutable description of a tree of rigid bodies, and the joint-space vectors that go with it.

Bodies are numbered ``0 .. n-1`` with ``parent[i] < i``; ``-1`` is the fixed
world (several bodies may hang from it).  Body ``i`` is attached to its parent
by ``joints[i]``; the joint frame sits at ``placements[i]`` (a 4×4 pose in the
parent body's frame, or in the world frame for a root body) and body ``i``'s
own frame is the child frame of its joint, as in Lecture 4 and Alexiou (2023).
``inertias[i]`` is body ``i``'s spatial inertia about its own frame (linear
first); an all-zero inertia declares a massless connector body.

Chapter: *Rigid-body motion and joints*; Lecture 4 "Multibody Systems: Conventions";
Concurrent Dynamics (2017) "parent-first order".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..core.backend import (
    LARGEST_MAGNITUDE,
    as_array,
    broadcast_batch,
    check_finite,
    check_index,
    check_magnitude,
    check_scalar,
    exact,
    is_symbolic,
    zeros,
)
from ..core.compile import bounded, compiled_as, kernel, run
from ..spatial.algebra import cross3, skew
from ..spatial.inertia import check_rotational_inertia, inertia_parameters, principal_moments
from ..spatial.rotations import check_unit_quaternion
from .joints import KIND_CODES, Joint, compose, joint_pose

__all__ = [
    "Model",
    "ModelArrays",
    "State",
    "check_state",
    "neutral_configuration",
    "random_configuration",
    "random_velocity",
    "integrate",
    "difference",
    "check_configuration",
    "check_velocity",
    "check_external_forces",
]

DEFAULT_GRAVITY = (0.0, -9.81, 0.0)


def _readonly(a):
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class Model:
    """A validated, immutable tree of rigid bodies.

    Parameters
    ----------
    parent : sequence of int, length n
        ``parent[i] < i``; ``-1`` for a body attached to the world.
    joints : sequence of Joint, length n
    placements : array_like, shape (n, 4, 4)
        Pose of joint ``i``'s frame in the parent body's frame (the world for roots).
    inertias : array_like, shape (n, 6, 6)
        Spatial inertia of body ``i`` in its own frame; all zeros for a massless body.
    gravity : array_like, shape (3,)
        Gravitational acceleration in the world frame (default ``(0, -9.81, 0)``: y up).
    names : sequence of str, optional
        Unique body names (default ``"body0"``, ``"body1"``, ...).
    strict_inertias : bool
        True (default): every inertia must be a rigid body's (positive mass, rotational inertia
        about the centre of mass positive definite with principal moments obeying the triangle
        inequality ``I1 + I2 >= I3``).  False: inertias as read from a data file
        (:func:`load_urdf`), which has point masses, rotational inertias without mass, CAD
        moments breaking the triangle inequality and even negative principal moments: each is
        used as given if its mass is not negative and its rotational inertia is symmetric (the
        file reader warns about what no rigid body has).  Kept by :meth:`exact` and :meth:`first_bodies`.

    Attributes
    ----------
    n_bodies, nq, nv : int
    q_slices, v_slices : tuple of slice
        Where each joint's entries sit in ``q`` and in ``qd``/``qdd``/``tau``.
    arrays : ModelArrays
        The same tree as plain arrays indexed by body: what the kernels read.
    quaternion_joints : tuple of int
        The spherical and free joints (whose configurations hold a unit quaternion).
    children : tuple of tuple of int
    mass : ndarray, shape (n,)
    com : ndarray, shape (n, 3)
        Centre of mass of each body in its own frame (zeros for massless bodies).
    inertia_com : ndarray, shape (n, 3, 3)
        Rotational inertia of each body about its centre of mass, in its own axes.
    symbolic : bool
        True when placements, inertias, axes or gravity hold sympy expressions.

    Raises
    ------
    ValueError, TypeError
        When any part is malformed; the message names the body and what was expected.
    """

    parent: tuple
    joints: tuple
    placements: np.ndarray
    inertias: np.ndarray
    gravity: np.ndarray = field(default_factory=lambda: np.array(DEFAULT_GRAVITY))
    names: tuple = None
    strict_inertias: bool = True

    def __post_init__(self):
        parent = _as_tuple(self.parent, "parent")
        n = len(parent)
        if n == 0:
            raise ValueError("a model needs at least one body")
        for i, p in enumerate(parent):
            if not isinstance(p, (int, np.integer)) or isinstance(p, bool):
                raise TypeError(f"parent[{i}] must be an int, got {p!r}")
            if not -1 <= p < i:
                raise ValueError(f"parent[{i}] must satisfy -1 <= parent[i] < i, got {p}")
        parent = tuple(int(p) for p in parent)

        joints = _as_tuple(self.joints, "joints")
        if len(joints) != n:
            raise ValueError(f"joints must have length {n} (one per body), got {len(joints)}")
        for i, j in enumerate(joints):
            if not isinstance(j, Joint):
                raise TypeError(f"joints[{i}] must be a dynlib Joint, got {type(j).__name__}")

        placements = as_array(self.placements, "placements")
        if placements.shape != (n, 4, 4):
            raise ValueError(f"placements must have shape ({n}, 4, 4), got {placements.shape}")
        inertias = as_array(self.inertias, "inertias")
        if inertias.shape != (n, 6, 6):
            raise ValueError(f"inertias must have shape ({n}, 6, 6), got {inertias.shape}")
        gravity = as_array(self.gravity, "gravity")
        if gravity.shape != (3,):
            raise ValueError(f"gravity must have shape (3,), got {gravity.shape}")
        check_finite(gravity, "gravity")

        names = tuple(f"body{i}" for i in range(n)) if self.names is None else _as_tuple(self.names, "names")
        if len(names) != n or not all(isinstance(s, str) for s in names) or len(set(names)) != n:
            raise ValueError(f"names must be {n} distinct strings, got {names}")

        if not isinstance(self.strict_inertias, (bool, np.bool_)):
            raise TypeError(f"strict_inertias must be True or False, got {self.strict_inertias!r}")
        mass, com = [], []
        for i in range(n):
            _check_placement(placements[i], i)
            m, c = _check_inertia(inertias[i], i, bool(self.strict_inertias))
            mass.append(m)
            com.append(c)

        symbolic = is_symbolic(placements, inertias, gravity) or any(
            is_symbolic(j.S) for j in joints
        )
        if symbolic:
            placements, inertias, gravity = exact(placements), exact(inertias), exact(gravity)
            joints = tuple(_exact_joint(j) for j in joints)
        dtype = object if symbolic else float
        nq_list = [j.nq for j in joints]
        nv_list = [j.nv for j in joints]
        q_starts, v_starts = np.cumsum([0] + nq_list), np.cumsum([0] + nv_list)
        children = [[] for _ in range(n)]
        for i, p in enumerate(parent):
            if p >= 0:
                children[p].append(i)

        set_ = object.__setattr__
        set_(self, "parent", parent)
        set_(self, "joints", joints)
        set_(self, "placements", _readonly(placements.copy()))
        set_(self, "inertias", _readonly(inertias.copy()))
        set_(self, "gravity", _readonly(gravity.copy()))
        set_(self, "names", names)
        set_(self, "strict_inertias", bool(self.strict_inertias))
        set_(self, "n_bodies", n)
        set_(self, "nq", int(q_starts[-1]))
        set_(self, "nv", int(v_starts[-1]))
        set_(self, "q_slices", tuple(slice(int(a), int(b)) for a, b in zip(q_starts, q_starts[1:])))
        set_(self, "v_slices", tuple(slice(int(a), int(b)) for a, b in zip(v_starts, v_starts[1:])))
        set_(self, "children", tuple(tuple(c) for c in children))
        set_(self, "mass", _readonly(np.array(mass, dtype=dtype)))
        set_(self, "com", _readonly(np.array(com, dtype=dtype).reshape(n, 3)))
        C = skew(self.com)
        set_(self, "inertia_com", _readonly(inertias[:, 3:, 3:] + self.mass[:, None, None] * (C @ C)))
        set_(self, "symbolic", bool(symbolic))
        set_(self, "arrays", _arrays(self, q_starts, v_starts))
        set_(self, "quaternion_joints", tuple(i for i, j in enumerate(joints) if j.kind in ("spherical", "free")))

    def __repr__(self):
        kinds = ", ".join(j.kind for j in self.joints)
        return f"Model(n_bodies={self.n_bodies}, nq={self.nq}, nv={self.nv}, parent={self.parent}, joints=[{kinds}])"

    def __reduce__(self):
        """Pickled as its constructor's arguments: a copy is validated again, with read-only arrays like
        the original's (so compiled kernels see the same types and need no new compilation)."""
        return (type(self), (self.parent, self.joints, self.placements, self.inertias, self.gravity, self.names,
                             self.strict_inertias))

    def exact(self):
        """This model with every number made exact (sympy rationals), for symbolic work."""
        if self.symbolic:
            return self
        return Model(
            self.parent,
            tuple(_exact_joint(j) for j in self.joints),
            exact(self.placements),
            exact(self.inertias),
            exact(self.gravity),
            self.names,
            self.strict_inertias,
        )

    def first_bodies(self, k):
        """The model of bodies ``0 .. k-1`` alone (closed under parents since ``parent[i] < i``).

        For a serial chain this is the sub-chain from the base to body ``k - 1``.
        """
        if not isinstance(k, (int, np.integer)) or not 1 <= k <= self.n_bodies:
            raise ValueError(f"k must be an int in [1, {self.n_bodies}], got {k!r}")
        return Model(self.parent[:k], self.joints[:k], self.placements[:k], self.inertias[:k], self.gravity,
                     self.names[:k], self.strict_inertias)

    def is_chain(self):
        """True for a serial chain: ``parent[i] == i - 1`` for every body."""
        return self.parent == tuple(range(-1, self.n_bodies - 1))

    def ancestors(self, i):
        """Bodies from the root down to ``i`` (inclusive), in increasing order."""
        path = []
        while i >= 0:
            path.append(i)
            i = self.parent[i]
        return path[::-1]

    def subtree(self, i):
        """Body ``i`` and all its descendants, in increasing order."""
        inside = {i}
        for k in range(i + 1, self.n_bodies):
            if self.parent[k] in inside:
                inside.add(k)
        return sorted(inside)


class ModelArrays(NamedTuple):
    """A model as plain arrays indexed by body: what the kernels read (``m`` in their listings).

    Attributes
    ----------
    parent : ndarray of int, shape (n,)
        Parent of each body, ``-1`` for the world.
    kind : ndarray of int, shape (n,)
        Each joint's kind as its number in ``dynlib.joints.KIND_CODES``.
    q_start, v_start : ndarray of int, shape (n + 1,)
        Joint ``i``'s entries are ``q[q_start[i]:q_start[i + 1]]`` and ``qd[v_start[i]:v_start[i + 1]]``.
    axis : ndarray, shape (n, 3)
        Unit joint axes in the joint frames (zeros for joints without one).
    pitch : ndarray, shape (n,)
        Helical pitches (zero for the other joints).
    S : ndarray, shape (nv, 6)
        The unit twist of each entry of ``qd`` in its body's frame (a row per entry; joint ``i``'s
        motion subspace is ``S[v_start[i]:v_start[i + 1]].T``).
    R0, p0 : ndarray, shapes (n, 3, 3) and (n, 3)
        Placement of each joint frame in its parent's frame.
    mass, com, inertia_com : ndarray, shapes (n,), (n, 3), (n, 3, 3)
        Mass, centre of mass (body frame) and rotational inertia about it (body axes).
    a_base : ndarray, shape (6,)
        ``-[g; 0]``: the acceleration the base is given so that gravity needs no per-body term.
    """

    parent: np.ndarray
    kind: np.ndarray
    q_start: np.ndarray
    v_start: np.ndarray
    axis: np.ndarray
    pitch: np.ndarray
    S: np.ndarray
    R0: np.ndarray
    p0: np.ndarray
    mass: np.ndarray
    com: np.ndarray
    inertia_com: np.ndarray
    a_base: np.ndarray


def _arrays(model, q_starts, v_starts):
    dtype = object if model.symbolic else float
    zero = 0 if model.symbolic else 0.0
    axis = np.array([j.axis if j.axis is not None else [zero] * 3 for j in model.joints], dtype=dtype)
    S = np.concatenate([j.S.T for j in model.joints]).astype(dtype) if model.nv else np.zeros((0, 6), dtype)
    gravity = np.asarray(model.gravity, dtype=dtype)
    return ModelArrays(
        parent=np.array(model.parent, dtype=np.int64),
        kind=np.array([KIND_CODES[j.kind] for j in model.joints], dtype=np.int64),
        q_start=np.asarray(q_starts, dtype=np.int64),
        v_start=np.asarray(v_starts, dtype=np.int64),
        axis=_readonly(axis.reshape(model.n_bodies, 3)),
        pitch=_readonly(np.array([j.pitch for j in model.joints], dtype=dtype)),
        S=_readonly(np.ascontiguousarray(S)),
        R0=_readonly(np.ascontiguousarray(model.placements[:, :3, :3])),
        p0=_readonly(np.ascontiguousarray(model.placements[:, :3, 3])),
        mass=model.mass,
        com=model.com,
        inertia_com=_readonly(np.ascontiguousarray(model.inertia_com)),
        a_base=_readonly(np.concatenate([-gravity, np.zeros(3, dtype=dtype)])),
    )


def _as_tuple(x, name):
    """``x`` as a tuple, or a TypeError naming ``name``."""
    try:
        return tuple(x)
    except TypeError:
        raise TypeError(f"{name} must be a sequence (one entry per body), got {type(x).__name__}") from None


def _exact_joint(joint):
    if joint.axis is None:
        return joint
    return Joint(joint.kind, exact(joint.axis), exact(joint.pitch)[()])


def _check_placement(T, i):
    if is_symbolic(T):
        return
    check_finite(T, f"placements[{i}]")
    R = T[:3, :3]
    if not np.allclose(T[3], [0, 0, 0, 1], atol=1e-12):
        raise ValueError(f"placements[{i}] must have last row [0, 0, 0, 1], got {T[3].tolist()}")
    if not np.allclose(R.T @ R, np.eye(3), atol=1e-9) or np.linalg.det(R) < 0:
        raise ValueError(f"placements[{i}][:3, :3] must be a rotation matrix (orthonormal, det +1)")


def _check_inertia(I, i, strict=True):
    """Return (mass, com) of body i, validating the inertia (zero = massless).

    Not ``strict``: the triangle inequality is not asked for, a negative principal moment is
    accepted (the rotational inertia need only be symmetric: a data file's, used as given, whose
    reader reports it), and an inertia without mass may still have a rotational part (then mass
    and centre of mass are zero).  A negative mass is refused either way.
    """
    if is_symbolic(I):
        mass, com, I_c = inertia_parameters(I)
        check_rotational_inertia(I_c, f"inertias[{i}] rotational inertia about the centre of mass")
        return mass, com
    check_finite(I, f"inertias[{i}]")
    if not np.any(I):
        return 0.0, np.zeros(3)
    what = "rotational inertia about the centre of mass"
    try:
        if not strict and not np.any(I[:3]) and not np.any(I[3:, :3]):  # no mass: a rotational inertia alone
            principal_moments(I[3:, 3:], what, allow_negative=True)
            return 0.0, np.zeros(3)
        mass, com, I_c = inertia_parameters(I)
        if strict:
            check_rotational_inertia(I_c, what)
        else:  # symmetric, as given (the round-off of I_c = I_O + m skew(c) skew(c) is relative to I_O)
            principal_moments(I_c, what, scale=np.abs(I[3:, 3:]).max(), allow_negative=True)
    except ValueError as err:
        raise ValueError(f"inertias[{i}] is not a valid rigid-body inertia: {err}") from None
    return mass, com


def check_model(model):
    """Raise TypeError unless ``model`` is a :class:`Model` (the first argument of every algorithm)."""
    if not isinstance(model, Model):
        raise TypeError(f"model must be a dynlib Model, got {type(model).__name__}")
    return model


def check_body(model, body, name="body"):
    """Return ``body`` after checking it is the index of one of ``model``'s bodies."""
    check_model(model)
    check_index(body, model.n_bodies, name)
    return int(body)


def reference_point(m, q):
    """The point about which the kernels take moments: the origin of body 0's frame, in the world.

    Far from the world origin a moment about the origin is a large number whose terms cancel; about
    a point of the system they stay the size of the system, and every joint-space result is the same
    about any point.  :func:`dynlib.check_state` gives the kernels external wrenches about this point,
    and the doors move what they return back to the world origin.

    Parameters
    ----------
    m : ModelArrays
        The model's arrays (``model.arrays``).
    q : ndarray, shape (nq,)

    Returns
    -------
    ndarray, shape (3,)
        Zero for exact (sympy) states, which lose nothing far from the origin.
    """
    if is_symbolic(q, m.p0):
        return np.zeros(3, dtype=object)
    return _origin_of_body_0(m, q)


@kernel(inline=True)
def _origin_of_body_0(m, q):
    R_J, p_J = joint_pose(m.kind[0], m.axis[0], m.pitch[0], q[m.q_start[0] : m.q_start[1]])
    return compose(m.R0[0], m.p0[0], R_J, p_J)[1]


@compiled_as(reference_point, inline=True)
def _reference_point(m, q):
    return _origin_of_body_0(m, q)


@kernel
def reference_points(m, q):
    """:func:`~dynlib.kernels.reference_point` of a batch of configurations (``q`` of shape (B, nq))."""
    r = np.zeros((q.shape[0], 3))
    for b in range(q.shape[0]):
        r[b] = reference_point(m, q[b])
    return r


def reference_of(model, q, batch=()):
    """:func:`~dynlib.kernels.reference_point` of checked configurations ``q`` (batch axes ``batch``): shape
    ``batch + (3,)``."""
    if model.symbolic or is_symbolic(q):
        return np.zeros(3, dtype=object)
    return run(_origin_of_body_0, reference_points, model.arrays, (q,), batch)


def force_about(f, r):
    """Force vectors ``[f; n_O]`` about the world origin as ``[f; n_O - r x f]``, about the point ``r``.

    Far from the origin ``n_O`` and ``r x f`` are large and nearly equal: their products and sums are
    carried exactly (error-free transformations, :func:`_exact_product`) and rounded once, so that the
    moment about ``r`` is as accurate as ``n_O`` itself allows.  ``f`` has shape (..., 6) and ``r``
    broadcasts against ``f[..., :3]``.
    """
    if is_symbolic(f, r):
        return np.concatenate([f[..., :3], f[..., 3:] - cross3(r, f[..., :3])], axis=-1)
    if not np.any(r):  # the world origin itself
        return f
    force, n = f[..., :3], f[..., 3:]
    r = np.broadcast_to(r, force.shape)
    moment = np.empty(np.broadcast_shapes(n.shape, force.shape))
    for k in range(3):  # n_k - (r_a f_b - r_b f_a) for (a, b) the other two axes in order
        a, b = (k + 1) % 3, (k + 2) % 3
        p, p_err = _exact_product(r[..., a], force[..., b])
        m, m_err = _exact_product(r[..., b], force[..., a])
        total, err_1 = _exact_sum(n[..., k], -p)
        total, err_2 = _exact_sum(total, m)
        moment[..., k] = total + (err_1 + err_2 - p_err + m_err)
    return np.concatenate([np.broadcast_to(force, moment.shape), moment], axis=-1)


def _exact_sum(a, b):
    """``a + b`` rounded, and its rounding error: ``a + b = s + e`` exactly (Knuth's TwoSum)."""
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


def _exact_product(a, b):
    """``a b`` rounded, and its rounding error: ``a b = p + e`` exactly (Dekker's product, Veltkamp's split)."""
    p = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(b)
    return p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo


def _split(a):
    """``a = hi + lo`` exactly, each with at most 26 significant bits."""
    c = 134217729.0 * a  # 2^27 + 1
    hi = c - (c - a)
    return hi, a - hi


class State(NamedTuple):
    """The checked inputs of an algorithm (see :func:`check_state`).

    Attributes
    ----------
    model : Model
        Made exact (sympy rationals) when any input is symbolic.
    m : ModelArrays
        ``model.arrays``, for the kernels.
    q : ndarray, shape batch + (nq,)
    qd, qdd, tau : ndarray, shape batch + (nv,), or None
        The joint-space vectors the algorithm takes (None for those it does not).
    f_ext : ndarray, shape batch + (n, 6)
        External wrenches (zeros if none were given), world coordinates about the reference point ``r``.
    batch : tuple of int
        The leading batch shape, ``()`` for one state.
    symbolic : bool
        True when the state holds sympy expressions: the kernels then run as Python.
    r : ndarray, shape batch + (3,), or None
        The reference point of each state (:func:`~dynlib.kernels.reference_point`), when external wrenches were given
        (None otherwise: ``reference`` computes it).
    """

    model: Model
    m: ModelArrays
    q: np.ndarray
    qd: np.ndarray | None
    qdd: np.ndarray | None
    tau: np.ndarray | None
    f_ext: np.ndarray
    batch: tuple
    symbolic: bool
    r: np.ndarray | None = None


def reference(state):
    """The reference point of a checked state (:func:`~dynlib.kernels.reference_point`), shape ``batch + (3,)``."""
    return reference_of(state.model, state.q, state.batch) if state.r is None else state.r


_FLOAT = np.dtype(float)

#: Default of the joint-space vectors of :func:`check_state`: an argument the algorithm does not take.
NOT_TAKEN = "not taken"


def check_state(model, q, qd=NOT_TAKEN, qdd=NOT_TAKEN, tau=NOT_TAKEN, f_ext=None, batch=True, optional=()):
    """Check a state once, at the door of an algorithm, and return it ready for the kernels.

    ``q`` must fit the model (shape, finite entries of magnitude at most ``1e40``, unit
    quaternions for spherical and free joints: each checked once); each joint-space vector the
    algorithm takes has shape ``(nv,)``; ``f_ext`` has shape ``(n, 6)``.  With ``batch`` every
    input may carry leading batch axes, which must broadcast; symbolic states are evaluated one
    at a time.  When any input holds sympy expressions, the model and every input are made exact.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (..., nq)
    qd, qdd, tau : array_like, shape (nv,) or (..., nv), optional
        Pass those the algorithm takes; ``None`` is an error unless the name is in ``optional``.
    f_ext : array_like, shape (n, 6) or (..., n, 6), optional
        World coordinates about the world origin; the state holds them about its reference point.
    batch : bool
        Accept leading batch axes.
    optional : tuple of str
        Names of vectors that may be ``None`` (not given).

    Returns
    -------
    State
    """
    q = _checked_configuration(check_model(model), q, "q", batch)
    qd = None if qd is NOT_TAKEN else _taken_vector(model, qd, "qd", batch, optional)
    qdd = None if qdd is NOT_TAKEN else _taken_vector(model, qdd, "qdd", batch, optional)
    tau = None if tau is NOT_TAKEN else _taken_vector(model, tau, "tau", batch, optional)
    given = f_ext is not None
    f_ext = check_external_forces(model, f_ext, batch)
    if (not model.symbolic and q.ndim == 1 and q.dtype is _FLOAT and f_ext.ndim == 2 and f_ext.dtype is _FLOAT
            and _one_float_vector(qd) and _one_float_vector(qdd) and _one_float_vector(tau)):
        if not given:  # one numeric state without external wrenches: the usual case
            return State(model, model.arrays, q, qd, qdd, tau, f_ext, (), False)
        r = reference_of(model, q)
        return State(model, model.arrays, q, qd, qdd, tau, force_about(f_ext, r), (), False, r)
    vectors = {"qd": qd, "qdd": qdd, "tau": tau}
    given = [x for x in vectors.values() if x is not None]
    shape = broadcast_batch((q, 1, "q"), (f_ext, 2, "f_ext"),
                            *((x, 1, name) for name, x in vectors.items() if x is not None))
    symbolic = model.symbolic or is_symbolic(q, f_ext, *given)
    if symbolic:
        if shape:
            raise ValueError(f"symbolic states cannot be batched (batch shape {shape}): evaluate them one at a time")
        model = model.exact()
        q, f_ext = exact(q), exact(f_ext)
        vectors = {name: None if x is None else exact(x) for name, x in vectors.items()}
    elif shape:
        q, f_ext = np.broadcast_to(q, shape + q.shape[-1:]), np.broadcast_to(f_ext, shape + f_ext.shape[-2:])
        vectors = {name: None if x is None else np.broadcast_to(x, shape + x.shape[-1:]) for name, x in vectors.items()}
    r = None
    if given and not symbolic:
        r = reference_of(model, q, shape)
        f_ext = force_about(f_ext, r[..., None, :])
    return State(model, model.arrays, q, vectors["qd"], vectors["qdd"], vectors["tau"], f_ext, shape, symbolic, r)


def _taken_vector(model, x, name, batch, optional):
    """A joint-space vector the algorithm takes, checked; None when it is optional and not given."""
    return None if x is None and name in optional else check_joint_vector(model, x, name, batch)


def _one_float_vector(x):
    """True for a vector argument that is absent or one float vector (no batch axes)."""
    return x is None or (x.ndim == 1 and x.dtype is _FLOAT)


def check_external_forces(model, f_ext, batch=False):
    """Return external wrenches as an (n, 6) array (zeros if ``None``), checking the shape.

    Parameters
    ----------
    model : Model
    f_ext : array_like, shape (n, 6), or (..., n, 6) if ``batch``; or None
        ``f_ext[i]`` is the wrench the environment applies to body ``i``, in world coordinates
        about the world origin (linear part first).
    batch : bool
        Accept leading batch axes (one set of wrenches per state).

    Returns
    -------
    ndarray, shape (n, 6) or (..., n, 6)
    """
    if f_ext is None:
        return zeros((check_model(model).n_bodies, 6), model.symbolic)
    f_ext = as_array(f_ext, "f_ext")
    if f_ext.shape[-2:] != (model.n_bodies, 6) or (f_ext.ndim > 2 and not batch):
        want = f"(n_bodies, 6) = ({model.n_bodies}, 6)" + (" or (..., n_bodies, 6)" if batch else "")
        raise ValueError(f"f_ext must have shape {want}, got {f_ext.shape}")
    check_magnitude(f_ext, "f_ext")
    return f_ext


def check_joint_vector(model, x, name="qd", batch=False):
    """Return a joint-space vector (velocity, acceleration, force) as an array of shape ``(nv,)``.

    Entries must be finite and of magnitude at most ``1e40``; with ``batch`` leading batch axes
    are allowed, ``(..., nv)``.
    """
    if type(x) is np.ndarray and x.dtype is _FLOAT and x.shape == (model.nv,) and bounded(x, LARGEST_MAGNITUDE):
        return x  # the usual case: a float vector of the right size
    x = as_array(x, name)
    _check_last_axis(x, model.nv, "nv", name, batch)
    check_magnitude(x, name)
    return x


def check_configuration(model, q, name="q", batch=False):
    """Return ``q`` as an array after checking it fits ``model`` (shape, finite, unit quaternions).

    The configuration part of :func:`check_state`, for functions that take ``q`` alone.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,), or (..., nq) if ``batch``
    name : str
        How the error message names the argument.
    batch : bool
        Accept leading batch axes.

    Returns
    -------
    ndarray, shape (nq,) or (..., nq)
    """
    return _checked_configuration(check_model(model), q, name, batch)


def _checked_configuration(model, q, name, batch):
    if type(q) is np.ndarray and q.dtype is _FLOAT and q.shape == (model.nq,) and bounded(q, LARGEST_MAGNITUDE):
        for i in model.quaternion_joints:  # the usual case: a float vector of the right size
            where = f"{model.q_slices[i].start}:" + ("" if model.joints[i].kind == "spherical" else "][3:")
            kind = model.joints[i].kind
            check_unit_quaternion(q[model.q_slices[i]][-4:], f"{name}[{where}] ({kind} joint quaternion)")
        return q
    q = as_array(q, name)
    _check_last_axis(q, model.nq, "nq", name, batch)
    check_magnitude(q, name)
    for i in model.quaternion_joints:  # the joint's last four entries are its quaternion
        kind = model.joints[i].kind
        where = ("..., " if q.ndim > 1 else "") + f"{model.q_slices[i].start}:"
        where += "" if kind == "spherical" else "][3:"
        quaternion = q[..., model.q_slices[i]][..., -4:]
        check_unit_quaternion(quaternion, f"{name}[{where}] ({kind} joint quaternion)")
    return q


def check_velocity(model, v, name="qd", batch=False):
    """Return ``v`` as an array after checking it has shape (nv,) and is finite (entries at most ``1e40``).

    Parameters
    ----------
    model : Model
    v : array_like, shape (nv,), or (..., nv) if ``batch``
    name : str
        How the error message names the argument.
    batch : bool
        Accept leading batch axes.

    Returns
    -------
    ndarray, shape (nv,) or (..., nv)
    """
    return check_joint_vector(check_model(model), v, name, batch)


def _check_last_axis(x, size, size_name, name, batch):
    if x.shape == (size,) or (batch and x.ndim >= 1 and x.shape[-1] == size):
        return
    want = f"({size_name},) = ({size},)" + (f" or (..., {size}) for a batch of states" if batch else "")
    raise ValueError(f"{name} must have shape {want}, got {x.shape}")


def neutral_configuration(model):
    """The configuration with every joint at zero (identity quaternions).

    Parameters
    ----------
    model : Model

    Returns
    -------
    ndarray, shape (nq,)
    """
    return np.concatenate([j.neutral() for j in model.joints])


def random_configuration(model, rng, scale=1.0):
    """A random configuration of ``model`` (see :meth:`Joint.random_configuration`).

    Parameters
    ----------
    model : Model
    rng : numpy.random.Generator
    scale : float
        Standard deviation of displacements.

    Returns
    -------
    ndarray, shape (nq,)
    """
    return np.concatenate([j.random_configuration(rng, scale) for j in model.joints])


def random_velocity(model, rng, scale=1.0):
    """A random joint-space velocity (or acceleration, torque), normal with std ``scale``.

    Parameters
    ----------
    model : Model
    rng : numpy.random.Generator
    scale : float

    Returns
    -------
    ndarray, shape (nv,)
    """
    return rng.normal(scale=scale, size=model.nv)


def integrate(model, q, qd, dt=1.0):
    """Configuration reached from ``q`` moving with constant joint velocity ``qd`` for time ``dt``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (..., nq)
    qd : array_like, shape (nv,) or (..., nv)
        Leading batch axes of ``q`` and ``qd`` broadcast.
    dt : float

    Returns
    -------
    ndarray, shape (nq,) or (..., nq)
        Quaternions stay unit.
    """
    state = check_state(model, q, qd=qd)
    return advance(state.model, state.q, state.qd * check_scalar(dt, "dt"))


def advance(model, q, step):
    """:func:`integrate` of inputs already checked: the configuration after the joint-space motion ``step``."""
    out = np.empty(np.broadcast_shapes(q.shape[:-1], step.shape[:-1]) + (model.nq,),
                   dtype=object if is_symbolic(q, step) else float)
    for i, joint in enumerate(model.joints):
        qs, vs = model.q_slices[i], model.v_slices[i]
        out[..., qs] = joint.advance(q[..., qs], step[..., vs])
    return out


def difference(model, q0, q1):
    """Joint velocity ``qd`` with ``integrate(model, q0, qd) == q1`` (shortest rotations).

    Parameters
    ----------
    model : Model
    q0, q1 : array_like, shape (nq,)

    Returns
    -------
    ndarray, shape (nv,)
    """
    q0, q1 = check_configuration(model, q0, "q0"), check_configuration(model, q1, "q1")
    return np.concatenate(
        [j.displacement(q0[model.q_slices[i]], q1[model.q_slices[i]]) for i, j in enumerate(model.joints)]
    )
