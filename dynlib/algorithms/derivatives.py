"""Analytic derivatives of inverse and forward dynamics, from the world-frame RNEA differentiated pass by pass.

A change of joint ``j``'s position moves the whole subtree of ``j`` rigidly by the world twist
``s_j dq_j``: every joint twist and inertia in it turns with it,

    d s_i = s_j x s_i,        d I_i = s_j x* I_i - I_i s_j x        (i in the subtree of j, j itself included),

while the base's acceleration (gravity) and the external wrenches stay put.  Differentiating the
recursion of :func:`dynlib.rnea` with these rules gives the O(n d) recursion of
:func:`~dynlib.kernels.rnea_derivative_passes`; :func:`~dynlib.aba_derivatives` follows from ``H qdd = tau - C``.

Chapter: *Derivatives of the dynamics* (``eq-der-subtree`` to ``eq-der-forward``); Carpentier & Mansard
(2018) "Analytical derivatives of rigid body dynamics algorithms" (the same results, there in body-local
and joint frames).
"""

from __future__ import annotations

import numpy as np

from ..core.backend import solve_spd
from ..core.compile import identity, kernel, run
from ..multibody.kinematics import body_kinematics
from ..multibody.model import check_state
from ..spatial.algebra import cross_force, cross_motion
from .articulated import state_forward_dynamics
from .mass_matrix import velocity_inertia_product

__all__ = [
    "rnea_derivatives",
    "aba_derivatives",
]


@kernel
def rnea_derivative_passes(m, q, qd, qdd, f_ext):
    """The partial derivatives of the RNEA and the mass matrix for one state (world frame).

    Parameters
    ----------
    m : ModelArrays
        The model's arrays (``model.arrays``).
    q : ndarray, shape (nq,)
    qd, qdd : ndarray, shape (nv,)
    f_ext : ndarray, shape (n, 6)

    Returns
    -------
    dtau_dq, dtau_dqd, H : ndarray, shape (nv, nv)

    References
    ----------
    Chapter *Derivatives of the dynamics* (``alg-der-rnea``); Carpentier & Mansard (2018).
    """
    R, p, s, I = body_kinematics(m, q)
    n, nv = m.parent.shape[0], m.v_start[m.parent.shape[0]]
    v = np.zeros((n, 6), dtype=qd.dtype)
    a, f = np.zeros_like(v), np.zeros_like(v)
    Ic, Bc, fx = I.copy(), np.zeros((n, 6, 6), dtype=qd.dtype), f_ext.copy()
    psi = np.zeros((nv, 6), dtype=qd.dtype)
    c, w = np.zeros_like(psi), np.zeros_like(psi)
    for i in range(n):                                  # outward: the RNEA, and
        k, d = m.parent[i], slice(m.v_start[i], m.v_start[i + 1])
        v_k = v[k] if k >= 0 else np.zeros(6, dtype=qd.dtype)
        a_k = a[k] if k >= 0 else m.a_base
        vJ = s[d].T @ qd[d]
        v[i] = v_k + vJ
        a[i] = a_k + s[d].T @ qdd[d] + cross_motion(v[i], vJ)
        f[i] = I[i] @ a[i] + cross_force(v[i], I[i] @ v[i]) - f_ext[i]
        Bc[i] = velocity_inertia_product(I[i], v[i])                # 2 B_i
        for e in range(m.v_start[i], m.v_start[i + 1]):  # per freedom e of joint i:
            psi[e] = cross_motion(v_k, s[e])            # dv - s_e x v, in the subtree
            # da - s_e x a - psi_e x v, and d a / d qd_e - s_e x v
            c[e] = cross_motion(a_k, s[e]) + cross_motion(v_k, psi[e])
            w[e] = cross_motion(v_k + v[i], s[e])
    for i in range(n - 1, -1, -1):                      # in from the tips: subtree sums
        k = m.parent[i]
        if k >= 0:
            f[k] += f[i]
            fx[k] += fx[i]
            Ic[k] += Ic[i]
            Bc[k] += Bc[i]
    dtau_dq = np.zeros((nv, nv), dtype=qd.dtype)
    dtau_dqd, H = np.zeros_like(dtau_dq), np.zeros_like(dtau_dq)
    for i in range(n):
        fb = f[i] + fx[i]                               # the subtree's inertial force
        j = i
        while j >= 0:                                   # joints j moving i's subtree
            for e in range(m.v_start[j], m.v_start[j + 1]):
                dF_q = cross_force(s[e], fb) + Ic[i] @ c[e] + Bc[i] @ psi[e]
                dF_qd = Bc[i] @ s[e] + Ic[i] @ w[e]
                F_e = Ic[i] @ s[e]                      # the CRBA's force of e
                # tau_r = s_r^T f_i, with s_r turning too
                for r in range(m.v_start[i], m.v_start[i + 1]):
                    dtau_dq[r, e] = s[r] @ dF_q + cross_motion(s[e], s[r]) @ f[i]
                    dtau_dqd[r, e] = s[r] @ dF_qd
                    H[r, e] = s[r] @ F_e
                    H[e, r] = H[r, e]
                k = m.parent[i] if j == i else -1       # joint i's own freedoms move
                while k >= 0:                           # the forces of its ancestors
                    for r in range(m.v_start[k], m.v_start[k + 1]):
                        dtau_dq[r, e] = s[r] @ dF_q
                        dtau_dqd[r, e] = s[r] @ dF_qd
                    k = m.parent[k]
            j = m.parent[j]
    return dtau_dq, dtau_dqd, H


