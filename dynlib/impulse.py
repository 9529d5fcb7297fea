"""Impacts: the impulse a chain receives when a body hits an obstacle, propagated joint by joint.

A contact is a line ``n`` in Plücker (wrench) coordinates ``[e; r x e]`` through the contact
point ``r`` along the unit direction ``e`` pointing *into* the obstacle.  The obstacle pushes
back on the body with the impulse ``-n J``; the law of contact with restitution ``epsilon``
fixes the magnitude ``J`` so that the speed along ``n`` after the impact is ``-epsilon``
times the speed before.

Chapter: *Impulse propagation* (``ch-impulses``); Alexiou (2023) eqs. 11-40.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._backend import as_array, check_finite, check_scalar, exact, eye, is_symbolic, quoted, solve, solve_spd, zeros
from .articulated import _prepare
from .kinematics import body_jacobian, forward_kinematics
from .mass_matrix import crba
from .mobility import _require_chain, _solve_joint_inertia, mobility_steps
from .model import check_velocity
from .screws import line_coordinates

__all__ = ["ImpulseResponse", "impulse_propagation", "contact_impulse", "contact_line"]


class ImpulseResponse(NamedTuple):
    """Everything an impact changes (world frame; n bodies, nv joint velocities).

    Attributes
    ----------
    J : float or sympy expression
        Impulse magnitude (eq. 22); the body receives ``-n J``.
    Phi : ndarray, shape (n, 6, 6)
        Propagation matrices: the impulse through joint ``i`` is ``Phi[i] @ n * J`` (eqs. 24-26);
        zero for bodies outboard of the contact body.
    ell : ndarray, shape (n, 6)
        Reaction impulse through each joint, acting on its child body (eqs. 11-12, 24).
    dqd : ndarray, shape (nv,)
        Jumps of the joint velocities (eq. 27).
    dv : ndarray, shape (n, 6)
        Jumps of the body twists (eq. 28).
    v_impact, v_bounce : float or sympy expression
        Speed along ``n`` before and after (eqs. 20-21); ``v_bounce = -epsilon v_impact``.
    Lambda_inv : ndarray, shape (n, 6, 6)
        Articulated mobilities out to the contact body (eqs. 15-18), the contact body's with the
        bodies outboard of it riding along; zero beyond it.  ``n^T Lambda_inv[k] n`` is the
        effective mobility along the contact line (one over the effective mass).
    """

    J: object
    Phi: np.ndarray
    ell: np.ndarray
    dqd: np.ndarray
    dv: np.ndarray
    v_impact: object
    v_bounce: object
    Lambda_inv: np.ndarray


def contact_line(point, direction):
    """Contact line ``n = [e; r x e]`` through ``point`` along the unit ``direction`` (into the obstacle).

    Parameters
    ----------
    point : array_like, shape (3,)
        Contact point, world frame.
    direction : array_like, shape (3,)
        Normalised here.

    Returns
    -------
    ndarray, shape (6,)

    References
    ----------
    Alexiou (2023) eq. 30 (planar components ``(0, 1, 2L)`` of the worked example).
    """
    return line_coordinates(point, direction)


#: An effective mobility ``n^T Lambda_inv n`` at most this fraction of ``|n|^2`` times the largest
#: singular value of ``Lambda_inv`` counts as zero: the contact line cannot be reached.
REACH_RTOL = 1e-12


def _impact_magnitude(n, Lambda_inv, v, epsilon, body):
    """Eq. 22: J = (1 + eps) (n^T v) / (n^T Lambda_inv n), with a clear error if the line is unreachable."""
    check_finite(n, "contact")
    check_scalar(epsilon, "epsilon (the coefficient of restitution)", 0.0, 1.0)
    v_impact = n @ v
    reach = n @ Lambda_inv @ n
    if not is_symbolic(reach):
        sigma = np.linalg.svd(Lambda_inv, compute_uv=False) if np.all(np.isfinite(Lambda_inv)) else np.full(6, np.inf)
        largest = float(n @ n) * sigma[0]
        if not reach > REACH_RTOL * largest:
            rank = int(np.sum(sigma > 1e-9 * sigma[0])) if sigma[0] > 0 else 0
            size = "is 0 and Lambda_inv = 0"
            if largest > 0:
                size = (f"is {quoted(reach / largest, REACH_RTOL)} of |n|^2 times the largest singular value of "
                        f"Lambda_inv, so it has rank 0 of 1 along n (Lambda_inv itself has rank {rank} of 6)")
            raise ValueError(
                f"the contact line cannot be moved by the chain at body {body}: the effective mobility "
                f"n^T Lambda_inv n {size}. The contact direction cannot be "
                f"moved by any joint: the line is reciprocal to every joint twist between body {body} and the base, "
                "the obstacle meets a rigid chain, and no finite impulse obeys the law of contact"
            )
    return (1 + epsilon) * v_impact / reach, v_impact


def impulse_propagation(model, q, qd, contact, epsilon, body=None):
    """Impulse magnitude and its propagation through a serial chain hitting an obstacle.

    Contact on body ``k`` (the last body unless ``body`` says otherwise).  With rigid
    inertias ``I_i`` for the bodies before ``k`` and the impulsive articulated inertia
    ``IA_k`` of bodies ``k .. n-1`` (outboard bodies ride along), the algorithm runs:

    1. out to ``k``: articulated mobilities ``Lambda_inv_i`` (eqs. 15-18);
    2. at ``k``: ``J = (1 + epsilon) n^T v_k / (n^T Lambda_inv_k n)`` (eq. 22);
    3. back to the base: ``Phi_k = 1 - IA_k Lambda_inv_k``, ``Phi_i = (1 - I_i Lambda_inv_i) Phi_{i+1}``,
       ``ell_i = Phi_i n J`` (eqs. 24-26), each factor evaluated as ``(1 + I_i Psi_i)^-1 P_i^T``: the
       transpose of the mobility step's ``(1 + Psi_i I_i)^-1`` and ``P_i``, equal to
       ``1 - I_i Lambda_inv_i`` but free of its cancellation (``I_i Lambda_inv_i`` is 1 for a free joint);
    4. out again: ``dqd_i = -D_i^-1 s_i^T (ell_{i+1} + I_i dv_{i-1})``, ``dv_i = dv_{i-1} + s_i dqd_i``
       (eqs. 27-28, with ``ell_{k+1} = n J``); bodies beyond ``k`` follow their articulated
       inertia, ``dqd_j = -D_j^-1 U_j^T dv_{j-1}``.

    The result equals the joint-space answer ``dqd = -H^-1 J_k^T n J`` and obeys the law
    of contact ``n^T (v_k + dv_k) = -epsilon n^T v_k``.

    Parameters
    ----------
    model : Model
        A serial chain.
    q : array_like, shape (nq,)
    qd : array_like, shape (nv,)
        Joint velocities just before the impact.
    contact : array_like, shape (6,)
        Contact line ``[e; r x e]`` (see :func:`contact_line`), ``e`` pointing into the obstacle.
    epsilon : float or sympy expression
        Coefficient of restitution (0 plastic, 1 elastic).
    body : int, optional
        The body that touches the obstacle (default: the last one).

    Returns
    -------
    ImpulseResponse

    Raises
    ------
    ValueError
        For a branched tree; a body with no inertia along its joint (or bodies beyond the contact
        body with none along theirs); or a contact line the chain cannot move along: the effective
        mobility ``n^T Lambda_inv n`` vanishes (at most ``REACH_RTOL`` of ``|n|^2`` times the largest
        singular value of ``Lambda_inv``), e.g. a stretched chain pushed along itself.

    References
    ----------
    Alexiou (2023) eqs. 11-29 (contact on the last body), generalised to any body of the
    chain with the outboard articulated inertia (Alexiou (1999) "Chain Splitting").

    Examples
    --------
    A straight two-link chain turning about its base hits an obstacle above its tip:

    >>> from dynlib import planar_chain
    >>> chain = planar_chain(2, gravity=(0, 0, 0))
    >>> n = contact_line([2.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    >>> res = impulse_propagation(chain, [0.0, 0.0], [1.0, 0.0], n, 0.5)
    >>> bool(np.isclose(res.v_bounce, -0.5 * res.v_impact))
    True
    >>> bool(np.allclose(res.dqd, contact_impulse(chain, [0.0, 0.0], [1.0, 0.0], n, 0.5, 1)[1]))
    True
    """
    _require_chain(model, "impulse propagation")
    k = model.n_bodies - 1 if body is None else body
    if not isinstance(k, (int, np.integer)) or not 0 <= k < model.n_bodies:
        raise ValueError(f"body must be an index in [0, {model.n_bodies}), got {body!r}")
    n = as_array(contact, "contact")
    if n.shape != (6,):
        raise ValueError(f"contact must be a 6-vector [e; r x e], got shape {n.shape}")
    model, kin, I, _, (qd,), symbolic = _prepare(model, q, None, (qd, "qd"))
    if symbolic:
        n = exact(n)
    nb = model.n_bodies
    one = eye(6, symbolic)
    # impulsive articulated inertia of bodies k .. n-1 (no velocity terms in an impact)
    IA = I.copy()
    for j in reversed(range(k + 1, nb)):
        s = kin.s[j]
        U = IA[j] @ s
        meaning = (f"bodies {j} to {nb - 1}, which ride along with the contact body {k}, carry no inertia along "
                   f"(part of) the motion of joint {j}, so the impact would set them moving infinitely fast")
        IA[j - 1] += IA[j] - U @ _solve_joint_inertia(s.T @ U, U.T, f"joint {j}", meaning, symbolic)
    inertia = [I[i] if i < k else IA[i] for i in range(nb)]
    # 1. articulated mobility out to the contact body (eqs. 15-18)
    steps = list(mobility_steps(kin.s[: k + 1], inertia[: k + 1], symbolic))
    Lambda_inv = zeros((nb, 6, 6), symbolic)
    Lambda_inv[: k + 1] = [step.Lambda_inv for step in steps]
    # 2. impulse magnitude from the law of contact (eqs. 20-22)
    J, v_impact = _impact_magnitude(n, Lambda_inv[k], kin.v[k], epsilon, k)
    # 3. propagation matrices and joint reaction impulses, back to the base (eqs. 24-26)
    Phi, ell = zeros((nb, 6, 6), symbolic), zeros((nb, 6), symbolic)
    Phi_next = one
    for i in reversed(range(k + 1)):  # 1 - I_i Lambda_inv_i = (1 + I_i Psi_i)^-1 P_i^T
        Phi[i] = solve(steps[i].M.T, steps[i].reaction.T @ Phi_next, "1 + I Psi")
        ell[i] = Phi[i] @ n * J
        Phi_next = Phi[i]
    # 4. joint speed and twist jumps, base to tips (eqs. 27-28)
    dqd, dv = zeros(model.nv, symbolic), zeros((nb, 6), symbolic)
    dv_prev = zeros(6, symbolic)
    for i in range(nb):
        s, vs = kin.s[i], model.v_slices[i]
        D = s.T @ inertia[i] @ s
        outboard = n * J if i == k else (ell[i + 1] if i < k else zeros(6, symbolic))
        dqd[vs] = -solve_spd(D, s.T @ (outboard + inertia[i] @ dv_prev), f"D = s^T I s of body {i}")
        dv[i] = dv_prev + s @ dqd[vs]
        if i > k:
            ell[i] = IA[i] @ dv[i]
        dv_prev = dv[i]
    return ImpulseResponse(J, Phi, ell, dqd, dv, v_impact, n @ (kin.v[k] + dv[k]), Lambda_inv)


def contact_impulse(model, q, qd, contact, epsilon, body):
    """Impulse and joint-velocity jump of an impact on any body of any tree, in joint space.

    ``J = (1 + epsilon) n^T v_k / (n^T J_k H^-1 J_k^T n)`` and ``dqd = -H^-1 J_k^T n J``:
    the O(n^3) counterpart of :func:`impulse_propagation`, valid for branched trees.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    qd : array_like, shape (nv,)
    contact : array_like, shape (6,)
        Contact line ``[e; r x e]``, ``e`` pointing into the obstacle.
    epsilon : float or sympy expression
    body : int

    Returns
    -------
    J : float
    dqd : ndarray, shape (nv,)

    References
    ----------
    Alexiou (2023) eqs. 19-22 with ``Lambda_inv = J H^-1 J^T``.
    """
    n = as_array(contact, "contact")
    if n.shape != (6,):
        raise ValueError(f"contact must be a 6-vector [e; r x e], got shape {n.shape}")
    Jk = body_jacobian(model, q, body)
    H = crba(model, q)
    Hinv_JT = solve_spd(H, Jk.T, "the mass matrix H")
    v = forward_kinematics(model, q, check_velocity(model, qd, "qd")).v[body]
    J, _ = _impact_magnitude(n, Jk @ Hinv_JT, v, epsilon, body)
    return J, -Hinv_JT @ n * J
