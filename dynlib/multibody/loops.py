"""Loop-closure and joint-coupling constraints: residual, Jacobian ``A(q)``, bias ``dA/dt qd``, and drift correction.

A closed mechanism is modelled as a tree (cut open at one joint per loop) plus constraints
that close the loops.  Each :class:`LoopConstraint` asks a point fixed in body ``a`` and a
point fixed in body ``b`` (or in the world) to coincide along chosen world directions,
and/or the two bodies to keep their relative orientation about chosen world axes.  A
:class:`JointCoupling` ties one joint's coordinate to another's, ``q_j = r q_i + o`` (a gear,
or a URDF ``<mimic>`` joint).  Stacked, the constraints read ``phi(q) = 0`` and,
differentiated, ``A(q) qd = 0`` and ``A qdd + dA/dt qd = 0``; every function here and in
:mod:`dynlib.algorithms.constrained_dynamics` takes a list mixing the two kinds.

A mechanism whose constraints become dependent, ``A`` losing rank, is at a **singular
configuration**: there the loop gains a freedom, or the constraint forces along some direction
are not determined.  Functions that must solve with such a matrix raise a ValueError naming the
rank found and expected, the smallest singular value relative to the largest (at most
``RANK_RTOL`` counts as zero) and what it means for the mechanism.

Chapter: *Constrained chains: loops, multipliers and actuation*; Kim (2012) §3 (eqs. 54-55);
Alexiou (1999) "Contacts Between Bodies", "Planar Constrained Example".
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.backend import as_array, check_scalar, is_symbolic, quoted, solve, zeros
from ..spatial.algebra import skew
from ..spatial.liegroup import log_so3
from .kinematics import kinematics_of, marker_motion, state_kinematics, world_jacobian
from .model import advance, check_configuration, check_model, check_state

__all__ = [
    "PLANAR_POINT_AXES",
    "LoopConstraint",
    "JointCoupling",
    "constraint_residual",
    "constraint_jacobian",
    "constraint_bias",
    "project_configuration",
    "dependent_motion",
]

PLANAR_POINT_AXES = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0))  # x and y rows: a planar pin joint

#: Singular values of a constraint Jacobian at most this fraction of the largest count as zero.
RANK_RTOL = 1e-10


@dataclass(frozen=True, eq=False)
class LoopConstraint:
    """Points (and optionally orientations) of two bodies held together.

    Parameters
    ----------
    body_a, body_b : int
        Body indices; ``body_b = -1`` fixes the constraint to the world.
    point_a, point_b : array_like, shape (3,)
        Points in the frames of body ``a`` and body ``b`` (world frame if ``body_b = -1``).
    linear_axes : array_like, shape (k, 3)
        World directions along which the two points must coincide (default: all three;
        ``PLANAR_POINT_AXES`` for a planar pin; empty for none).
    angular_axes : array_like, shape (j, 3)
        World axes about which the bodies may not turn relative to each other
        (default: none).
    rotation_ab : array_like, shape (3, 3), optional
        Required relative orientation ``R_a^T R_b`` (default identity).

    Attributes
    ----------
    m : int
        Number of scalar constraints, ``k + j``.
    """

    body_a: int
    body_b: int
    point_a: np.ndarray = field(default_factory=lambda: np.zeros(3))
    point_b: np.ndarray = field(default_factory=lambda: np.zeros(3))
    linear_axes: np.ndarray = field(default_factory=lambda: np.eye(3))
    angular_axes: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    rotation_ab: np.ndarray = field(default_factory=lambda: np.eye(3))

    def __post_init__(self):
        for name in ("body_a", "body_b"):
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or value < -1:
                raise ValueError(f"{name} must be a body index or -1 (the world), got {value!r}")
        if self.body_a == self.body_b:
            raise ValueError(f"a loop constraint joins two different bodies, got body {self.body_a} twice")
        for name, shape in (("point_a", (3,)), ("point_b", (3,)), ("rotation_ab", (3, 3))):
            value = as_array(getattr(self, name), name)
            if value.shape != shape:
                raise ValueError(f"{name} must have shape {shape}, got {value.shape}")
            object.__setattr__(self, name, value)
        for name in ("linear_axes", "angular_axes"):
            value = as_array(getattr(self, name), name)
            if value.size % 3 or value.ndim > 2:
                raise ValueError(f"{name} must have shape (k, 3), got {value.shape}")
            value = value.reshape(-1, 3)
            norms = np.linalg.norm(value, axis=1)
            if np.any(norms < 1e-12):
                raise ValueError(f"{name} must hold non-zero directions, got {value.tolist()}")
            object.__setattr__(self, name, value / norms[:, None])
        if self.m == 0:
            raise ValueError("a loop constraint needs at least one linear or angular axis")

    @property
    def m(self):
        return len(self.linear_axes) + len(self.angular_axes)

    def _check(self, model):
        for body in (self.body_a, self.body_b):
            if body >= model.n_bodies:
                raise ValueError(f"constraint body {body} does not exist (the model has {model.n_bodies} bodies)")

    def _residual(self, model, q, kin, r):
        xa, _, _, Ra, _, _ = _side(model, kin, self.body_a, self.point_a, r)
        xb, _, _, Rb, _, _ = _side(model, kin, self.body_b, self.point_b, r)
        rows = [self.linear_axes @ (xa - xb)]
        if len(self.angular_axes):
            rows.append(self.angular_axes @ log_so3(Ra @ self.rotation_ab @ Rb.T))
        return np.concatenate(rows)

    def _jacobian(self, model, kin):
        J = zeros((6, model.nv), is_symbolic(kin.R))
        ends = ((self.body_a, self.point_a, 1.0), (self.body_b, self.point_b, -1.0))
        for body, point, sign in ends:
            if body < 0:
                continue
            Jb = world_jacobian(model, kin, body)
            x = kin.p[body] + kin.R[body] @ point
            J[:3] += sign * (Jb[:3] - skew(x) @ Jb[3:])  # velocity of the point
            J[3:] += sign * Jb[3:]  # angular velocity
        return np.concatenate([self.linear_axes @ J[:3], self.angular_axes @ J[3:]])

    def _bias(self, model, kin):
        _, _, xdd_a, _, _, alpha_a = _side(model, kin, self.body_a, self.point_a)
        _, _, xdd_b, _, _, alpha_b = _side(model, kin, self.body_b, self.point_b)
        return np.concatenate([self.linear_axes @ (xdd_a - xdd_b), self.angular_axes @ (alpha_a - alpha_b)])


#: The joints a :class:`JointCoupling` can tie: one coordinate, and its velocity its rate.
COUPLED_KINDS = ("revolute", "prismatic", "helical")


@dataclass(frozen=True, eq=False)
class JointCoupling:
    """One joint's coordinate tied to another's: ``q_j = multiplier q_i + offset``.

    The constraint of a gear pair, or of a URDF ``<mimic>`` joint (:func:`dynlib.load_urdf` with
    ``mimic="constraint"``).  One row: the residual ``q_j - r q_i - o``, the Jacobian row
    ``e_j - r e_i`` (constant, in the velocity indices of the two joints), and a zero bias
    ``dA/dt qd``.  Its multiplier is the torque (or force) the coupling adds to joint ``j``; it
    adds ``-r`` times that to joint ``i``.

    Parameters
    ----------
    joint, leader : int
        Body indices of the coupled (``j``) and leading (``i``) joints, which must be
        one-coordinate joints (revolute, prismatic or helical; checked against the model when
        the constraint is used).
    multiplier, offset : float
        ``r`` and ``o`` (defaults 1 and 0, as URDF's ``<mimic>``).

    Attributes
    ----------
    m : int
        Number of scalar constraints, 1.

    References
    ----------
    ROS URDF specification, ``<joint>``/``<mimic>`` (https://wiki.ros.org/urdf/XML/joint);
    Kim (2012) §3 (the constraint Jacobian and its multipliers).

    Examples
    --------
    >>> import dynlib as dl
    >>> model = dl.planar_chain(2)
    >>> gear = JointCoupling(1, 0, multiplier=-0.5)
    >>> dl.constraint_residual(model, [0.4, 0.0], [gear]).tolist(), dl.constraint_jacobian(model, [0.4, 0.0], [gear])
    ([0.2], array([[0.5, 1. ]]))
    """

    joint: int
    leader: int
    multiplier: float = 1.0
    offset: float = 0.0

    def __post_init__(self):
        for name in ("joint", "leader"):
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be a body index (the index of its joint), got {value!r}")
        if self.joint == self.leader:
            raise ValueError(f"a joint coupling ties two different joints, got joint {self.joint} twice")
        for name in ("multiplier", "offset"):
            check_scalar(getattr(self, name), name)
            object.__setattr__(self, name, float(getattr(self, name)))

    @property
    def m(self):
        return 1

    def _check(self, model):
        for name in ("joint", "leader"):
            body = getattr(self, name)
            if body >= model.n_bodies:
                raise ValueError(f"joint coupling {name} {body} does not exist (the model has {model.n_bodies} "
                                 "bodies)")
            kind = model.joints[body].kind
            if kind not in COUPLED_KINDS:
                raise ValueError(f"joint coupling {name} {body} ({model.names[body]!r}) is a {kind} joint: a "
                                 f"coupling ties one-coordinate joints ({', '.join(COUPLED_KINDS)})")

    def _residual(self, model, q, kin, r):
        qj, qi = q[model.q_slices[self.joint].start], q[model.q_slices[self.leader].start]
        return np.array([qj - self.multiplier * qi - self.offset])

    def _jacobian(self, model, kin):
        row = zeros((1, model.nv), is_symbolic(kin.R))
        row[0, model.v_slices[self.joint].start] = 1.0
        row[0, model.v_slices[self.leader].start] = -self.multiplier
        return row

    def _bias(self, model, kin):
        return np.zeros(1)


#: The kinds of constraint every function taking ``constraints`` accepts, mixed in one list.
CONSTRAINT_KINDS = (LoopConstraint, JointCoupling)


def check_constraints(model, constraints):
    """Return ``constraints`` as a list after checking each is a LoopConstraint or JointCoupling fitting ``model``."""
    check_model(model)
    try:
        constraints = list(constraints)
    except TypeError:
        raise TypeError("constraints must be a list of LoopConstraint or JointCoupling, got "
                        f"{type(constraints).__name__}") from None
    if not constraints:
        raise ValueError("constraints must be a non-empty list of LoopConstraint or JointCoupling")
    for c in constraints:
        if not isinstance(c, CONSTRAINT_KINDS):
            raise TypeError(f"constraints must be LoopConstraint or JointCoupling objects, got {type(c).__name__}")
        c._check(model)
    return constraints


def _side(model, kin, body, point, r=None):
    """Position, velocity, acceleration of a constraint point and the body's rotation and rates.

    ``kin`` holds positions from the reference point ``r`` (see :func:`dynlib.multibody.kinematics.kinematics_of`):
    a point fixed in the world is moved there too (rates alone need no ``r``).
    """
    if body < 0:
        zero = np.zeros(3)
        return point if r is None else point - r, zero, zero, np.eye(3), zero, zero
    x, xd, xdd = marker_motion(kin, body, point)
    w = None if kin.v is None else kin.v[body, 3:]
    alpha = None if kin.a is None else kin.a[body, 3:]
    return x, xd, xdd, kin.R[body], w, alpha


def constraint_residual(model, q, constraints):
    """Constraint violation ``phi(q)``: point gaps along the linear axes, rotation errors about the angular ones.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    constraints : sequence of LoopConstraint and JointCoupling

    Returns
    -------
    ndarray, shape (m,)
    """
    constraints = check_constraints(model, constraints)
    state = check_state(model, q, batch=False)
    return loop_residual(model, state.q, *state_kinematics(state), constraints)


def constraint_jacobian(model, q, constraints):
    """Constraint Jacobian ``A(q)`` with ``d phi/dt = A qd``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    constraints : sequence of LoopConstraint and JointCoupling

    Returns
    -------
    ndarray, shape (m, nv)

    References
    ----------
    Kim (2012) eq. 55.
    """
    constraints = check_constraints(model, constraints)
    return loop_jacobian(model, state_kinematics(check_state(model, q, batch=False))[0], constraints)


def constraint_bias(model, q, qd, constraints):
    """The velocity-product term ``dA/dt qd``, so that ``A qdd + dA/dt qd = d2 phi/dt2``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    qd : array_like, shape (nv,)
    constraints : sequence of LoopConstraint and JointCoupling

    Returns
    -------
    ndarray, shape (m,)
        The relative acceleration of the constraint points and frames when ``qdd = 0``.
    """
    constraints = check_constraints(model, constraints)
    state = check_state(model, q, qd=qd, qdd=np.zeros(model.nv), batch=False)
    return loop_bias(model, state_kinematics(state)[0], constraints)


def loop_residual(model, q, kin, r, constraints):
    """``phi(q)`` of checked constraints at ``q`` (with its kinematics ``kin`` about the reference point ``r``,
    :func:`dynlib.multibody.kinematics.kinematics_of`): each constraint's rows, stacked."""
    return np.concatenate([c._residual(model, q, kin, r) for c in constraints])


def loop_jacobian(model, kin, constraints):
    """``A(q)`` of checked constraints from the kinematics ``kin`` of ``q`` (about any point)."""
    return np.concatenate([c._jacobian(model, kin) for c in constraints])


def loop_bias(model, kin, constraints):
    """``dA/dt qd`` of checked constraints; needs ``kin`` computed with ``qdd = 0``."""
    return np.concatenate([c._bias(model, kin) for c in constraints])


def project_configuration(model, q, constraints, fixed=(), tol=1e-12,
                          max_iterations=50):
    """The configuration nearest ``q`` (Gauss–Newton steps, halved until the residual drops) with ``phi(q) = 0``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    constraints : sequence of LoopConstraint and JointCoupling
    fixed : sequence of int
        Velocity indices whose coordinates must not move (e.g. a mechanism's input angle).
    tol : float
        Required ``max |phi|`` relative to the size of the mechanism (1 if smaller).
    max_iterations : int

    Returns
    -------
    ndarray, shape (nq,)

    Raises
    ------
    ValueError
        If the constraints cannot be met from this start (the loop cannot close).
    """
    q = check_configuration(model, q).copy()
    constraints = check_constraints(model, constraints)
    inner = [i for i in range(model.n_bodies) if model.parent[i] >= 0]  # not the roots: where the mechanism stands
    scale = max(1.0, float(np.abs(model.placements[inner, :3, 3]).max(initial=0.0)))
    # the iterates stay unit: they are checked once, on the way in
    kin, r = kinematics_of(model, q)
    phi = loop_residual(model, q, kin, r, constraints)
    for _ in range(max_iterations):
        if np.abs(phi).max() <= tol * scale:
            return q
        A = loop_jacobian(model, kin, constraints)
        A[:, list(fixed)] = 0.0
        step = -np.linalg.lstsq(A, phi, rcond=None)[0]
        step[list(fixed)] = 0.0  # exactly, not to round-off
        for _ in range(20):  # halve the Gauss-Newton step until the residual drops
            q_try = advance(model, q, step)
            kin_try, r_try = kinematics_of(model, q_try)
            phi_try = loop_residual(model, q_try, kin_try, r_try, constraints)
            if np.linalg.norm(phi_try) < np.linalg.norm(phi):
                break
            step = step / 2
        q, kin, phi = q_try, kin_try, phi_try
    raise ValueError(
        "the constraints could not be satisfied from this configuration "
        f"(max |phi| = {quoted(np.abs(phi).max())} after {max_iterations} "
        "iterations): the loop may be unable to close"
    )


def numerical_rank(A):
    """Numerical rank of ``A`` (relative threshold ``RANK_RTOL``), its smallest singular value over
    its largest, and the left singular vectors ``U`` (``A = U diag(sigma) V^T``)."""
    U, sigma, _ = np.linalg.svd(A)
    if sigma.size == 0 or sigma[0] == 0:
        return 0, 0.0, U
    full = min(A.shape) == A.shape[0]  # a wide or square A: the smallest singular value is the m-th
    smallest = sigma[-1] if full else 0.0
    return int(np.sum(sigma > RANK_RTOL * sigma[0])), smallest / sigma[0], U


def dependent_constraints_message(rank, m, ratio, what="the constraint Jacobian A"):
    """The explanation of a constraint Jacobian that has lost rank (used by the solvers that need it)."""
    return (f"{what} has rank {rank}, expected {m} (one per constraint row; smallest singular value "
            f"{quoted(ratio, RANK_RTOL)} of the largest): the constraints are dependent at this configuration, "
            "either redundant or at a singular configuration of the mechanism, where the loop can move in a "
            "direction its constraints no longer control and the constraint forces along it are not determined")


def dependent_motion(model, q, constraints, independent, qd_independent,
                     qdd_independent=None):
    """Velocities and accelerations of every joint when those of the independent joints are given.

    Coordinate partitioning: the columns of ``A`` split into independent (i) and dependent (d)
    ones, and the velocity and acceleration constraints are solved for the dependent rates::

        A_d qd_d  = -A_i qd_i
        A_d qdd_d = -A_i qdd_i - dA/dt qd

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
        A configuration that satisfies the constraints.
    constraints : sequence of LoopConstraint and JointCoupling
    independent : sequence of int
        Velocity indices of the independent coordinates (as many as the degrees of freedom).
    qd_independent : array_like, shape (len(independent),)
    qdd_independent : array_like, shape (len(independent),), optional

    Returns
    -------
    qd : ndarray, shape (nv,)
    qdd : ndarray, shape (nv,), or None if ``qdd_independent`` is not given

    Raises
    ------
    ValueError
        If ``A_d`` is not square (the independent coordinates do not match the degrees of
        freedom), or has lost rank (smallest singular value at most ``RANK_RTOL`` of the
        largest), either because ``A`` itself has (the mechanism is at a singular configuration)
        or because these independent coordinates cannot drive the mechanism here (a dead point
        of the input: the dependent joints could move with the inputs held).

    References
    ----------
    Kim (2012) eq. 55 and its time derivative; Wehage and Haug (1982), coordinate partitioning.
    """
    constraints = check_constraints(model, constraints)
    q = check_configuration(model, q)
    ind = np.asarray(independent, dtype=int).reshape(-1)
    dep = np.setdiff1d(np.arange(model.nv), ind)
    kin, _ = kinematics_of(model, q)
    A = loop_jacobian(model, kin, constraints)
    distinct = len(np.unique(ind)) == len(ind)
    in_range = np.all((0 <= ind) & (ind < model.nv))
    if A.shape[0] != len(dep) or not distinct or not in_range:
        raise ValueError(
            f"independent must name {model.nv - A.shape[0]} distinct velocity "
            f"indices in [0, {model.nv}) (nv minus the {A.shape[0]} constraints), "
            f"got {ind.tolist()}"
        )
    _check_partition(A, ind, dep)
    what = "the dependent block A_d of the constraint Jacobian"
    qd = np.zeros(model.nv)
    qd[ind] = qd_independent
    qd[dep] = solve(A[:, dep], -A[:, ind] @ qd[ind], what)
    if qdd_independent is None:
        return qd, None
    qdd = np.zeros(model.nv)
    qdd[ind] = qdd_independent
    kin, _ = kinematics_of(model, q, qd, np.zeros(model.nv))
    bias = loop_bias(model, kin, constraints)
    qdd[dep] = solve(A[:, dep], -A[:, ind] @ qdd[ind] - bias, what)
    return qd, qdd


def _check_partition(A, ind, dep):
    """Raise unless ``A_d`` can be solved, saying whether ``A`` itself or the choice of inputs lost rank."""
    m = A.shape[0]
    rank, ratio, _ = numerical_rank(A)
    if rank < m:
        raise ValueError(
            dependent_constraints_message(rank, m, ratio)
            + ", so the dependent rates are not determined"
        )
    rank, ratio, _ = numerical_rank(A[:, dep])
    if rank < m:
        raise ValueError(
            "the dependent block A_d of the constraint Jacobian "
            f"(columns {dep.tolist()}) has rank {rank}, expected {m} "
            f"(smallest singular value {quoted(ratio, RANK_RTOL)} of the largest): "
            f"the independent coordinates {ind.tolist()} cannot drive the mechanism "
            "at this configuration, a dead point of the input where the dependent "
            "joints could move with the inputs held; choose other independent "
            "coordinates here"
        )
