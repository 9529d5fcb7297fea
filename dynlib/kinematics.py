"""Recursive kinematics of a tree: poses, world-frame joint twists, body twists and accelerations,
markers and Jacobians.

All 6-vectors are in world coordinates about the world origin (linear first):
the joint twist of body ``i`` is ``s_i = X_0i S_i`` and

    v_i = v_parent + s_i qd_i,
    a_i = a_parent + s_i qdd_i + v_i x s_i qd_i,

where ``a_i`` is the *spatial* acceleration (the time derivative of ``v_i``).
Classical accelerations of body points come from the marker functions.

Chapter: *Rigid-body motion and joints*; Alexiou (2023) eqs. 1-7; Alexiou (1999)
"Velocity Kinematics", "Acceleration Kinematics"; Concurrent Dynamics (2017) eqs. 2-19.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._backend import as_array, as_finite, check_finite, check_index, exact, is_symbolic, matvec, zeros
from .joints import joint_motion
from .model import _check_body, batch_shape, check_configuration, check_velocity
from .spatial import cross3, cross_motion, inverse_transform, motion_transform, skew

__all__ = [
    "Kinematics",
    "forward_kinematics",
    "centres_of_mass",
    "marker_motion",
    "direction_marker_motion",
    "body_jacobian",
    "point_jacobian",
]


@dataclass(frozen=True)
class Kinematics:
    """Per-body results of :func:`forward_kinematics` (n bodies).

    For a batch of states every array carries the batch axes first (``R`` of shape
    ``(..., n, 3, 3)`` and so on).

    Attributes
    ----------
    R : ndarray, shape (n, 3, 3)
        World orientation of each body frame.
    p : ndarray, shape (n, 3)
        World position of each body frame's origin (the body's inboard joint).
    s : tuple of ndarray, shape (6, nv_i)
        World-frame joint twists ``s_i`` (columns are unit joint motions).
    v : ndarray, shape (n, 6), or None
        Body twists (world frame, about the origin) if ``qd`` was given.
    a : ndarray, shape (n, 6), or None
        Spatial accelerations (derivatives of ``v``) if ``qd`` and ``qdd`` were given.
    """

    R: np.ndarray
    p: np.ndarray
    s: tuple
    v: np.ndarray | None = None
    a: np.ndarray | None = None


def check_states(model, q, *joint_vectors, optional=False):
    """Check a configuration and joint-space vectors, and give their common batch shape.

    Parameters
    ----------
    model : Model
    q : array_like, shape (..., nq)
    *joint_vectors : (array_like or None, str) pairs
        Each of shape (..., nv), with its name for error messages.
    optional : bool
        Let ``None`` stand for a vector that was not given (else it is an error).

    Returns
    -------
    q : ndarray
    vectors : list of ndarray or None
    batch : tuple of int
        The broadcast of their leading axes (``()`` for one state).

    Raises
    ------
    ValueError
        For a wrong size, non-finite entries, non-unit quaternions, batch shapes that do
        not broadcast, or symbolic entries in a batch (sympy states are evaluated one at a time).
    """
    q = check_configuration(model, q, batch=True)
    vectors = [None if x is None and optional else check_velocity(model, x, name, batch=True)
               for x, name in joint_vectors]
    batch = batch_shape((q, 1, "q"), *((x, 1, name) for x, (_, name) in zip(vectors, joint_vectors)))
    if batch and (model.symbolic or is_symbolic(q, *vectors)):
        raise ValueError(f"symbolic states cannot be batched (batch shape {batch}): evaluate them one at a time")
    return q, vectors, batch


def joint_transforms(model, q):
    """Pose of every body's frame in its parent's frame, ``L_i = P_i T_J(q_i)``, as 4×4 matrices.

    The joints' own motions ``T_J`` are evaluated kind by kind, all joints of a kind at once
    (``dynlib.joints.joint_motion``), then placed by the model's ``placements`` ``P_i``.

    Parameters
    ----------
    model : Model
    q : ndarray, shape (nq,) or (..., nq)
        Checked beforehand (:func:`dynlib.check_configuration`).

    Returns
    -------
    ndarray, shape (n, 4, 4) or (..., n, 4, 4)
    """
    symbolic = model.symbolic or is_symbolic(q)
    T_J = np.zeros(q.shape[:-1] + (model.n_bodies, 4, 4), dtype=object if symbolic else float)
    T_J[..., :, :, :] = np.eye(4, dtype=int)
    for kind, bodies, q_index, constants in model._layout.groups:
        R_J, p_J = joint_motion(kind, q[..., q_index], constants)
        T_J[..., bodies, :3, :3], T_J[..., bodies, :3, 3:] = R_J, p_J[..., None]
    return model.placements @ T_J


def from_base(model, x):
    """Sums along every path from the base: ``y_i = y_parent + x_i`` over the bodies of ``x`` (..., n, k)."""
    y = [None] * model.n_bodies
    for i, k in enumerate(model.parent):
        y[i] = x[..., i, :] if k < 0 else y[k] + x[..., i, :]
    return np.stack(y, axis=-2) if y else x.copy()


def forward_kinematics(model, q, qd=None, qdd=None):
    """Poses, joint twists, body twists and accelerations of every body, from base to tips.

    Each body's pose composes its parent's pose with ``L_i``, its joint frame's placement
    times the joint's motion (``joint_transforms``); its joint twist is the joint's
    constant subspace moved to the world; twists and accelerations then add up from the base::

        T_i = T_parent L_i
        s_i = [R_i S_lin + p_i x (R_i S_ang); R_i S_ang]
        v_i = v_parent + s_i qd_i
        a_i = a_parent + s_i qdd_i + v_i x s_i qd_i

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (..., nq)
        A leading batch of states gives results with the same leading axes.
    qd : array_like, shape (nv,) or (..., nv), optional
    qdd : array_like, shape (nv,) or (..., nv), optional
        Needs ``qd``.

    Returns
    -------
    Kinematics

    References
    ----------
    Alexiou (2023) eqs. 1-2 and 6-7; Alexiou (1999) "Acceleration Kinematics"
    (``a_i = a_{i-1} + s_i qdd_i + v_i x s_i qd_i``); Concurrent Dynamics (2017) eqs. 2-12.

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain
    >>> model = planar_chain(2, gravity=(0, 0, 0))
    >>> kin = forward_kinematics(model, [0.0, 0.0], [1.0, 0.0])
    >>> bool(np.allclose(kin.p[1], [1, 0, 0]) and np.allclose(kin.v[1], [0, 0, 0, 0, 0, 1]))
    True
    >>> kin = forward_kinematics(model, [[0.0, 0.0], [np.pi / 2, 0.0]])   # two states at once
    >>> kin.p.shape, bool(np.allclose(kin.p[1, 1], [0, 1, 0]))
    ((2, 2, 3), True)
    """
    if qdd is not None and qd is None:
        raise ValueError("qdd needs qd: accelerations depend on velocities")
    q, (qd, qdd), batch = check_states(model, q, (qd, "qd"), (qdd, "qdd"), optional=True)
    symbolic = model.symbolic or is_symbolic(q, qd, qdd)
    if symbolic:
        model = model.exact()
        q, qd, qdd = (None if x is None else exact(x) for x in (q, qd, qdd))
    # poses, base to tips
    L = joint_transforms(model, np.broadcast_to(q, batch + q.shape[-1:]))
    T = [None] * model.n_bodies
    for i, k in enumerate(model.parent):
        T[i] = L[..., i, :, :] if k < 0 else T[k] @ L[..., i, :, :]
    T = np.stack(T, axis=-3) if T else L
    R, p = T[..., :3, :3], T[..., :3, 3]
    # joint twists, one column per entry of qd, all at once
    dof_body, S = model._layout.dof_body, model._layout.dof_subspace
    R_c = R[..., dof_body, :, :]
    s_ang = matvec(R_c, S[:, 3:])
    s_lin = matvec(R_c, S[:, :3]) + cross3(p[..., dof_body, :], s_ang)
    s_all = np.swapaxes(np.concatenate([s_lin, s_ang], axis=-1), -1, -2)  # (..., 6, nv)
    s = tuple(s_all[..., vs] for vs in model.v_slices)
    kin = Kinematics(R, p, s)
    if qd is None:
        return kin
    v_joint = joint_velocities(model, kin, qd)
    v = from_base(model, v_joint)
    if qdd is None:
        return Kinematics(R, p, s, v)
    return Kinematics(R, p, s, v, from_base(model, joint_velocities(model, kin, qdd) + cross_motion(v, v_joint)))


def joint_velocities(model, kin, qd):
    """Every joint's contribution ``s_i qd_i`` to its body's twist (the twist relative to the parent).

    Parameters
    ----------
    model : Model
    kin : Kinematics
    qd : ndarray, shape (nv,) or (..., nv)
        Any joint-space vector (``qdd`` gives ``s_i qdd_i``).

    Returns
    -------
    ndarray, shape (n, 6) or (..., n, 6)
    """
    s = np.concatenate(kin.s, axis=-1) if kin.s else np.zeros(kin.p.shape[:-2] + (6, 0))
    return np.swapaxes((s * qd[..., None, :]) @ model._layout.dof_to_body, -1, -2)


def centres_of_mass(model, kin):
    """World position of every body's centre of mass, ``p_i + R_i c_i``.

    Parameters
    ----------
    model : Model
    kin : Kinematics
        From :func:`forward_kinematics`.

    Returns
    -------
    ndarray, shape (n, 3)

    References
    ----------
    Alexiou (2023) eq. 3; Concurrent Dynamics (2017) eq. 4.
    """
    _check_body(model, 0)  # model is a Model (every Model has a body 0)
    if not isinstance(kin, Kinematics):
        raise TypeError(f"kin must be the Kinematics of forward_kinematics, got {type(kin).__name__}")
    if kin.p.shape[-2] != model.n_bodies:
        raise ValueError(f"kin must be the Kinematics of model ({model.n_bodies} bodies), got {kin.p.shape[-2]} bodies")
    return kin.p + (kin.R @ model.com[..., None])[..., 0]


def marker_motion(kin, body, point):
    """Position, velocity and acceleration (world, classical) of a point fixed in a body.

    Parameters
    ----------
    kin : Kinematics
        From :func:`forward_kinematics`; velocity needs ``kin.v``, acceleration ``kin.a``.
    body : int
    point : array_like, shape (3,)
        Marker position in the body's frame (from its inboard joint).

    Returns
    -------
    position : ndarray, shape (3,)
    velocity : ndarray, shape (3,) or None
    acceleration : ndarray, shape (3,) or None

    References
    ----------
    Concurrent Dynamics (2017) eqs. 13-16.  With a world-frame twist ``[v_O; w]``
    and spatial acceleration ``[a_O; alpha]`` these read
    ``dx/dt = v_O + w x x`` and ``d2x/dt2 = a_O + alpha x x + w x dx/dt``.
    """

    if not isinstance(kin, Kinematics):
        raise TypeError(f"kin must be the Kinematics of forward_kinematics, got {type(kin).__name__}")
    check_index(body, kin.p.shape[-2], "body")
    point = as_finite(point, (3,), "point", batch=False)
    x = kin.p[..., body, :] + kin.R[..., body, :, :] @ point
    if kin.v is None:
        return x, None, None
    w = kin.v[..., body, 3:]
    xd = kin.v[..., body, :3] + cross3(w, x)
    if kin.a is None:
        return x, xd, None
    xdd = kin.a[..., body, :3] + cross3(kin.a[..., body, 3:], x) + cross3(w, xd)
    return x, xd, xdd


def direction_marker_motion(kin, body, direction):
    """World direction, turning rate and its derivative of a unit vector fixed in a body.

    Parameters
    ----------
    kin : Kinematics
    body : int
    direction : array_like, shape (3,)
        In the body's frame.

    Returns
    -------
    u, u_dot, u_ddot : ndarray, shape (3,) (the last two None without velocities/accelerations)

    References
    ----------
    Concurrent Dynamics (2017) eqs. 17-19.
    """

    if not isinstance(kin, Kinematics):
        raise TypeError(f"kin must be the Kinematics of forward_kinematics, got {type(kin).__name__}")
    check_index(body, kin.p.shape[-2], "body")
    direction = as_finite(direction, (3,), "direction", batch=False)
    u = kin.R[..., body, :, :] @ direction
    if kin.v is None:
        return u, None, None
    w = kin.v[..., body, 3:]
    ud = cross3(w, u)
    if kin.a is None:
        return u, ud, None
    return u, ud, cross3(kin.a[..., body, 3:], u) + cross3(w, ud)


def _world_jacobian(model, kin, body):
    J = zeros((6, model.nv), model.symbolic or is_symbolic(kin.R))
    for k in model.ancestors(body):
        J[:, model.v_slices[k]] = kin.s[k]
    return J


def body_jacobian(model, q, body, frame="world"):
    """Jacobian ``J`` with ``v_body = J @ qd``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    body : int
    frame : {"world", "local"}
        ``"world"``: twist in world coordinates about the world origin (columns are
        the ``s_k`` of the body's ancestors); ``"local"``: in the body's own frame.

    Returns
    -------
    ndarray, shape (6, nv)

    References
    ----------
    Alexiou (2023) eq. 7 summed along the chain.

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain
    >>> model = planar_chain(2)
    >>> J = body_jacobian(model, [0.0, 0.0], 1)
    >>> bool(np.allclose(J[:, 1], [0, -1, 0, 0, 0, 1]))   # s_2 = [r_2 x z; z] with r_2 = (1, 0, 0)
    True
    """
    _check_body(model, body)
    if frame not in ("world", "local"):
        raise ValueError(f"frame must be 'world' or 'local', got {frame!r}")
    kin = forward_kinematics(model, check_configuration(model, q))  # one configuration, not a batch
    J = _world_jacobian(model, kin, body)
    if frame == "local":
        J = inverse_transform(motion_transform(kin.R[body], kin.p[body])) @ J
    return J


def point_jacobian(model, q, body, point):
    """Jacobian of the world velocity of a point fixed in a body: ``dx/dt = J @ qd``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    body : int
    point : array_like, shape (3,)
        In the body's frame.

    Returns
    -------
    ndarray, shape (3, nv)
    """
    _check_body(model, body)
    check_finite(as_array(point, "point"), "point")
    kin = forward_kinematics(model, check_configuration(model, q))  # one configuration, not a batch
    x, _, _ = marker_motion(kin, body, point)
    J = _world_jacobian(model, kin, body)
    return J[:3] - skew(x) @ J[3:]
