"""Recursive kinematics of a tree: poses, world-frame joint twists, body twists and accelerations,
markers and Jacobians.

All 6-vectors are in world coordinates about the world origin (linear first):
the joint twist of body ``i`` is ``s_i = X_0i S_i`` and

    v_i = v_parent + s_i qd_i,
    a_i = a_parent + s_i qdd_i + v_i x s_i qd_i,

where ``a_i`` is the *spatial* acceleration (the time derivative of ``v_i``).
Classical accelerations of body points come from the marker functions.

Inside the kernels the same world coordinates are taken about a reference point near the system,
the origin of body 0's frame (:func:`~dynlib.kernels.reference_point`), instead of the world origin: a moment about
a point a kilometre away is a large number whose terms cancel, and every joint-space result
(``tau``, ``H``, ``qdd``) is the same about any point.  The doors move what they return about the
world origin (``about_origin``), so only the caller's own 6-vectors carry the size of the
distance.

Chapter: *Rigid-body motion and joints*; Alexiou (2023) eqs. 1-7; Alexiou (1999)
"Velocity Kinematics", "Acceleration Kinematics"; Concurrent Dynamics (2017) eqs. 2-19.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.backend import as_array, as_finite, check_finite, check_index, is_symbolic, zeros
from ..core.compile import kernel, run
from ..spatial.algebra import cross3, cross_motion, inverse_transform, motion_transform, skew
from ..spatial.inertia import momentum
from .joints import compose, joint_pose
from .model import check_body, check_model, check_state, reference_of, reference_point

__all__ = [
    "Kinematics",
    "forward_kinematics",
    "centres_of_mass",
    "marker_motion",
    "direction_marker_motion",
    "body_jacobian",
    "point_jacobian",
    "world_inertias",
    "gravity_acceleration",
    "gravity_wrenches",
]


class Kinematics(NamedTuple):
    """Per-body results of :func:`forward_kinematics` (n bodies, world frame about the origin).

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
    I : ndarray, shape (n, 6, 6)
        World-frame spatial inertias (:func:`world_inertias`).
    v : ndarray, shape (n, 6), or None
        Body twists if ``qd`` was given.
    a : ndarray, shape (n, 6), or None
        Spatial accelerations (derivatives of ``v``, the base at rest) if ``qd`` and ``qdd`` were given.
    """

    R: np.ndarray
    p: np.ndarray
    s: tuple
    I: np.ndarray
    v: np.ndarray | None = None
    a: np.ndarray | None = None


@kernel(inline=True)
def world_inertia(mass, p, R, com, I_com):
    """Spatial inertia about the world origin of a body whose frame is at the pose ``(R, p)``.

    Parameters
    ----------
    mass : float or sympy expression
    p : ndarray, shape (3,)
    R : ndarray, shape (3, 3)
        The body frame's position and orientation in the world.
    com : ndarray, shape (3,)
        The centre of mass in the body frame.
    I_com : ndarray, shape (3, 3)
        Rotational inertia about the centre of mass, in body axes.

    Returns
    -------
    ndarray, shape (6, 6)
        ``[[m 1, -m [c]], [m [c], R I_com R^T - m [c][c]]]`` with ``c = p + R com`` and
        ``[c][c] = c c^T - (c.c) 1``.

    References
    ----------
    Chapter *Spatial inertia*; Alexiou (2023) eqs. 8-9; Lecture 4 "Spatial Momentum" (parallel axes).
    """
    c = p.copy()                                            # c = p + R com
    for r in range(3):
        for k in range(3):
            c[r] += R[r, k] * com[k]
    I = np.zeros((6, 6), dtype=R.dtype)
    for r in range(3):
        I[r, r] = mass
        I[3 + r, 3 + r] = mass * (c[0] * c[0] + c[1] * c[1] + c[2] * c[2])
        for k in range(3):
            for j in range(3):                              # R I_com R^T
                for l in range(3):
                    I[3 + r, 3 + k] += R[r, j] * I_com[j, l] * R[k, l]
            I[3 + r, 3 + k] -= mass * c[r] * c[k]             # - m [c][c] = m ((c.c) 1 - c c^T)
    I[0, 4], I[0, 5], I[1, 5] = mass * c[2], -mass * c[1], mass * c[0]    # -m [c]
    I[1, 3], I[2, 3], I[2, 4] = -mass * c[2], mass * c[1], -mass * c[0]
    I[3:, :3] = I[:3, 3:].T                                 # m [c]
    return I


@kernel
def body_kinematics(m, q):
    """Poses, world joint twists and world inertias of every body of one state, from the base out.

    Positions are measured from the reference point ``r`` (:func:`~dynlib.kernels.reference_point`, the origin of
    body 0's frame) and the 6-vectors are world coordinates about ``r``, so that nothing cancels far
    from the world origin.

    Parameters
    ----------
    m : ModelArrays
        The model's arrays (``model.arrays``).
    q : ndarray, shape (nq,)

    Returns
    -------
    R : ndarray, shape (n, 3, 3)
    p : ndarray, shape (n, 3)
        Each body frame's origin, from ``r``.
    s : ndarray, shape (nv, 6)
        The world twist of each entry of ``qd`` (joint ``i``'s ``s_i`` is ``s[v_start[i]:v_start[i + 1]].T``).
    I : ndarray, shape (n, 6, 6)

    References
    ----------
    Chapter *Rigid-body motion and joints*; Alexiou (2023) eqs. 1-2 and 8-9; Concurrent Dynamics (2017) eqs. 2-12.
    """
    n = m.parent.shape[0]
    R, p = np.zeros((n, 3, 3), dtype=q.dtype), np.zeros((n, 3), dtype=q.dtype)
    s = np.zeros((m.v_start[n], 6), dtype=q.dtype)
    I = np.zeros((n, 6, 6), dtype=q.dtype)
    r = reference_point(m, q)
    for i in range(n):
        q_i = q[m.q_start[i] : m.q_start[i + 1]]
        R_J, p_J = joint_pose(m.kind[i], m.axis[i], m.pitch[i], q_i)
        # child frame in the parent's frame
        R_L, p_L = compose(m.R0[i], m.p0[i], R_J, p_J)
        k = m.parent[i]
        # a root's position from r
        R[i], p[i] = compose(R[k], p[k], R_L, p_L) if k >= 0 else (R_L, p_L - r)
        for d in range(m.v_start[i], m.v_start[i + 1]):
            # s = X_0i S: a joint twist
            s[d] = motion_to_world(R[i], p[i], m.S[d])
        I[i] = world_inertia(m.mass[i], p[i], R[i], m.com[i], m.inertia_com[i])
    return R, p, s, I


@kernel(inline=True)
def motion_to_world(R, p, S):
    """``X_0i S``: a motion vector ``S`` of a body frame at the pose ``(R, p)``, in world coordinates.

    Parameters
    ----------
    R : ndarray, shape (3, 3)
    p : ndarray, shape (3,)
    S : ndarray, shape (6,)
        ``[v; w]`` in the body frame.

    Returns
    -------
    ndarray, shape (6,)
        ``[R v + p x R w; R w]``.
    """
    s = np.zeros(6, dtype=R.dtype)
    for r in range(3):
        for k in range(3):
            s[r] += R[r, k] * S[k]
            s[3 + r] += R[r, k] * S[3 + k]
    s[0] += p[1] * s[5] - p[2] * s[4]
    s[1] += p[2] * s[3] - p[0] * s[5]
    s[2] += p[0] * s[4] - p[1] * s[3]
    return s


@kernel
def body_motion(m, s, qd, qdd):
    """Twists and spatial accelerations of every body, the base at rest.

    Parameters
    ----------
    m : ModelArrays
        The model's arrays (``model.arrays``).
    s : ndarray, shape (nv, 6)
        World twists of the entries of ``qd`` (:func:`~dynlib.kernels.body_kinematics`).
    qd, qdd : ndarray, shape (nv,)

    Returns
    -------
    v, a : ndarray, shape (n, 6)

    References
    ----------
    Chapter *Rigid-body motion and joints*; Alexiou (1999) "Velocity Kinematics", "Acceleration Kinematics".
    """
    n = m.parent.shape[0]
    v, a = np.zeros((n, 6), dtype=qd.dtype), np.zeros((n, 6), dtype=qd.dtype)
    for i in range(n):
        k, d = m.parent[i], slice(m.v_start[i], m.v_start[i + 1])
        vJ = s[d].T @ qd[d]                                       # s_i qd_i
        v[i] = v[k] + vJ if k >= 0 else vJ
        a[i] = s[d].T @ qdd[d] + cross_motion(v[i], vJ)
        if k >= 0:
            a[i] += a[k]
    return v, a


@kernel
def kinematics_batch(m, q, qd, qdd):
    """The kernels :func:`~dynlib.kernels.body_kinematics` and :func:`~dynlib.kernels.body_motion` for a batch of
    states (``q`` of shape (B, nq))."""
    B, n, nv = q.shape[0], m.parent.shape[0], qd.shape[1]
    R, p, s = np.zeros((B, n, 3, 3)), np.zeros((B, n, 3)), np.zeros((B, nv, 6))
    I, v, a = np.zeros((B, n, 6, 6)), np.zeros((B, n, 6)), np.zeros((B, n, 6))
    for b in range(B):
        R[b], p[b], s[b], I[b] = body_kinematics(m, q[b])
        v[b], a[b] = body_motion(m, s[b], qd[b], qdd[b])
    return R, p, s, I, v, a


def joint_columns(model, s):
    """The twists of every entry of ``qd``, rows of ``s`` (..., nv, 6), grouped by joint: ``s_i`` (..., 6, nv_i)."""
    return tuple(np.swapaxes(s[..., vs, :], -1, -2) for vs in model.v_slices)


def forward_kinematics(model, q, qd=None, qdd=None):
    """Poses, joint twists, inertias, body twists and accelerations of every body, from base to tips.

    Each body's pose composes its parent's pose with its joint frame's placement and the joint's
    motion; its joint twist is the joint's constant subspace moved to the world; twists and
    accelerations then add up from the base (:func:`~dynlib.kernels.body_kinematics`,
    :func:`~dynlib.kernels.body_motion`)::

        T_i = T_parent P_i T_J(q_i)
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
    Alexiou (2023) eqs. 1-2 and 6-9; Alexiou (1999) "Acceleration Kinematics"; Concurrent Dynamics
    (2017) eqs. 2-12; chapter *Rigid-body motion and joints*.

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
    return about_origin(*state_kinematics(check_state(model, q, qd=qd, qdd=qdd, optional=("qd", "qdd"))))


def state_kinematics(state):
    """The kinematics of a state already checked by :func:`dynlib.check_state` (no checks again), about its
    reference point: ``(kin, r)`` (see :func:`kinematics_of`)."""
    return kinematics_of(state.model, state.q, state.qd, state.qdd)


def kinematics_of(model, q, qd=None, qdd=None):
    """The kinematics of inputs already checked (a door's inner step), about their reference point: runs the kernels.

    Returns ``(kin, r)``: a :class:`Kinematics` whose positions are measured from ``r`` (the origin of
    body 0's frame, :func:`~dynlib.kernels.reference_point`; shape ``batch + (3,)``) and whose 6-vectors are about
    ``r``, and ``r`` itself; ``about_origin`` turns it into :func:`forward_kinematics`'s.  ``q`` may
    carry leading batch axes (floats only); sympy object arrays run the kernels as Python.
    """
    symbolic = model.symbolic or is_symbolic(q, qd, qdd)
    qd_ = zeros(q.shape[:-1] + (model.nv,), symbolic) if qd is None else qd
    qdd_ = zeros(qd_.shape, symbolic) if qdd is None else qdd
    if symbolic or q.ndim == 1:
        R, p, s, I = run(body_kinematics, None, model.arrays, (q,), (), symbolic)
        v, a = run(body_motion, None, model.arrays, (s, qd_, qdd_), (), symbolic)
        r = reference_of(model, q)
    else:
        batch = np.broadcast_shapes(q.shape[:-1], qd_.shape[:-1], qdd_.shape[:-1])
        states = (np.broadcast_to(q, batch + q.shape[-1:]), np.broadcast_to(qd_, batch + qd_.shape[-1:]),
                  np.broadcast_to(qdd_, batch + qdd_.shape[-1:]))
        R, p, s, I, v, a = run(body_kinematics, kinematics_batch, model.arrays, states, batch)
        r = reference_of(model, states[0], batch)
    kin = Kinematics(R, p, joint_columns(model, s), I, None if qd is None else v, None if qdd is None else a)
    return kin, r


def about_origin(kin, r):
    """The :class:`Kinematics` ``kin``, measured from the point ``r`` and about it, moved to the world origin.

    Positions gain ``r``; twists, joint twists and accelerations their moment ``r x w``; inertias
    the parallel-axis terms (:func:`inertia_about_origin`).
    """
    if is_symbolic(r) or not np.any(r):  # at the world origin already (an exact state's is)
        return kin
    rb = r[..., None, :]
    return Kinematics(kin.R, kin.p + rb, tuple(motion_about_origin(s, r, columns=True) for s in kin.s),
                      inertia_about_origin(kin.I, rb), None if kin.v is None else motion_about_origin(kin.v, rb),
                      None if kin.a is None else motion_about_origin(kin.a, rb))


def motion_about_origin(v, r, columns=False):
    """Motion vectors ``[v_r; w]`` about the point ``r`` as ``[v_r + r x w; w]``, about the world origin.

    ``v`` has shape (..., 6), or (..., 6, k) with ``columns``; ``r`` broadcasts against the rest.
    """
    if not np.any(r):  # the world origin itself: nothing to move (and no signed zeros made)
        return v
    if columns:
        return np.swapaxes(motion_about_origin(np.swapaxes(v, -1, -2), r[..., None, :]), -1, -2)
    return np.concatenate([v[..., :3] + cross3(r, v[..., 3:]), v[..., 3:]], axis=-1)


def force_about_origin(f, r, columns=False):
    """Force vectors ``[f; n_r]`` about the point ``r`` as ``[f; n_r + r x f]``, about the world origin."""
    if not np.any(r):
        return f
    if columns:
        return np.swapaxes(force_about_origin(np.swapaxes(f, -1, -2), r[..., None, :]), -1, -2)
    return np.concatenate([f[..., :3], f[..., 3:] + cross3(r, f[..., :3])], axis=-1)


def _motion_transform_from(r):
    """``X`` with ``v_O = X v_r``: ``[[1, [r]x], [0, 1]]``, for points ``r`` of shape (..., 3)."""
    X = np.zeros(r.shape[:-1] + (6, 6))
    X[..., range(6), range(6)] = 1.0
    X[..., :3, 3:] = skew(r)
    return X


def inertia_about_origin(I, r):
    """Spatial inertias (motion to force) about the point ``r``, about the world origin: ``X^-T I X^-1``."""
    if not np.any(r):
        return I
    X_inv = _motion_transform_from(-r)
    return np.swapaxes(X_inv, -1, -2) @ I @ X_inv


def mobility_about_origin(L, r):
    """Mobilities (force to motion, ``Lambda_inv``) about the point ``r``, about the world origin: ``X L X^T``."""
    if not np.any(r):
        return L
    X = _motion_transform_from(r)
    return X @ L @ np.swapaxes(X, -1, -2)


def force_map_about_origin(Phi, r):
    """Maps from force to force about the point ``r``, about the world origin: ``X^-T Phi X^T``."""
    if not np.any(r):
        return Phi
    X = _motion_transform_from(r)
    return np.swapaxes(_motion_transform_from(-r), -1, -2) @ Phi @ np.swapaxes(X, -1, -2)


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
    check_kinematics(model, kin)
    model = model.exact() if is_symbolic(kin.R) else model
    return kin.p + (kin.R @ model.com[..., None])[..., 0]


def check_kinematics(model, kin):
    """Raise unless ``kin`` is the :class:`Kinematics` of a state of ``model``."""
    check_model(model)
    if not isinstance(kin, Kinematics):
        raise TypeError(f"kin must be the Kinematics of forward_kinematics, got {type(kin).__name__}")
    if kin.p.shape[-2] != model.n_bodies:
        raise ValueError(f"kin must be the Kinematics of model ({model.n_bodies} bodies), got {kin.p.shape[-2]} bodies")


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
        raise TypeError(
            "kin must be the Kinematics of forward_kinematics, "
            f"got {type(kin).__name__}"
        )
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


def world_jacobian(model, kin, body):
    """The world Jacobian of ``body`` from its Kinematics: the columns ``s_k`` of its ancestors, zero elsewhere."""
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
    body = check_body(model, body)
    if frame not in ("world", "local"):
        raise ValueError(f"frame must be 'world' or 'local', got {frame!r}")
    kin, r = state_kinematics(check_state(model, q, batch=False))  # one configuration, not a batch
    J = world_jacobian(model, kin, body)  # about r
    if frame == "local":
        return inverse_transform(motion_transform(kin.R[body], kin.p[body])) @ J
    return motion_about_origin(J, r, columns=True)


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
    body = check_body(model, body)
    check_finite(as_array(point, "point"), "point")
    kin, _ = state_kinematics(check_state(model, q, batch=False))  # one configuration, about its reference point
    x, _, _ = marker_motion(kin, body, point)
    J = world_jacobian(model, kin, body)
    return J[:3] - skew(x) @ J[3:]


def world_inertias(model, kin):
    """Spatial inertia of every body in world coordinates about the world origin.

    ``I_i = X*_0i I_i^body X_i0`` (Alexiou (2023) eq. 9 with ``R_i I^body R_i^T``, eq. 8),
    evaluated by :func:`forward_kinematics` (the kernel :func:`~dynlib.kernels.world_inertia`) from the mass ``m``,
    the world centre of mass ``c`` and the rotational inertia about it, ``R_i I_com R_i^T``,
    without forming the 6×6 transforms::

        I_i = [[m 1, -m [c]], [m [c], R_i I_com R_i^T - m [c][c]]]

    Parameters
    ----------
    model : Model
    kin : Kinematics
        From :func:`dynlib.forward_kinematics` for the same configuration (or batch).

    Returns
    -------
    ndarray, shape (n, 6, 6) or (..., n, 6, 6)

    References
    ----------
    Alexiou (2023) eqs. 8-9; Lecture 4 "Spatial Momentum" (parallel-axis theorem).
    """
    check_kinematics(model, kin)
    return kin.I.copy()


def gravity_acceleration(model):
    """The uniform gravity field as a spatial acceleration ``[g; 0]`` (linear part first).

    The recursive algorithms start the base with acceleration ``-gravity_acceleration(model)``
    (Lecture 4's trick): every body then feels gravity without a force term per body.

    Parameters
    ----------
    model : Model

    Returns
    -------
    ndarray, shape (6,)
    """
    return np.concatenate([model.gravity, np.zeros(3, dtype=model.gravity.dtype)])


def gravity_wrenches(model, kin):
    """The wrench of gravity on every body, world frame about the origin: ``I_i [g; 0]``.

    A uniform field pulls on body ``i`` with its weight ``m_i g`` through the centre of
    mass ``c_i``, so the wrench is ``[m_i g; c_i x m_i g]``, which is the body's world
    inertia applied to the spatial acceleration ``[g; 0]`` of :func:`gravity_acceleration`.

    Parameters
    ----------
    model : Model
    kin : Kinematics
        From :func:`dynlib.forward_kinematics` for the same configuration.

    Returns
    -------
    ndarray, shape (n, 6)

    References
    ----------
    Chapter *Spatial inertia and the Newton–Euler equations* (``ch-inertia``), the
    spinning top; Lecture 4 "Recursive Newton Euler" (the gravity term ``I_i a_g``).

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import forward_kinematics, planar_chain
    >>> model = planar_chain(1, length=2.0, mass=3.0)             # a rod along x, y up
    >>> f = gravity_wrenches(model, forward_kinematics(model, [0.0]))
    >>> bool(np.allclose(f[0], [0, -3 * 9.81, 0, 0, 0, -3 * 9.81 * 1.0]))
    True
    """
    check_kinematics(model, kin)
    g = gravity_acceleration(model.exact() if is_symbolic(kin.I) else model)
    return momentum(kin.I, g)