@kernel
def rnea_derivative_batch(m, q, qd, qdd, f_ext):
    """:func:`~dynlib.kernels.rnea_derivative_passes` for a batch of states (first axis)."""
    nv = qd.shape[1]
    dtau_dq = np.zeros((q.shape[0], nv, nv))
    dtau_dqd, H = np.zeros_like(dtau_dq), np.zeros_like(dtau_dq)
    for b in range(q.shape[0]):
        dtau_dq[b], dtau_dqd[b], H[b] = rnea_derivative_passes(m, q[b], qd[b], qdd[b], f_ext[b])
    return dtau_dq, dtau_dqd, H


def state_rnea_derivatives(state, qdd):
    """:func:`rnea_derivatives` of a checked state (:func:`dynlib.check_state`) at the accelerations ``qdd``."""
    return run(rnea_derivative_passes, rnea_derivative_batch, state.m, (state.q, state.qd, qdd, state.f_ext),
               state.batch, state.symbolic)


def rnea_derivatives(model, q, qd, qdd, f_ext=None):
    """Partial derivatives of inverse dynamics ``tau = rnea(q, qd, qdd)``, and the mass matrix, in O(n d).

    Along a configuration step ``dq`` (a tangent vector of ``nv`` entries, as
    :func:`dynlib.integrate` takes it, so spherical and free joints turn in their child frame),
    ``d/de rnea(integrate(q, e dq), qd, qdd) = dtau_dq @ dq`` at ``e = 0``.

    In world coordinates a step of joint ``j`` moves its subtree by the twist ``s_j dq_j``, which
    turns every joint twist and inertia there (``d s_i = s_j x s_i``, ``d I_i = s_j x* I_i - I_i s_j x``)
    and leaves the rest, gravity (the base's acceleration ``a_0 = -[g; 0]``) and the external
    wrenches alone.  Differentiating the RNEA's outward pass,
    ``v_i = v_k + s_i qd_i``, ``a_i = a_k + s_i qdd_i + v_i x s_i qd_i`` (``k`` the parent), gives for
    every body ``i`` of the subtree of ``j`` (parent ``k``, a column ``s_j`` at a time)::

        d v_i / dq_j  = s_j x v_i + psi_j,                  psi_j = v_k x s_j
        d a_i / dq_j  = s_j x a_i + psi_j x v_i + c_j,      c_j  = a_k x s_j + v_k x psi_j
        d v_i / dqd_j = s_j,
        d a_i / dqd_j = s_j x v_i + w_j,                    w_j  = (v_k + v_j) x s_j

    The body force ``f_i = I_i a_i + v_i x* I_i v_i`` (before ``- f_ext_i``) moves covariantly,
    ``s_j x* f_i``, except for what ``psi``, ``c`` and ``w`` add; with the subtree sums
    ``Ic_i = sum I``, ``Bc_i = sum 2 B(I, v)`` (:func:`~dynlib.kernels.velocity_inertia_product`) and
    ``fb_i = sum f`` over the subtree of ``i``, the force ``F_i`` that joint ``i`` transmits
    (the RNEA's inward sum, external wrenches included) changes by::

        dF_i / dq_j  = s_j x* fb_i + Ic_i c_j + Bc_i psi_j     (i in the subtree of j)
        dF_i / dqd_j = Bc_i s_j + Ic_i w_j

    and ``tau_i = s_i^T F_i`` gives, for ``i`` in the subtree of ``j`` (``s_i`` turns too)::

        dtau_i / dq_j  = s_i^T dF_i/dq_j + (s_j x s_i)^T F_i,   dtau_i / dqd_j = s_i^T dF_i/dqd_j

    and, for ``i`` an ancestor of ``j``, ``s_i^T dF_j/dq_j`` and ``s_i^T dF_j/dqd_j``
    (:func:`~dynlib.kernels.rnea_derivative_passes`).  ``dtau/dqdd = H = s_i^T Ic_i s_j`` (the CRBA).

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (..., nq)
    qd, qdd : array_like, shape (nv,) or (..., nv)
    f_ext : array_like, shape (n, 6) or (..., n, 6), optional
        External wrench on each body (world frame, about the origin), held fixed in the world.

    Returns
    -------
    dtau_dq : ndarray, shape (nv, nv) or (..., nv, nv)
        Column ``e`` is the change of ``tau`` per unit step of velocity freedom ``e``.  A leading
        batch of states gives a batch of results.
    dtau_dqd : ndarray, shape (nv, nv) or (..., nv, nv)
    H : ndarray, shape (nv, nv) or (..., nv, nv)
        The mass matrix, ``dtau/dqdd`` (equal to :func:`dynlib.crba`).

    References
    ----------
    Chapter *Derivatives of the dynamics* (``eq-der-velocity`` to ``eq-der-inward``); Carpentier & Mansard
    (2018) "Analytical derivatives of rigid body dynamics algorithms", Algorithm 1 (there in local frames).

    Examples
    --------
    >>> import numpy as np
    >>> import dynlib as dl
    >>> model = dl.planar_chain(1, length=2.0, mass=3.0)            # a rod, its weight at 1 m
    >>> dq, dqd, H = dl.rnea_derivatives(model, [0.0], [0.0], [0.0])
    >>> bool(np.isclose(dq[0, 0], 0.0)), bool(np.isclose(H[0, 0], 3.0 * 2.0**2 / 3))
    (True, True)
    """
    state = check_state(model, q, qd=qd, qdd=qdd, f_ext=f_ext)
    return state_rnea_derivatives(state, state.qdd)


