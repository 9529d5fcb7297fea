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

from ._backend import as_array, check_finite, exact, is_symbolic, zeros
from .model import _check_body, check_configuration, check_velocity
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


def forward_kinematics(model, q, qd=None, qdd=None):
    """Poses, joint twists, body twists and accelerations of every body, from base to tips.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    qd : array_like, shape (nv,), optional
    qdd : array_like, shape (nv,), optional
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
    """
    q = check_configuration(model, q)
    if qdd is not None and qd is None:
        raise ValueError("qdd needs qd: accelerations depend on velocities")
    if qd is not None:
        qd = check_velocity(model, qd, "qd")
    if qdd is not None:
        qdd = check_velocity(model, qdd, "qdd")
    n = model.n_bodies
    symbolic = model.symbolic or is_symbolic(q, qd, qdd)
    if symbolic:
        model = model.exact()
        q, qd, qdd = (None if x is None else exact(x) for x in (q, qd, qdd))
    R, p = zeros((n, 3, 3), symbolic), zeros((n, 3), symbolic)
    v = zeros((n, 6), symbolic) if qd is not None else None
    a = zeros((n, 6), symbolic) if qdd is not None else None
    s = []
    for i, joint in enumerate(model.joints):
        R_J, p_J = joint.pose(q[model.q_slices[i]])
        T = model.placements[i]
        if model.parent[i] < 0:
            R_joint, p_joint = T[:3, :3], T[:3, 3]
        else:
            k = model.parent[i]
            R_joint, p_joint = R[k] @ T[:3, :3], p[k] + R[k] @ T[:3, 3]
        R[i] = R_joint @ R_J
        p[i] = p_joint + R_joint @ p_J
        S = joint.S
        s_ang = R[i] @ S[3:]
        s_i = np.concatenate([R[i] @ S[:3] + skew(p[i]) @ s_ang, s_ang])
        s.append(s_i)
        if qd is None:
            continue
        vs = model.v_slices[i]
        k = model.parent[i]
        v_rel = s_i @ qd[vs]
        v[i] = v_rel if k < 0 else v[k] + v_rel
        if qdd is not None:
            a[i] = s_i @ qdd[vs] + cross_motion(v[i], v_rel)
            if k >= 0:
                a[i] += a[k]
    return Kinematics(R, p, tuple(s), v, a)


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
    point = as_array(point, "point")
    if point.shape != (3,):
        raise ValueError(f"point must have shape (3,), got {point.shape}")
    x = kin.p[body] + kin.R[body] @ point
    if kin.v is None:
        return x, None, None
    w = kin.v[body, 3:]
    xd = kin.v[body, :3] + cross3(w, x)
    if kin.a is None:
        return x, xd, None
    xdd = kin.a[body, :3] + cross3(kin.a[body, 3:], x) + cross3(w, xd)
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
    direction = as_array(direction, "direction")
    if direction.shape != (3,):
        raise ValueError(f"direction must have shape (3,), got {direction.shape}")
    u = kin.R[body] @ direction
    if kin.v is None:
        return u, None, None
    w = kin.v[body, 3:]
    ud = cross3(w, u)
    if kin.a is None:
        return u, ud, None
    return u, ud, cross3(kin.a[body, 3:], u) + cross3(w, ud)


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
    kin = forward_kinematics(model, q)
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
    kin = forward_kinematics(model, q)
    x, _, _ = marker_motion(kin, body, point)
    J = _world_jacobian(model, kin, body)
    return J[:3] - skew(x) @ J[3:]
