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

from ._backend import as_array, broadcast_batch, check_finite, check_magnitude, exact, is_symbolic
from .inertia import check_rotational_inertia, inertia_parameters
from .joints import Joint, joint_constants
from .rotations import check_unit_quaternion
from .spatial import skew

__all__ = [
    "Model",
    "neutral_configuration",
    "random_configuration",
    "random_velocity",
    "integrate",
    "difference",
    "check_configuration",
    "check_velocity",
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

    Attributes
    ----------
    n_bodies, nq, nv : int
    q_slices, v_slices : tuple of slice
        Where each joint's entries sit in ``q`` and in ``qd``/``qdd``/``tau``.
    path_dofs : tuple of ndarray of int
        ``path_dofs[i]``: the entries of ``qd`` of joint ``i`` and of every joint between it
        and the base (the columns of body ``i``'s Jacobian that can be non-zero).
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

        mass, com = [], []
        for i in range(n):
            _check_placement(placements[i], i)
            m, c = _check_inertia(inertias[i], i)
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
        set_(self, "n_bodies", n)
        set_(self, "nq", int(q_starts[-1]))
        set_(self, "nv", int(v_starts[-1]))
        set_(self, "q_slices", tuple(slice(int(a), int(b)) for a, b in zip(q_starts, q_starts[1:])))
        set_(self, "v_slices", tuple(slice(int(a), int(b)) for a, b in zip(v_starts, v_starts[1:])))
        set_(self, "children", tuple(tuple(c) for c in children))
        set_(self, "_layout", _layout(self, symbolic))
        dofs = np.arange(self.nv)
        set_(self, "path_dofs", tuple(
            np.concatenate([dofs[self.v_slices[k]] for k in self.ancestors(i)]) for i in range(n)
        ))
        set_(self, "mass", _readonly(np.array(mass, dtype=dtype)))
        set_(self, "com", _readonly(np.array(com, dtype=dtype).reshape(n, 3)))
        C = skew(self.com)
        set_(self, "inertia_com", _readonly(inertias[:, 3:, 3:] + self.mass[:, None, None] * (C @ C)))
        set_(self, "symbolic", bool(symbolic))

    def __repr__(self):
        kinds = ", ".join(j.kind for j in self.joints)
        return f"Model(n_bodies={self.n_bodies}, nq={self.nq}, nv={self.nv}, parent={self.parent}, joints=[{kinds}])"

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
        )

    def first_bodies(self, k):
        """The model of bodies ``0 .. k-1`` alone (closed under parents since ``parent[i] < i``).

        For a serial chain this is the sub-chain from the base to body ``k - 1``.
        """
        if not isinstance(k, (int, np.integer)) or not 1 <= k <= self.n_bodies:
            raise ValueError(f"k must be an int in [1, {self.n_bodies}], got {k!r}")
        return Model(self.parent[:k], self.joints[:k], self.placements[:k], self.inertias[:k], self.gravity,
                     self.names[:k])

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


class _Layout(NamedTuple):
    """Index arrays and constants that let the algorithms treat all joints at once."""

    groups: tuple  # (kind, bodies, q_index of shape (m, nq), joint_constants) per joint kind present
    dof_body: np.ndarray  # (nv,): the body whose joint each entry of qd drives
    dof_subspace: np.ndarray  # (nv, 6): that entry's column of its joint's S (child frame)
    dof_to_body: np.ndarray  # (nv, n): 1 where entry c belongs to body i; sums columns per body
    dof_supports: np.ndarray  # (nv, nv) bool: entry a's joint is on the path from the base to entry c's body


def _layout(model, symbolic):
    groups = []
    for kind in dict.fromkeys(j.kind for j in model.joints):
        bodies = np.array([i for i, j in enumerate(model.joints) if j.kind == kind])
        q_index = np.array([np.arange(model.nq)[model.q_slices[i]] for i in bodies]).reshape(len(bodies), -1)
        groups.append((kind, bodies, q_index, joint_constants([model.joints[i] for i in bodies])))
    dof_body = np.array([i for i in range(model.n_bodies) for _ in range(model.joints[i].nv)], dtype=int)
    subspaces = [j.S.T for j in model.joints if j.nv]
    dof_subspace = np.concatenate(subspaces) if subspaces else np.zeros((0, 6))
    dof_to_body = (dof_body[:, None] == np.arange(model.n_bodies)).astype(int if symbolic else float)
    on_path = np.zeros((model.n_bodies, model.n_bodies), dtype=bool)  # [j, i]: j on the path to i
    for i in range(model.n_bodies):
        on_path[model.ancestors(i), i] = True
    dof_supports = on_path[dof_body][:, dof_body]
    return _Layout(tuple(groups), dof_body, dof_subspace, dof_to_body, dof_supports)


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


def _check_inertia(I, i):
    """Return (mass, com) of body i, validating the inertia (zero = massless)."""
    if is_symbolic(I):
        mass, com, I_c = inertia_parameters(I)
        check_rotational_inertia(I_c, f"inertias[{i}] rotational inertia about the centre of mass")
        return mass, com
    check_finite(I, f"inertias[{i}]")
    if not np.any(I):
        return 0.0, np.zeros(3)
    try:
        mass, com, I_c = inertia_parameters(I)
        check_rotational_inertia(I_c, "rotational inertia about the centre of mass")
    except ValueError as err:
        raise ValueError(f"inertias[{i}] is not a valid rigid-body inertia: {err}") from None
    return mass, com


def _check_model(model):
    """Raise TypeError unless ``model`` is a :class:`Model` (the first argument of every algorithm)."""
    if not isinstance(model, Model):
        raise TypeError(f"model must be a dynlib Model, got {type(model).__name__}")


def _check_body(model, body):
    """Raise unless ``body`` is the index of one of ``model``'s bodies."""
    _check_model(model)
    if not isinstance(body, (int, np.integer)) or isinstance(body, bool) or not 0 <= body < model.n_bodies:
        raise ValueError(f"body must be an index in [0, {model.n_bodies}), got {body!r}")


def check_configuration(model, q, name="q", batch=False):
    """Return ``q`` as an array after checking it fits ``model`` (shape, finite, unit quaternions).

    Entries larger than ``1e40`` in magnitude are rejected too: no physical state has them,
    and the algorithms would overflow to infinity.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,), or (..., nq) if ``batch``
    name : str
        How the error message names the argument.
    batch : bool
        Accept leading batch axes (the functions that evaluate many states at once).

    Returns
    -------
    ndarray, shape (nq,) or (..., nq)
    """
    _check_model(model)
    q = as_array(q, name)
    _check_last_axis(q, model.nq, "nq", name, batch)
    check_magnitude(q, name)
    for i, joint in enumerate(model.joints):
        if joint.kind in ("spherical", "free"):  # the joint's last four entries are its quaternion
            where = ("..., " if q.ndim > 1 else "") + f"{model.q_slices[i].start}:"
            where += "" if joint.kind == "spherical" else "][3:"
            quaternion = q[..., model.q_slices[i]][..., -4:]
            check_unit_quaternion(quaternion, f"{name}[{where}] ({joint.kind} joint quaternion)")
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
    _check_model(model)
    v = as_array(v, name)
    _check_last_axis(v, model.nv, "nv", name, batch)
    check_magnitude(v, name)
    return v


def _check_last_axis(x, size, size_name, name, batch):
    if x.shape == (size,) or (batch and x.ndim >= 1 and x.shape[-1] == size):
        return
    want = f"({size_name},) = ({size},)" + (f" or (..., {size}) for a batch of states" if batch else "")
    raise ValueError(f"{name} must have shape {want}, got {x.shape}")


def batch_shape(*arrays):
    """The leading batch shape shared by arrays whose last ``core`` axes are per-state.

    Parameters
    ----------
    *arrays : (ndarray or None, int, str) triples
        Each array, the number of trailing axes that describe one state, and its name
        (``None`` entries are skipped).

    Returns
    -------
    tuple of int
        The broadcast of the leading shapes (``()`` for a single state).
    """
    return broadcast_batch(*(entry for entry in arrays if entry[0] is not None))


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


def integrate(model, q, v, dt=1.0):
    """Configuration reached from ``q`` with constant joint velocity ``v`` for time ``dt``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (..., nq)
    v : array_like, shape (nv,) or (..., nv)
        Leading batch axes of ``q`` and ``v`` broadcast.
    dt : float

    Returns
    -------
    ndarray, shape (nq,) or (..., nq)
        Quaternions stay unit.
    """
    q, v = check_configuration(model, q, batch=True), check_velocity(model, v, "v", batch=True)
    batch = batch_shape((q, 1, "q"), (v, 1, "v"))
    out = np.empty(batch + (model.nq,), dtype=q.dtype if not is_symbolic(v) else object)
    for i, joint in enumerate(model.joints):
        qs, vs = model.q_slices[i], model.v_slices[i]
        out[..., qs] = joint.integrate(q[..., qs], v[..., vs], dt)
    return out


def difference(model, q0, q1):
    """Joint velocity ``v`` with ``integrate(model, q0, v) == q1`` (shortest rotations).

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
        [j.difference(q0[model.q_slices[i]], q1[model.q_slices[i]]) for i, j in enumerate(model.joints)]
    )
