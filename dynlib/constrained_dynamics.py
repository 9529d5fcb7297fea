"""Dynamics of constrained (closed-loop) systems with Lagrange multipliers.

``H qdd + C = tau + A^T lambda`` together with ``A qdd + dA/dt qd = 0``: the multipliers
``lambda`` are the constraint forces, mapped into joint space by ``A^T``.

Chapter: *Constrained chains*; Kim (2012) §3, eqs. 54-66.
"""

from __future__ import annotations

import numpy as np

from ._backend import solve_spd
from .articulated import aba
from .constraints import constraint_bias, constraint_jacobian, constraint_residual
from .inverse_dynamics import rnea
from .mass_matrix import crba
from .model import check_velocity

__all__ = ["constrained_forward_dynamics", "constrained_inverse_dynamics"]


def constrained_forward_dynamics(model, q, qd, tau, constraints, f_ext=None, baumgarte=None):
    """Accelerations and constraint forces of a constrained system.

    The free accelerations ``qdd0 = aba(tau)`` are corrected by the constraint forces::

        (A H^-1 A^T) lambda = -dA/dt qd - A qdd0 - 2 alpha A qd - beta^2 phi,
        qdd = qdd0 + H^-1 A^T lambda

    The last two terms (Baumgarte stabilisation, off by default) pull a drifting
    simulation back onto ``phi = 0``.  ``qdd`` is unique; if the constraints are redundant
    (``A`` not of full row rank) ``lambda`` is the least-norm one.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    qd, tau : array_like, shape (nv,)
    constraints : sequence of LoopConstraint
    f_ext : array_like, shape (n, 6), optional
    baumgarte : (float, float), optional
        ``(alpha, beta)`` in 1/s; e.g. ``(5, 5)``.

    Returns
    -------
    qdd : ndarray, shape (nv,)
    lam : ndarray, shape (m,)

    References
    ----------
    Kim (2012) eqs. 54-55; Baumgarte (1972) stabilisation.
    """
    tau = check_velocity(model, tau, "tau")
    qdd0 = aba(model, q, qd, tau, f_ext)
    A = constraint_jacobian(model, q, constraints)
    rhs = -constraint_bias(model, q, qd, constraints) - A @ qdd0
    if baumgarte is not None:
        alpha, beta = baumgarte
        rhs -= 2 * alpha * (A @ qd) + beta**2 * constraint_residual(model, q, constraints)
    Hinv_AT = solve_spd(crba(model, q), A.T, "the mass matrix H")
    lam = np.linalg.lstsq(A @ Hinv_AT, rhs, rcond=None)[0]
    return qdd0 + Hinv_AT @ lam, lam


def _joint_mask(model, actuated):
    actuated = np.asarray(actuated, dtype=bool)
    if actuated.shape != (model.n_bodies,):
        raise ValueError(f"actuated must hold one flag per joint ({model.n_bodies}), got shape {actuated.shape}")
    return np.concatenate([[flag] * joint.nv for flag, joint in zip(actuated, model.joints)]).astype(bool)


def constrained_inverse_dynamics(model, q, qd, qdd, constraints, actuated, tau_passive=None,
                                 minimize="constraint_force", f_ext=None):
    """Actuator forces that make a constrained system move with ``qdd``.

    With ``tau_r = rnea(q, qd, qdd)`` split into actuated (a) and passive (p) entries::

        tau_a = tau_ar - A_a^T lambda,      A_p^T lambda = tau_pr - tau_p    (eq. 56)

    - as many independent constraints as passive coordinates: ``lambda`` and ``tau_a`` are unique (eqs. 57-58);
    - more (redundant actuation): ``lambda = (A_p^T)^+ (tau_pr - tau_p) + N s`` with ``N`` a basis of
      the null space of ``A_p^T``; ``minimize="constraint_force"`` takes ``s = 0`` (least-norm
      ``lambda``, eq. 59-60), ``minimize="torque"`` picks ``s`` for the least-norm ``tau_a``
      (eqs. 62-64; with every joint actuated, eqs. 65-66);
    - fewer: the passive joints cannot follow ``qdd`` in general; a ValueError says so.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    qd, qdd : array_like, shape (nv,)
        A state and acceleration consistent with the constraints.
    constraints : sequence of LoopConstraint
    actuated : sequence of bool, length n
        Which joints have actuators.
    tau_passive : array_like, shape (nv,), optional
        Forces in the passive joints (springs, friction); zero by default; actuated entries ignored.
    minimize : {"constraint_force", "torque"}
    f_ext : array_like, shape (n, 6), optional

    Returns
    -------
    tau : ndarray, shape (nv,)
        Actuator forces in the actuated entries, ``tau_passive`` in the others.
    lam : ndarray, shape (m,)

    References
    ----------
    Kim (2012) §3.1, eqs. 56-66.
    """
    if minimize not in ("constraint_force", "torque"):
        raise ValueError(f"minimize must be 'constraint_force' or 'torque', got {minimize!r}")
    act = _joint_mask(model, actuated)
    tau_p_given = np.zeros(model.nv) if tau_passive is None else check_velocity(model, tau_passive, "tau_passive")
    tau_r = rnea(model, q, qd, qdd, f_ext)
    A = constraint_jacobian(model, q, constraints)
    A_a, A_p = A[:, act], A[:, ~act]
    rhs = tau_r[~act] - tau_p_given[~act]
    lam = np.linalg.lstsq(A_p.T, rhs, rcond=None)[0] if rhs.size else np.zeros(A.shape[0])
    if np.abs(A_p.T @ lam - rhs).max(initial=0.0) > 1e-8 * max(1.0, np.abs(rhs).max(initial=0.0)):
        raise ValueError(
            "the passive joints cannot follow these accelerations: the system has fewer independent "
            f"constraints ({np.linalg.matrix_rank(A_p)}) than passive coordinates ({int((~act).sum())}) "
            "and the prescribed motion is not one the constraints and passive joints allow"
        )
    if minimize == "torque":
        if rhs.size:
            _, sing, Vt = np.linalg.svd(A_p.T)
            rank = int((sing > 1e-10 * max(1.0, sing.max(initial=0.0))).sum())
            N = Vt[rank:].T  # null space of A_p^T
        else:
            N = np.eye(A.shape[0])  # every joint actuated: any lambda keeps the passive rows satisfied
        if N.size:
            s, *_ = np.linalg.lstsq(A_a.T @ N, tau_r[act] - A_a.T @ lam, rcond=None)
            lam = lam + N @ s
    tau = tau_p_given.copy()
    tau[act] = tau_r[act] - A_a.T @ lam
    return tau, lam