def aba_derivatives(model, q, qd, tau, f_ext=None):
    """Partial derivatives of forward dynamics ``qdd = aba(q, qd, tau)``, and ``H^-1``.

    ``H(q) qdd + C(q, qd) = tau`` holds along any motion, so at ``qdd = aba(q, qd, tau)``::

        dqdd/dq = -H^-1 dtau/dq,    dqdd/dqd = -H^-1 dtau/dqd,    dqdd/dtau = H^-1

    with ``dtau/dq``, ``dtau/dqd`` and ``H`` from :func:`rnea_derivatives` at that ``qdd``
    (``q`` steps along :func:`dynlib.integrate`, as there).

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (..., nq)
    qd, tau : array_like, shape (nv,) or (..., nv)
    f_ext : array_like, shape (n, 6) or (..., n, 6), optional

    Returns
    -------
    dqdd_dq, dqdd_dqd, Hinv : ndarray, shape (nv, nv) or (..., nv, nv)
        With the batch axes first, for a batch of states.

    Raises
    ------
    ValueError
        If a joint, or the whole tree, carries no inertia along its motion (``H`` singular).

    References
    ----------
    Chapter *Derivatives of the dynamics* (``eq-der-forward``); Carpentier & Mansard (2018), section on
    forward dynamics.
    """
    state = check_state(model, q, qd=qd, tau=tau, f_ext=f_ext)
    qdd = state_forward_dynamics(state)
    dtau_dq, dtau_dqd, H = state_rnea_derivatives(state, qdd)
    eye = identity(H.shape[-1], H)
    Hinv = solve_spd(H, np.broadcast_to(eye, H.shape) if state.batch else eye, "the mass matrix H")
    return -(Hinv @ dtau_dq), -(Hinv @ dtau_dqd), Hinv
