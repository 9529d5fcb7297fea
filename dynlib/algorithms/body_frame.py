"""Kim's body-frame recursions: inverse dynamics (Table 2) and articulated-body forward dynamics (Table 3).

Every quantity of body ``i`` lives in the body's own frame ``{i}`` (the child frame of joint
``i``), **angular part first**, exactly as in Kim (2012): twists ``V = (w, v)``, wrenches
``F = (m, f)``, the body inertia ``I_i`` and the joint Jacobian ``S_i`` are constant in ``{i}``,
and each step to a neighbour goes through the adjoint map of the joint's pose
``T_{lambda(i),i}``.  The recursions below read line by line like Kim's tables.

Inputs and outputs follow dynlib at the boundary: joint-space vectors as everywhere, and
6-vectors and 6x6 matrices **linear part first**, each body's expressed in that body's frame
``{i}`` about its origin (converted on the way in and out by the permutation of
:func:`dynlib.angular_first_permutation`).  With dynlib's joints ``S_i`` is constant in
``{i}``, so Kim's ``dS_i/dt qd_i`` is zero.  Gravity enters as Kim's base acceleration
``dV_0 = (0, -g)``.

Chapter: *Articulated inertia and forward dynamics*; Kim (2012) eqs. 7, 27, 29, 37, 41,
42, 45, 49-50, Tables 2 and 3.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.backend import eye, is_symbolic, solve_spd, zeros
from ..multibody.model import check_external_forces, check_state
from ..spatial.algebra import skew
from ..spatial.liegroup import homogeneous, homogeneous_inverse

__all__ = ["BodyFrameInverseDynamics", "BodyFrameForwardDynamics", "rnea_body_frame", "aba_body_frame"]

_AF = [3, 4, 5, 0, 1, 2]  # linear first <-> angular first (its own inverse)


class BodyFrameInverseDynamics(NamedTuple):
    """Result of :func:`rnea_body_frame`; 6-vectors linear first, body ``i``'s in frame ``{i}``.

    Attributes
    ----------
    tau : ndarray, shape (nv,)
        Joint forces.
    V : ndarray, shape (n, 6)
        Body twists ``V_i`` (Kim's generalized velocities).
    Vdot : ndarray, shape (n, 6)
        Their component-wise time derivatives, with gravity as a base acceleration.
    F : ndarray, shape (n, 6)
        Wrench each joint transmits from the parent to its body.
    """

    tau: np.ndarray
    V: np.ndarray
    Vdot: np.ndarray
    F: np.ndarray


class BodyFrameForwardDynamics(NamedTuple):
    """Result of :func:`aba_body_frame`; 6-vectors and inertias linear first, body ``i``'s in ``{i}``.

    Attributes
    ----------
    qdd : ndarray, shape (nv,)
        Joint accelerations.
    V, Vdot, F : ndarray, shape (n, 6)
        As in :class:`BodyFrameInverseDynamics`.
    I_hat : ndarray, shape (n, 6, 6)
        Articulated inertias (Kim's ``Î_i``).
    B_hat : ndarray, shape (n, 6)
        Articulated bias forces (Kim's ``B̂_i``), so that ``F_i = I_hat_i Vdot_i + B_hat_i``.
    """

    qdd: np.ndarray
    V: np.ndarray
    Vdot: np.ndarray
    F: np.ndarray
    I_hat: np.ndarray
    B_hat: np.ndarray


# --- Kim's operators, angular part first (eqs. 7, 27, 29) --------------------------------------


def _Ad(T):
    """``Ad_T = [[R, 0], [[p] R, R]]`` (Kim eq. 7)."""
    R, p = T[:3, :3], T[:3, 3]
    return np.block([[R, np.zeros((3, 3), dtype=R.dtype)], [skew(p) @ R, R]])


def _ad(V):
    """``ad_V = [[[w], 0], [[v], [w]]]`` for ``V = (w, v)`` (Kim eq. 27)."""
    w, v = skew(V[:3]), skew(V[3:])
    return np.block([[w, np.zeros((3, 3), dtype=w.dtype)], [v, w]])


def _ad_dual(V):
    """``ad*_V = ad_V^T`` (Kim eq. 29)."""
    return _ad(V).T


# --- boundary: dynlib model and inputs -> Kim's quantities ---------------------------------------


def _setup(model, q, f_ext, **vectors):
    """Checked inputs (:func:`dynlib.check_state`), joint poses ``T_{lambda(i),i}``, and the model's
    ``I_i``, ``S_i``, ``F_ext`` and ``dV_0`` in Kim's angular-first order."""
    state = check_state(model, q, f_ext=f_ext, batch=False, **vectors)
    model, q, symbolic = state.model, state.q, state.symbolic
    T = [model.placements[i] @ homogeneous(*joint.pose(q[model.q_slices[i]])) for i, joint in enumerate(model.joints)]
    I = model.inertias[:, _AF][:, :, _AF]
    S = [joint.S[_AF] for joint in model.joints]
    Vdot_0 = np.concatenate([zeros(3, symbolic), -model.gravity])  # (0, -g): gravity as base acceleration
    second = state.qdd if "qdd" in vectors else state.tau
    # body-frame wrenches, which check_state (taking them about the world origin) moved to its reference point
    F_ext = state.f_ext if state.r is None else check_external_forces(model, f_ext)
    return model, T, I, S, F_ext[:, _AF], Vdot_0, [state.qd, second], symbolic


def _inverse_spd(D, what):
    """``D^-1`` of a joint's small SPD matrix (empty for a fixed joint)."""
    return solve_spd(D, eye(D.shape[0], is_symbolic(D)), what) if D.shape[0] else D


def rnea_body_frame(model, q, qd, qdd, f_ext=None):
    """Inverse dynamics in body coordinates: Kim's Table 2.

    Forward recursion (base to tips), with ``V_0 = 0`` and ``dV_0 = (0, -g)``::

        V_i  = Ad_{T^-1_{lambda(i),i}} V_lambda(i) + S_i qd_i                                  (eq. 37)
        dV_i = Ad_{T^-1_{lambda(i),i}} dV_lambda(i) + ad_{V_i} S_i qd_i + S_i qdd_i              (eq. 41)

    Backward recursion (tips to base)::

        F_i   = I_i dV_i - ad*_{V_i} I_i V_i - F_ext_i + sum_{k in mu(i)} Ad*_{T^-1_{i,k}} F_k     (eq. 42)
        tau_i = S_i^T F_i

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    qd, qdd : array_like, shape (nv,)
    f_ext : array_like, shape (n, 6), optional
        External wrench on each body **in that body's frame**, about its origin, linear first
        (``[f; n]``).  A world-frame wrench ``f`` becomes ``X*_i0 f``.

    Returns
    -------
    BodyFrameInverseDynamics
        ``tau`` equals :func:`dynlib.rnea`; ``V``, ``Vdot``, ``F`` are body-frame, linear first.

    References
    ----------
    Kim (2012) eqs. 37, 41, 42 and Table 2; chapter *Articulated inertia and forward dynamics*.

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain, rnea
    >>> model = planar_chain(3)
    >>> q, qd, qdd = np.array([0.3, -0.2, 0.5]), np.ones(3), np.zeros(3)
    >>> bool(np.allclose(rnea_body_frame(model, q, qd, qdd).tau, rnea(model, q, qd, qdd)))
    True
    """
    model, T, I, S, F_ext, Vdot_0, (qd, qdd), symbolic = _setup(model, q, f_ext, qd=qd, qdd=qdd)
    n = model.n_bodies
    Ad_inv = [_Ad(homogeneous_inverse(T[i])) for i in range(n)]  # Ad_{T^-1_{lambda(i),i}}
    V, Vdot, F = zeros((n, 6), symbolic), zeros((n, 6), symbolic), zeros((n, 6), symbolic)
    tau = zeros(model.nv, symbolic)
    for i in range(n):  # forward recursion
        k, vs = model.parent[i], model.v_slices[i]
        V_parent, Vdot_parent = (zeros(6, symbolic), Vdot_0) if k < 0 else (V[k], Vdot[k])
        V[i] = Ad_inv[i] @ V_parent + S[i] @ qd[vs]
        Vdot[i] = Ad_inv[i] @ Vdot_parent + _ad(V[i]) @ S[i] @ qd[vs] + S[i] @ qdd[vs]
    for i in reversed(range(n)):  # backward recursion
        F[i] = I[i] @ Vdot[i] - _ad_dual(V[i]) @ I[i] @ V[i] - F_ext[i]
        for k in model.children[i]:
            F[i] += Ad_inv[k].T @ F[k]  # Ad*_{T^-1_{i,k}} F_k
        tau[model.v_slices[i]] = S[i].T @ F[i]
    return BodyFrameInverseDynamics(tau, V[:, _AF], Vdot[:, _AF], F[:, _AF])


def aba_body_frame(model, q, qd, tau, f_ext=None):
    """Forward dynamics in body coordinates by articulated inertias: Kim's Table 3.

    Forward recursion::

        V_i   = Ad_{T^-1_{lambda(i),i}} V_lambda(i) + S_i qd_i
        eta_i = ad_{V_i} S_i qd_i

    Backward recursion::

        I_hat_i = I_i + sum_{k in mu(i)} Ad*_{T^-1_{i,k}} Pi_k Ad_{T^-1_{i,k}}                       (eq. 49)
        B_hat_i = -ad*_{V_i} I_i V_i - F_ext_i + sum_{k in mu(i)} Ad*_{T^-1_{i,k}} beta_k               (eq. 50)
        Psi_i   = (S_i^T I_hat_i S_i)^-1
        Pi_i    = I_hat_i - I_hat_i S_i Psi_i S_i^T I_hat_i
        beta_i  = B_hat_i + I_hat_i (eta_i + S_i Psi_i (tau_i - S_i^T I_hat_i eta_i - S_i^T B_hat_i))

    Forward recursion, with ``dV_0 = (0, -g)``::

        qdd_i = Psi_i (tau_i - S_i^T I_hat_i (Ad_{T^-1_{lambda(i),i}} dV_lambda(i) + eta_i) - S_i^T B_hat_i)   (eq. 45)
        dV_i  = Ad_{T^-1_{lambda(i),i}} dV_lambda(i) + S_i qdd_i + eta_i
        F_i   = I_hat_i dV_i + B_hat_i                                                               (eq. 43)

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    qd, tau : array_like, shape (nv,)
    f_ext : array_like, shape (n, 6), optional
        External wrench on each body in that body's frame, linear first (as in
        :func:`rnea_body_frame`).

    Returns
    -------
    BodyFrameForwardDynamics
        ``qdd`` equals :func:`dynlib.aba`; the rest body-frame, linear first.

    Raises
    ------
    ValueError
        If some ``S_i^T I_hat_i S_i`` is singular (a joint moving a subtree with no inertia
        along the joint's motion).

    References
    ----------
    Kim (2012) eqs. 43-50 and Table 3; chapter *Articulated inertia and forward dynamics*.

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain, aba
    >>> model = planar_chain(3)
    >>> q, qd, tau = np.array([0.3, -0.2, 0.5]), np.ones(3), np.zeros(3)
    >>> bool(np.allclose(aba_body_frame(model, q, qd, tau).qdd, aba(model, q, qd, tau)))
    True
    """
    model, T, I, S, F_ext, Vdot_0, (qd, tau), symbolic = _setup(
        model, q, f_ext, qd=qd, tau=tau
    )
    n = model.n_bodies
    # Ad_{T^-1_{lambda(i),i}}
    Ad_inv = [_Ad(homogeneous_inverse(T[i])) for i in range(n)]
    V, eta, Vdot, F = (zeros((n, 6), symbolic) for _ in range(4))
    I_hat, Pi = zeros((n, 6, 6), symbolic), zeros((n, 6, 6), symbolic)
    B_hat = zeros((n, 6), symbolic)
    beta, Psi = zeros((n, 6), symbolic), [None] * n
    qdd = zeros(model.nv, symbolic)
    for i in range(n):  # forward recursion
        k, vs = model.parent[i], model.v_slices[i]
        V[i] = Ad_inv[i] @ (zeros(6, symbolic) if k < 0 else V[k]) + S[i] @ qd[vs]
        eta[i] = _ad(V[i]) @ S[i] @ qd[vs]
    for i in reversed(range(n)):  # backward recursion
        vs = model.v_slices[i]
        I_hat[i] = I[i]
        B_hat[i] = -_ad_dual(V[i]) @ I[i] @ V[i] - F_ext[i]
        for k in model.children[i]:
            I_hat[i] += Ad_inv[k].T @ Pi[k] @ Ad_inv[k]
            B_hat[i] += Ad_inv[k].T @ beta[k]
        what = f"S^T I_hat S of joint {i} (its subtree has no inertia along it)"
        Psi[i] = _inverse_spd(S[i].T @ I_hat[i] @ S[i], what)
        Pi[i] = I_hat[i] - I_hat[i] @ S[i] @ Psi[i] @ S[i].T @ I_hat[i]
        u = tau[vs] - S[i].T @ I_hat[i] @ eta[i] - S[i].T @ B_hat[i]
        beta[i] = B_hat[i] + I_hat[i] @ (eta[i] + S[i] @ Psi[i] @ u)
    for i in range(n):  # forward recursion
        k, vs = model.parent[i], model.v_slices[i]
        Vdot_in = Ad_inv[i] @ (Vdot_0 if k < 0 else Vdot[k])
        u = tau[vs] - S[i].T @ I_hat[i] @ (Vdot_in + eta[i]) - S[i].T @ B_hat[i]
        qdd[vs] = Psi[i] @ u
        Vdot[i] = Vdot_in + S[i] @ qdd[vs] + eta[i]
        F[i] = I_hat[i] @ Vdot[i] + B_hat[i]
    return BodyFrameForwardDynamics(qdd, V[:, _AF], Vdot[:, _AF], F[:, _AF],
                                    I_hat[:, _AF][:, :, _AF], B_hat[:, _AF])
