"""Forward and hybrid dynamics through articulated inertia, in world coordinates.

The articulated inertia ``IA_i`` and bias force ``pA_i`` of body ``i`` describe the whole
subtree hanging from joint ``i`` as if it were one body: the force that joint ``i`` must
apply is ``f_i = IA_i a_i + pA_i`` whatever the acceleration ``a_i`` of body ``i``.

Chapter: *Articulated inertia and forward dynamics*; Alexiou (1999) "Articulated Inertia
Concept", "Articulated Inertia Recursion", "Articulated Equations of Motion", "Recursive
Accelerations", "Recursive Forces"; Kim (2012) eqs. 43-53, Tables 3 and 4 (in body
coordinates: ``dynlib.body_frame``); Featherstone (2008) §7.3.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._backend import exact, is_symbolic, matvec, solve_spd, transpose_matvec, zeros
from .energy import gravity_acceleration, world_inertias
from .inverse_dynamics import check_external_forces
from .kinematics import check_states, forward_kinematics, joint_velocities
from .model import batch_shape, check_configuration, check_velocity
from .spatial import cross_force, cross_motion

__all__ = ["ArticulatedBodies", "velocity_products", "articulated_bodies", "aba", "hybrid_dynamics"]


class ArticulatedBodies(NamedTuple):
    """Per-body results of the first two passes of the articulated-body algorithm (world frame).

    Attributes
    ----------
    IA : ndarray, shape (n, 6, 6)
        Articulated inertia of the subtree rooted at each body.
    pA : ndarray, shape (n, 6)
        Articulated bias force.
    U : tuple of ndarray, shape (6, nv_i)
        ``IA_i s_i`` (Featherstone's ``U``; not the reactive accelerations ``U`` of
        :func:`dynlib.subspace_decomposition`, although ``IA_i s_i D_i^-1`` is its active force ``T``).
    D : tuple of ndarray, shape (nv_i, nv_i)
        ``s_i^T IA_i s_i``: the inertia the joint feels along its own motion.
    u : tuple of ndarray, shape (nv_i,)
        ``tau_i - s_i^T pA_i``.
    c : ndarray, shape (n, 6)
        Velocity-product accelerations ``v_i x s_i qd_i``.
    s : tuple of ndarray, shape (6, nv_i)
        World-frame joint twists.
    """

    IA: np.ndarray
    pA: np.ndarray
    U: tuple
    D: tuple
    u: tuple
    c: np.ndarray
    s: tuple


def _prepare(model, q, f_ext, *joint_vectors, batch=False):
    """Kinematics, world inertias and checked inputs shared by the articulated algorithms.

    ``joint_vectors`` are (array, name) pairs; the first is the joint velocity.  With
    ``batch`` the inputs may carry leading batch axes, and all come back broadcast to one
    batch shape.
    """
    if not batch:
        check_configuration(model, q)
        for x, name in joint_vectors:
            check_velocity(model, x, name)
    q, vectors, _ = check_states(model, q, *joint_vectors)
    f_ext = check_external_forces(model, f_ext, batch)
    names = [name for _, name in joint_vectors]
    shape = batch_shape((q, 1, "q"), (f_ext, 2, "f_ext"), *((x, 1, name) for x, name in zip(vectors, names)))
    q, vectors = np.broadcast_to(q, shape + q.shape[-1:]), [np.broadcast_to(x, shape + x.shape[-1:]) for x in vectors]
    kin = forward_kinematics(model, q, vectors[0])
    symbolic = model.symbolic or is_symbolic(kin.R, kin.v, f_ext, *vectors)
    if symbolic:
        model, f_ext, vectors = model.exact(), exact(f_ext), [exact(x) for x in vectors]
    return model, kin, world_inertias(model, kin), f_ext, vectors, symbolic


def velocity_products(model, kin, I, qd, f_ext):
    """Pass 1 shared by the articulated algorithms: the terms that depend on velocity alone.

    ``c_i = v_i x s_i qd_i`` (the velocity-product acceleration) and
    ``p_i = v_i x* I_i v_i - f_ext_i`` (the rigid-body bias force), for every body at once.

    Parameters
    ----------
    model : Model
    kin : Kinematics
        From :func:`dynlib.forward_kinematics` with velocities.
    I : ndarray, shape (n, 6, 6) or (..., n, 6, 6)
        World-frame inertias (:func:`dynlib.world_inertias`).
    qd : ndarray, shape (nv,) or (..., nv)
    f_ext : ndarray, shape (n, 6) or (..., n, 6)

    Returns
    -------
    c, p : ndarray, shape (n, 6) or (..., n, 6)

    References
    ----------
    Alexiou (1999) "Acceleration Kinematics" (``K_i``), "Newton-Euler Equations of Motion" (``p_i``).
    """
    c = cross_motion(kin.v, joint_velocities(model, kin, qd))
    p = cross_force(kin.v, matvec(I, kin.v)) - f_ext
    return c, p


def articulated_bodies(model, q, qd, tau, f_ext=None):
    """Articulated inertias and bias forces of every body: passes 1 and 2 of :func:`aba`.

    Pass 1 (base to tips)::

        c_i = v_i x s_i qd_i,   IA_i = I_i,   pA_i = v_i x* I_i v_i - f_ext_i

    Pass 2 (tips to base), for each body with a parent::

        U_i = IA_i s_i,  D_i = s_i^T U_i,  u_i = tau_i - s_i^T pA_i
        IA_parent += IA_i - U_i D_i^-1 U_i^T
        pA_parent += pA_i + (IA_i - U_i D_i^-1 U_i^T) c_i + U_i D_i^-1 u_i

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (..., nq)
    qd, tau : array_like, shape (nv,) or (..., nv)
    f_ext : array_like, shape (n, 6) or (..., n, 6), optional

    Returns
    -------
    ArticulatedBodies
        With the batch axes first in every array, for a batch of states.

    Raises
    ------
    ValueError
        If some ``D_i`` is singular: joint ``i`` moves a subtree that has no inertia
        along the joint's motion (a massless leaf body, say).

    References
    ----------
    Alexiou (1999) "Articulated Inertia Recursion"; Kim (2012) eqs. 49-50, Table 3;
    Featherstone (2008) Table 7.1.
    """
    model, kin, I, f_ext, (qd, tau), symbolic = _prepare(model, q, f_ext, (qd, "qd"), (tau, "tau"), batch=True)
    n = model.n_bodies
    # pass 1: velocity-product accelerations and rigid-body bias forces
    c, pA = velocity_products(model, kin, I, qd, f_ext)
    IA = I.copy()
    # pass 2: articulated inertias and bias forces, tips to base
    U, D, u = [None] * n, [None] * n, [None] * n
    for i in reversed(range(n)):
        s, vs, k = kin.s[i], model.v_slices[i], model.parent[i]
        IA_i, pA_i = IA[..., i, :, :], pA[..., i, :]
        U[i] = IA_i @ s
        D[i] = np.swapaxes(s, -1, -2) @ U[i]
        u[i] = tau[..., vs] - transpose_matvec(s, pA_i)
        if k >= 0:
            what = f"D = s^T IA s of joint {i} (body {i} and its subtree carry no inertia along the joint)"
            Dinv_Ut = solve_spd(D[i], np.swapaxes(U[i], -1, -2), what) if s.shape[-1] else np.swapaxes(U[i], -1, -2)
            Ia = IA_i - U[i] @ Dinv_Ut
            IA[..., k, :, :] += Ia
            pA[..., k, :] += pA_i + matvec(Ia, c[..., i, :]) + transpose_matvec(Dinv_Ut, u[i])
    return ArticulatedBodies(IA, pA, tuple(U), tuple(D), tuple(u), c, kin.s)


def aba(model, q, qd, tau, f_ext=None):
    """Joint accelerations produced by joint forces ``tau``: forward dynamics in O(n).

    Passes 1 and 2 are :func:`articulated_bodies`; pass 3 runs base to tips::

        qdd_i = D_i^-1 (u_i - U_i^T (a_parent + c_i))          (a_base = -[g; 0])
        a_i = a_parent + c_i + s_i qdd_i

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (..., nq)
        A leading batch of states gives a batch of results.
    qd, tau : array_like, shape (nv,) or (..., nv)
    f_ext : array_like, shape (n, 6) or (..., n, 6), optional
        External wrench on each body (world frame, about the origin).

    Returns
    -------
    ndarray, shape (nv,) or (..., nv)

    Raises
    ------
    ValueError
        If a joint carries no inertia along its motion (see :func:`articulated_bodies`).

    References
    ----------
    Alexiou (1999) "Recursive Accelerations"; Kim (2012) Table 3; Featherstone (2008) Table 7.1.

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain
    >>> model = planar_chain(1, length=2.0, mass=3.0)            # a rod released horizontally
    >>> qdd = aba(model, [0.0], [0.0], [0.0])
    >>> bool(np.isclose(qdd[0], -9.81 * 1.0 / (2.0**2 / 3)))     # -m g (L/2) / (m L^2 / 3)
    True
    """
    art = articulated_bodies(model, q, qd, tau, f_ext)
    symbolic = is_symbolic(art.IA)
    model = model.exact() if symbolic else model
    a = [None] * model.n_bodies
    qdd = zeros(art.pA.shape[:-2] + (model.nv,), symbolic)
    # pass 3: accelerations, base to tips
    for i in range(model.n_bodies):
        k = model.parent[i]
        a_in = (-gravity_acceleration(model) if k < 0 else a[k]) + art.c[..., i, :]
        vs = model.v_slices[i]
        if art.s[i].shape[-1]:
            what = f"D = s^T IA s of joint {i} (body {i} and its subtree carry no inertia along the joint)"
            qdd[..., vs] = solve_spd(art.D[i], art.u[i] - transpose_matvec(art.U[i], a_in), what)
        a[i] = a_in + matvec(art.s[i], qdd[..., vs])
    return qdd


def hybrid_dynamics(model, q, qd, qdd, tau, accel_given, f_ext=None):
    """Hybrid dynamics: joints whose acceleration is given return their force, the others
    their acceleration, in O(n).

    A joint with prescribed acceleration is rigid as far as its subtree is concerned, so
    its subtree's articulated inertia passes to the parent unprojected::

        prescribed i:  IA_parent += IA_i,  pA_parent += pA_i + IA_i (c_i + s_i qdd_i)
        free i:        as in :func:`articulated_bodies`

    and the outward pass gives ``tau_i = s_i^T (IA_i a_i + pA_i)`` for prescribed joints
    and ``qdd_i`` as in :func:`aba` for the others.  With every joint prescribed this is
    inverse dynamics; with none, forward dynamics.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    qd : array_like, shape (nv,)
    qdd : array_like, shape (nv,)
        Accelerations; only the entries of prescribed joints are read.
    tau : array_like, shape (nv,)
        Joint forces; only the entries of the other joints are read.
    accel_given : sequence of bool, length n
        ``True`` where joint ``i``'s acceleration is prescribed.
    f_ext : array_like, shape (n, 6), optional

    Returns
    -------
    qdd : ndarray, shape (nv,)
        All accelerations (prescribed ones copied).
    tau : ndarray, shape (nv,)
        All joint forces (given ones copied).

    References
    ----------
    Kim (2012) §2.3, eqs. 51-53 and Table 4; Featherstone (2008) §9.2.
    """
    model, kin, I, f_ext, (qd, qdd, tau), symbolic = _prepare(
        model, q, f_ext, (qd, "qd"), (qdd, "qdd"), (tau, "tau")
    )
    accel_given = [bool(x) for x in accel_given]
    if len(accel_given) != model.n_bodies:
        raise ValueError(f"accel_given must have one flag per joint ({model.n_bodies}), got {len(accel_given)}")
    qdd, tau = qdd.copy(), tau.copy()
    n = model.n_bodies
    c, pA = velocity_products(model, kin, I, qd, f_ext)  # pass 1
    IA = I.copy()
    U, D, u = [None] * n, [None] * n, [None] * n
    for i in reversed(range(n)):  # pass 2
        s, vs, k = kin.s[i], model.v_slices[i], model.parent[i]
        if accel_given[i]:
            Ia, pa = IA[i], pA[i] + IA[i] @ (c[i] + s @ qdd[vs])
        else:
            U[i] = IA[i] @ s
            D[i] = s.T @ U[i]
            u[i] = tau[vs] - s.T @ pA[i]
            Dinv_Ut = solve_spd(D[i], U[i].T, f"D = s^T IA s of free joint {i}") if s.shape[1] else U[i].T
            Ia = IA[i] - U[i] @ Dinv_Ut
            pa = pA[i] + Ia @ c[i] + Dinv_Ut.T @ u[i]
        if k >= 0:
            IA[k] += Ia
            pA[k] += pa
    a_base = -gravity_acceleration(model)
    a = zeros((n, 6), symbolic)
    for i in range(n):  # pass 3
        s, vs, k = kin.s[i], model.v_slices[i], model.parent[i]
        a_in = (a_base if k < 0 else a[k]) + c[i]
        if accel_given[i]:
            a[i] = a_in + s @ qdd[vs]
            tau[vs] = s.T @ (IA[i] @ a[i] + pA[i])
        else:
            if s.shape[1]:
                qdd[vs] = solve_spd(D[i], u[i] - U[i].T @ a_in, f"D = s^T IA s of free joint {i}")
            a[i] = a_in + s @ qdd[vs]
    return qdd, tau
