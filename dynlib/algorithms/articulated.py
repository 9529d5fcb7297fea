"""Forward and hybrid dynamics through articulated inertia, in world coordinates.

The articulated inertia ``IA_i`` and bias force ``pA_i`` of body ``i`` describe the whole
subtree hanging from joint ``i`` as if it were one body: the force that joint ``i`` must
apply is ``f_i = IA_i a_i + pA_i`` whatever the acceleration ``a_i`` of body ``i``.

Two steps make every articulated algorithm of the course, and they are written once here:
:func:`~dynlib.kernels.passed_to_parent` (what a body and its subtree pass through their joint to the parent) and
:func:`~dynlib.kernels.joint_acceleration` (the joint's share of ``f = IA a + pA``).  ``aba``, ``hybrid_dynamics``,
chain splitting and impulse propagation are loops around them.

Chapter: *Articulated inertia and forward dynamics*; Alexiou (1999) "Articulated Inertia
Concept", "Articulated Inertia Recursion", "Articulated Equations of Motion", "Recursive
Accelerations", "Recursive Forces"; Kim (2012) eqs. 43-53, Tables 3 and 4 (in body
coordinates: ``dynlib.body_frame``); Featherstone (2008) §7.3.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.compile import SingularJointInertia, kernel, run, solve_joint
from ..multibody.kinematics import (
    body_kinematics,
    force_about_origin,
    inertia_about_origin,
    joint_columns,
    motion_about_origin,
)
from ..multibody.model import check_state, reference
from ..spatial.algebra import cross_force, cross_motion

__all__ = [
    "ArticulatedBodies",
    "articulated_bodies",
    "aba",
    "hybrid_dynamics",
]

_NO_INERTIA = ("body {j} and its subtree carry no inertia along joint {j}'s motion, so a joint force would "
               "give it an unbounded acceleration")


class ArticulatedBodies(NamedTuple):
    """Per-body results of the first two passes of the articulated-body algorithm (world frame).

    Attributes
    ----------
    IA : ndarray, shape (n, 6, 6)
        Articulated inertia of the subtree rooted at each body.
    pA : ndarray, shape (n, 6)
        Articulated bias force.
    FA : tuple of ndarray, shape (6, nv_i)
        ``IA_i s_i``, the force that a unit acceleration of each joint freedom needs (Featherstone's
        ``U``; like the CRBA's ``F_i = Ic_i s_i``); ``FA_i D_i^-1`` is the active force ``T`` of
        :func:`dynlib.subspace_decomposition` of ``IA_i``.
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
    FA: tuple
    D: tuple
    u: tuple
    c: np.ndarray
    s: tuple


@kernel
def velocity_products(m, s, I, qd, f_ext):
    """Pass 1 of the articulated algorithms: the terms that depend on velocity alone.

    Parameters
    ----------
    m : ModelArrays
        The model's arrays (``model.arrays``).
    s : ndarray, shape (nv, 6)
        World twists of the entries of ``qd``.
    I : ndarray, shape (n, 6, 6)
        World inertias.
    qd : ndarray, shape (nv,)
    f_ext : ndarray, shape (n, 6)

    Returns
    -------
    v : ndarray, shape (n, 6)
        Body twists.
    c : ndarray, shape (n, 6)
        Velocity-product accelerations ``v_i x s_i qd_i``.
    p : ndarray, shape (n, 6)
        Rigid-body bias forces ``v_i x* I_i v_i - f_ext_i``.

    References
    ----------
    Chapter *Articulated inertia*; Alexiou (1999) "Acceleration Kinematics", "Newton-Euler Equations of Motion".
    """
    n = m.parent.shape[0]
    v = np.zeros((n, 6), dtype=qd.dtype)
    c, p = np.zeros_like(v), np.zeros_like(v)
    for i in range(n):
        k, d = m.parent[i], slice(m.v_start[i], m.v_start[i + 1])
        vJ = s[d].T @ qd[d]
        v[i] = v[k] + vJ if k >= 0 else vJ
        c[i] = cross_motion(v[i], vJ)
        p[i] = cross_force(v[i], I[i] @ v[i]) - f_ext[i]
    return v, c, p


@kernel
def passed_to_parent(IA, pA, s, tau, c, joint):
    """What a body and its subtree pass through their joint to the parent.

    Parameters
    ----------
    IA : ndarray, shape (6, 6)
        Articulated inertia of the body.
    pA : ndarray, shape (6,)
        Its articulated bias force.
    s : ndarray, shape (6, k)
        The joint's world twists.
    tau : ndarray, shape (k,)
        The joint's force.
    c : ndarray, shape (6,)
        The body's velocity-product acceleration.
    joint : int
        The joint's index (for the error if ``D = s^T IA s`` is singular).

    Returns
    -------
    Ia : ndarray, shape (6, 6)
        ``IA - FA D^-1 FA^T`` with ``FA = IA s``, ``D = s^T FA``.
    pa : ndarray, shape (6,)
        ``pA + Ia c + FA D^-1 (tau - s^T pA)``.

    References
    ----------
    Chapter *Articulated inertia* (``eq-abi-passed``); Featherstone (2008) Table 7.1; Kim (2012) eqs. 49-50.
    """
    # the force of a unit joint acceleration
    FA = IA @ s
    D_inv_FAT = solve_joint(s.T @ FA, FA.T, joint)
    Ia = IA - FA @ D_inv_FAT
    return Ia, pA + Ia @ c + D_inv_FAT.T @ (tau - s.T @ pA)


@kernel
def joint_acceleration(IA, pA, s, tau, a_in, joint):
    """The joint's share of ``f = IA (a_in + s qdd) + pA``: its acceleration ``qdd``.

    Parameters
    ----------
    IA : ndarray, shape (6, 6)
    pA : ndarray, shape (6,)
    s : ndarray, shape (6, k)
    tau : ndarray, shape (k,)
    a_in : ndarray, shape (6,)
        The body's acceleration before its joint moves: the parent's plus ``c``.
    joint : int

    Returns
    -------
    ndarray, shape (k,)
        ``D^-1 (tau - s^T (IA a_in + pA))`` with ``D = s^T IA s``.

    References
    ----------
    Chapter *Articulated inertia*; Alexiou (1999) "Recursive Accelerations"; Kim (2012) eq. 45.
    """
    return solve_joint(s.T @ IA @ s, tau - s.T @ (IA @ a_in + pA), joint)


@kernel
def articulated_inertias(m, s, I, qd, tau, f_ext):
    """Passes 1 and 2 of the articulated-body algorithm: articulated inertias and bias forces.

    Parameters
    ----------
    m : ModelArrays
        The model's arrays (``model.arrays``).
    s : ndarray, shape (nv, 6)
    I : ndarray, shape (n, 6, 6)
    qd, tau : ndarray, shape (nv,)
    f_ext : ndarray, shape (n, 6)

    Returns
    -------
    IA : ndarray, shape (n, 6, 6)
    pA : ndarray, shape (n, 6)
    c : ndarray, shape (n, 6)

    References
    ----------
    Chapter *Articulated inertia* (``alg-abi-aba``); Alexiou (1999) "Articulated Inertia Recursion".
    """
    v, c, pA = velocity_products(m, s, I, qd, f_ext)
    IA = I.copy()
    for i in range(m.parent.shape[0] - 1, -1, -1):             # tips to base
        k, d = m.parent[i], slice(m.v_start[i], m.v_start[i + 1])
        if k >= 0:
            Ia, pa = passed_to_parent(IA[i], pA[i], s[d].T, tau[d], c[i], i)
            IA[k] += Ia
            pA[k] += pa
    return IA, pA, c


@kernel
def aba_passes(m, q, qd, tau, f_ext):
    """The articulated-body algorithm for one state: joint accelerations in O(n).

    Parameters
    ----------
    m : ModelArrays
        The model's arrays (``model.arrays``).
    q : ndarray, shape (nq,)
    qd, tau : ndarray, shape (nv,)
    f_ext : ndarray, shape (n, 6)

    Returns
    -------
    qdd : ndarray, shape (nv,)

    References
    ----------
    Chapter *Articulated inertia* (``alg-abi-aba``); Featherstone (2008) Table 7.1; Kim (2012) Table 3.
    """
    R, p, s, I = body_kinematics(m, q)
    IA, pA, c = articulated_inertias(m, s, I, qd, tau, f_ext)    # passes 1 and 2
    a = np.zeros((m.parent.shape[0], 6), dtype=qd.dtype)
    qdd = np.zeros(qd.shape[0], dtype=qd.dtype)
    for i in range(m.parent.shape[0]):                            # pass 3, base to tips
        k, d = m.parent[i], slice(m.v_start[i], m.v_start[i + 1])
        a_in = (a[k] if k >= 0 else m.a_base) + c[i]
        qdd[d] = joint_acceleration(IA[i], pA[i], s[d].T, tau[d], a_in, i)
        a[i] = a_in + s[d].T @ qdd[d]
    return qdd


@kernel
def aba_batch(m, q, qd, tau, f_ext):
    """:func:`~dynlib.kernels.aba_passes` for a batch of states (first axis): a loop over them (``run`` gives
    each core a share of a large batch)."""
    qdd = np.zeros(qd.shape)
    for b in range(q.shape[0]):
        qdd[b] = aba_passes(m, q[b], qd[b], tau[b], f_ext[b])
    return qdd


@kernel
def _articulated_passes(m, q, qd, tau, f_ext):
    R, p, s, I = body_kinematics(m, q)
    IA, pA, c = articulated_inertias(m, s, I, qd, tau, f_ext)
    return IA, pA, c, s


@kernel
def _articulated_batch(m, q, qd, tau, f_ext):
    B, n = q.shape[0], m.parent.shape[0]
    IA, pA, c, s = np.zeros((B, n, 6, 6)), np.zeros((B, n, 6)), np.zeros((B, n, 6)), np.zeros((B, qd.shape[1], 6))
    for b in range(B):
        IA[b], pA[b], c[b], s[b] = _articulated_passes(m, q[b], qd[b], tau[b], f_ext[b])
    return IA, pA, c, s


def _run_articulated(kernel_, batch_kernel, state, *vectors):
    """Run an articulated kernel, turning a joint without inertia into a clear error."""
    args = (state.q, *vectors, state.f_ext)
    try:
        return run(kernel_, batch_kernel, state.m, args, state.batch, state.symbolic)
    except SingularJointInertia as err:
        rerun = None if state.batch else (lambda: kernel_(state.m, *args))
        raise ValueError(err.message("D = s^T IA s of joint {j}", _NO_INERTIA, rerun)) from None


def state_forward_dynamics(state):
    """:func:`aba` of a state already checked by :func:`dynlib.check_state` (no second check)."""
    return _run_articulated(aba_passes, aba_batch, state, state.qd, state.tau)


def articulated_bodies(model, q, qd, tau, f_ext=None):
    """Articulated inertias and bias forces of every body: passes 1 and 2 of :func:`aba`.

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
        If some ``D_i`` is singular: joint ``i`` moves a subtree that has no inertia along the
        joint's motion (a massless leaf body, say).

    References
    ----------
    Chapter *Articulated inertia and forward dynamics* (``alg-abi-aba``); Alexiou (1999)
    "Articulated Inertia Recursion"; Kim (2012) eqs. 49-50, Table 3; Featherstone (2008) Table 7.1.
    """
    state = check_state(model, q, qd=qd, tau=tau, f_ext=f_ext)
    IA, pA, c, s_rows = _run_articulated(_articulated_passes, _articulated_batch, state, state.qd, state.tau)
    s = joint_columns(model, s_rows)
    FA = tuple(IA[..., i, :, :] @ s[i] for i in range(model.n_bodies))
    D = tuple(np.swapaxes(s[i], -1, -2) @ FA[i] for i in range(model.n_bodies))
    u = tuple(state.tau[..., model.v_slices[i]] - (pA[..., i, None, :] @ s[i])[..., 0, :]
              for i in range(model.n_bodies))
    if state.symbolic:  # exact: computed about the world origin
        return ArticulatedBodies(IA, pA, FA, D, u, c, s)
    r = reference(state)  # the kernels' point: move the 6-vectors back to the world origin
    rb = r[..., None, :]
    return ArticulatedBodies(inertia_about_origin(IA, rb), force_about_origin(pA, rb),
                             tuple(force_about_origin(F, r, columns=True) for F in FA), D, u,
                             motion_about_origin(c, rb), tuple(motion_about_origin(x, r, columns=True) for x in s))


def aba(model, q, qd, tau, f_ext=None):
    """Joint accelerations produced by joint forces ``tau``: forward dynamics in O(n).

    Three passes (:func:`~dynlib.kernels.aba_passes`): velocity terms from the base out, articulated inertias
    from the tips in (:func:`~dynlib.kernels.passed_to_parent`), and accelerations from the base out
    (:func:`~dynlib.kernels.joint_acceleration`), with the base accelerating upwards at ``-g``.

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
        If a joint carries no inertia along its motion.

    References
    ----------
    Chapter *Articulated inertia and forward dynamics* (``alg-abi-aba``); Alexiou (1999) "Recursive
    Accelerations"; Kim (2012) Table 3; Featherstone (2008) Table 7.1.

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain
    >>> model = planar_chain(1, length=2.0, mass=3.0)            # a rod released horizontally
    >>> bool(np.isclose(aba(model, [0.0], [0.0], [0.0])[0], -9.81 * 1.0 / (2.0**2 / 3)))
    True
    """
    return state_forward_dynamics(check_state(model, q, qd=qd, tau=tau, f_ext=f_ext))


@kernel
def hybrid_passes(m, q, qd, qdd, tau, given, f_ext):
    """Hybrid dynamics for one state: prescribed joints return their force, the others their acceleration.

    Parameters
    ----------
    m : ModelArrays
        The model's arrays (``model.arrays``).
    q : ndarray, shape (nq,)
    qd, qdd, tau : ndarray, shape (nv,)
    given : ndarray of bool, shape (n,)
        ``True`` where the joint's acceleration is prescribed.
    f_ext : ndarray, shape (n, 6)

    Returns
    -------
    qdd, tau : ndarray, shape (nv,)

    References
    ----------
    Chapter *Articulated inertia*; Kim (2012) Table 4; Featherstone (2008) §9.2.
    """
    R, p, s, I = body_kinematics(m, q)
    v, c, pA = velocity_products(m, s, I, qd, f_ext)                 # pass 1
    IA, qdd, tau = I.copy(), qdd.copy(), tau.copy()
    for i in range(m.parent.shape[0] - 1, -1, -1):                   # pass 2
        k, d = m.parent[i], slice(m.v_start[i], m.v_start[i + 1])
        # a prescribed joint is rigid
        if k >= 0 and given[i]:
            IA[k] += IA[i]
            pA[k] += pA[i] + IA[i] @ (c[i] + s[d].T @ qdd[d])
        elif k >= 0:
            Ia, pa = passed_to_parent(IA[i], pA[i], s[d].T, tau[d], c[i], i)
            IA[k] += Ia
            pA[k] += pa
    a = np.zeros((m.parent.shape[0], 6), dtype=qd.dtype)
    for i in range(m.parent.shape[0]):                                # pass 3
        k, d = m.parent[i], slice(m.v_start[i], m.v_start[i + 1])
        a_in = (a[k] if k >= 0 else m.a_base) + c[i]
        if not given[i]:
            qdd[d] = joint_acceleration(IA[i], pA[i], s[d].T, tau[d], a_in, i)
        a[i] = a_in + s[d].T @ qdd[d]
        if given[i]:
            tau[d] = s[d] @ (IA[i] @ a[i] + pA[i])
    return qdd, tau


def hybrid_dynamics(model, q, qd, qdd, tau, accel_given, f_ext=None):
    """Hybrid dynamics: joints whose acceleration is given return their force, the others
    their acceleration, in O(n).

    A joint with prescribed acceleration is rigid as far as its subtree is concerned, so its
    subtree's articulated inertia passes to the parent unprojected; the outward pass gives
    ``tau_i = s_i^T (IA_i a_i + pA_i)`` for prescribed joints and ``qdd_i`` as in :func:`aba` for
    the others (:func:`~dynlib.kernels.hybrid_passes`).  With every joint prescribed this is inverse dynamics;
    with none, forward dynamics.

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
    Chapter *Articulated inertia and forward dynamics*; Kim (2012) §2.3, eqs. 51-53 and Table 4;
    Featherstone (2008) §9.2.
    """
    state = check_state(model, q, qd=qd, qdd=qdd, tau=tau, f_ext=f_ext, batch=False)
    given = np.asarray(accel_given)
    if given.shape != (model.n_bodies,):
        raise ValueError(f"accel_given must have one flag per joint ({model.n_bodies}), got shape {given.shape}")
    if given.dtype != bool and not (given.dtype.kind in "iuf" and np.all(np.isin(given, (0, 1)))):
        raise ValueError(f"accel_given must hold True or False for each joint, got {given.tolist()}")
    try:
        return run(hybrid_passes, None, state.m, (state.q, state.qd, state.qdd, state.tau, given.astype(bool),
                                                  state.f_ext), (), state.symbolic)
    except SingularJointInertia as err:
        rerun = lambda: hybrid_passes(state.m, state.q, state.qd, state.qdd, state.tau, given.astype(bool),  # noqa: E731
                                      state.f_ext)
        raise ValueError(err.message("D = s^T IA s of free joint {j}", _NO_INERTIA, rerun)) from None
