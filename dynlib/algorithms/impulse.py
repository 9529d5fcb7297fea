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

from ..core.backend import (
    as_array,
    check_magnitude,
    check_scalar,
    exact,
    float_entries,
    is_symbolic,
    quoted,
    solve,
    solve_spd,
)
from ..core.compile import SingularJointInertia, identity, kernel, run
from ..multibody.kinematics import (
    body_kinematics,
    body_motion,
    force_about_origin,
    force_map_about_origin,
    mobility_about_origin,
    motion_about_origin,
    state_kinematics,
    world_jacobian,
)
from ..multibody.model import check_body, check_model, check_state, force_about, reference
from .articulated import joint_acceleration, passed_to_parent
from .mass_matrix import crba_passes
from .mobility import UNBOUNDED_MOBILITY, check_chain, mobility_step

__all__ = [
    "ImpulseResponse",
    "impulse_propagation",
    "contact_impulse",
]


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
    Lambda_bar_inv : ndarray, shape (n, 6, 6)
        The mobilities the impulse meets on its way out (eqs. 15-18 with the impulsive inertias
        ``Ibar``): for ``i < k`` the sub-chain's ``Lambda_inv_i`` of :func:`articulated_mobility`; at
        the contact body ``k`` its mobility with the bodies outboard of it riding along,
        ``Lambda_bar_inv_k = J_k H^-1 J_k^T`` of the whole chain (equal to the sub-chain's only when
        ``k`` is the last body); zero beyond ``k``.  ``n^T Lambda_bar_inv[k] n`` is the effective
        mobility along the contact line (one over the effective mass).
    """

    J: object
    Phi: np.ndarray
    ell: np.ndarray
    dqd: np.ndarray
    dv: np.ndarray
    v_impact: object
    v_bounce: object
    Lambda_bar_inv: np.ndarray


#: An effective mobility ``n^T Lambda_bar_inv n`` at most this fraction of ``|n|^2`` times the largest
#: singular value of ``Lambda_bar_inv`` counts as zero: the contact line cannot be reached.
REACH_RTOL = 1e-12


def _impact_magnitude(n, Lambda_bar_inv, v, epsilon, body):
    """Eq. 22: J = (1 + eps) (n^T v) / (n^T Lambda_bar_inv n), with a clear error if the line is unreachable.

    ``n`` and ``epsilon`` come checked from the door.
    """
    v_impact = n @ v
    reach = n @ Lambda_bar_inv @ n
    if not is_symbolic(reach):
        finite = np.all(np.isfinite(Lambda_bar_inv))
        sigma = np.linalg.svd(Lambda_bar_inv, compute_uv=False) if finite else np.full(6, np.inf)
        largest = float(n @ n) * sigma[0]
        if not reach > REACH_RTOL * largest:
            rank = int(np.sum(sigma > 1e-9 * sigma[0])) if sigma[0] > 0 else 0
            size = "is 0 and Lambda_bar_inv = 0"
            if largest > 0:
                size = (f"is {quoted(reach / largest, REACH_RTOL)} of |n|^2 times the largest singular value of "
                        f"Lambda_bar_inv, so it has rank 0 of 1 along n (Lambda_bar_inv itself has rank {rank} of 6)")
            raise ValueError(
                f"the contact line cannot be moved by the chain at body {body}: the effective mobility "
                f"n^T Lambda_bar_inv n {size}. The contact direction cannot be "
                f"moved by any joint: the line is reciprocal to every joint twist between body {body} and the base, "
                "the obstacle meets a rigid chain, and no finite impulse obeys the law of contact"
            )
    return (1 + epsilon) * v_impact / reach, v_impact


@kernel
def impulse_mobilities(m, q, qd, k):
    """Out to the contact body ``k``: twists, the impulsive inertias ``I_bar`` and the mobility steps.

    Parameters
    ----------
    m : ModelArrays
        The model's arrays (``model.arrays``).
    q : ndarray, shape (nq,)
    qd : ndarray, shape (nv,)
    k : int
        The contact body; the bodies beyond it ride along (their impulsive articulated inertia joins ``I_bar[k]``).

    Returns
    -------
    v : ndarray, shape (n, 6)
    s : ndarray, shape (nv, 6)
    I_bar : ndarray, shape (n, 6, 6)
    Lambda_bar_inv, M, P : ndarray, shape (n, 6, 6)
        Zero beyond body ``k``.

    References
    ----------
    Chapter *Impulse propagation*; Alexiou (2023) eqs. 15-18.
    """
    R, x, s, I = body_kinematics(m, q)
    v, a = body_motion(m, s, qd, qd * 0)
    nb, I_bar = m.parent.shape[0], I.copy()
    zero = np.zeros(6, dtype=I.dtype)
    for j in range(nb - 1, k, -1):                      # no velocity terms in an impact
        d = slice(m.v_start[j], m.v_start[j + 1])
        I_bar[j - 1] += passed_to_parent(I_bar[j], zero, s[d].T, qd[d] * 0, zero, j)[0]
    Lambda_bar_inv = np.zeros((nb, 6, 6), dtype=I.dtype)
    M, P = np.zeros((nb, 6, 6), dtype=I.dtype), I * 0
    for i in range(k + 1):
        d = slice(m.v_start[i], m.v_start[i + 1])
        Lambda_prev = (
            Lambda_bar_inv[i - 1] if i > 0 else np.zeros((6, 6), dtype=I.dtype)
        )
        Lambda_bar_inv[i], Psi, M[i], P[i], D_inv_sT = mobility_step(
            Lambda_prev, s[d].T, I_bar[i], True, i
        )
    return v, s, I_bar, Lambda_bar_inv, M, P


@kernel
def impulse_jumps(m, s, I_bar, M, P, nJ, k):
    """Back to the base, the impulse through every joint; out again, the jumps of speeds and twists.

    Parameters
    ----------
    m : ModelArrays
        The model's arrays (``model.arrays``).
    s : ndarray, shape (nv, 6)
    I_bar, M, P : ndarray, shape (n, 6, 6)
        From :func:`~dynlib.kernels.impulse_mobilities`.
    nJ : ndarray, shape (6,)
        The contact line times the impulse magnitude.
    k : int

    Returns
    -------
    Phi : ndarray, shape (n, 6, 6)
    ell : ndarray, shape (n, 6)
    dqd : ndarray, shape (nv,)
    dv : ndarray, shape (n, 6)

    References
    ----------
    Chapter *Impulse propagation* (``alg-imp-propagation``); Alexiou (2023) eqs. 24-28.
    """
    nb = m.parent.shape[0]
    Phi = np.zeros((nb, 6, 6), dtype=I_bar.dtype)
    ell = np.zeros((nb, 6), dtype=I_bar.dtype)
    Phi_next = identity(6, I_bar)
    # 1 - Ibar_i Lambda_bar_inv_i = (1 + Ibar_i Psi_i)^-1 P_i^T
    for i in range(k, -1, -1):
        Phi[i] = solve(M[i].T, P[i].T @ Phi_next, "1 + I Psi")
        ell[i] = Phi[i] @ nJ
        Phi_next = Phi[i]
    dqd = np.zeros(m.v_start[nb], dtype=I_bar.dtype)
    dv = np.zeros((nb, 6), dtype=I_bar.dtype)
    for i in range(nb):
        d = slice(m.v_start[i], m.v_start[i + 1])
        outboard = nJ if i == k else (ell[i + 1] if i < k else nJ * 0)
        dv_prev = dv[i - 1] if i > 0 else nJ * 0
        dqd[d] = joint_acceleration(I_bar[i], outboard, s[d].T, dqd[d] * 0, dv_prev, i)
        dv[i] = dv_prev + s[d].T @ dqd[d]
        if i > k:
            ell[i] = I_bar[i] @ dv[i]
    return Phi, ell, dqd, dv


#: A contact direction whose length differs from 1 by more than this, or a line whose direction and
#: moment are further from perpendicular (relative to their sizes), is refused.
LINE_RTOL = 1e-9


def _check_contact(contact):
    """The contact line ``[e; r x e]`` as an array, after checking it is one: a unit direction ``e`` and a
    moment perpendicular to it (a screw of zero pitch)."""
    n = as_array(contact, "contact")
    if n.shape != (6,):
        raise ValueError(f"contact must be a 6-vector [e; r x e], got shape {n.shape}")
    check_magnitude(float_entries(n), "contact")
    if is_symbolic(n):
        return n
    e, moment = n[:3], n[3:]
    length = float(np.sqrt(e @ e))
    if not abs(length - 1.0) <= LINE_RTOL:
        what = "is zero: a pure couple, not a line" if length == 0.0 else f"has length {quoted(length, 0, 3)}"
        raise ValueError(f"contact must be a line [e; r x e] with a unit direction e (see dynlib.line_coordinates); "
                         f"its direction e = {e.tolist()} {what}")
    pitch = float(e @ moment)
    if not abs(pitch) <= LINE_RTOL * max(1.0, float(np.sqrt(moment @ moment))):
        raise ValueError("contact must be a line [e; r x e], whose moment is perpendicular to its direction; "
                         f"here e . (r x e) = {quoted(pitch)}, a screw with a pitch, not a line (build it with "
                         "dynlib.line_coordinates(point, direction))")
    return n


def impulse_propagation(model, q, qd, contact, epsilon, body=None):
    """Impulse magnitude and its propagation through a serial chain hitting an obstacle.

    Contact on body ``k`` (the last body unless ``body`` says otherwise).  Out to ``k``: the
    articulated mobilities, with the bodies beyond ``k`` riding along (:func:`~dynlib.kernels.impulse_mobilities`);
    at ``k`` the law of contact fixes ``J = (1 + epsilon) n^T v_k / (n^T Lambda_bar_inv_k n)``; back to the
    base, the impulse through every joint, and out again, the jumps of joint speeds and twists
    (:func:`~dynlib.kernels.impulse_jumps`).  The result equals the joint-space answer ``dqd = -H^-1 J_k^T n J``.

    Parameters
    ----------
    model : Model
        A serial chain.
    q : array_like, shape (nq,)
    qd : array_like, shape (nv,)
        Joint velocities just before the impact.
    contact : array_like, shape (6,)
        Contact line ``[e; r x e]`` (see :func:`line_coordinates`), ``e`` pointing into the obstacle.
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
        body with none along theirs); or a contact line the chain cannot move along (the effective
        mobility ``n^T Lambda_bar_inv n`` vanishes), e.g. a stretched chain pushed along itself.

    References
    ----------
    Chapter *Impulse propagation* (``alg-imp-propagation``); Alexiou (2023) eqs. 11-29 (contact on
    the last body), generalised to any body of the chain (Alexiou (1999) "Chain Splitting").

    Examples
    --------
    A straight two-link chain turning about its base hits an obstacle above its tip:

    >>> from dynlib import line_coordinates, planar_chain
    >>> chain = planar_chain(2, gravity=(0, 0, 0))
    >>> n = line_coordinates([2.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    >>> res = impulse_propagation(chain, [0.0, 0.0], [1.0, 0.0], n, 0.5)
    >>> bool(np.isclose(res.v_bounce, -0.5 * res.v_impact))
    True
    >>> bool(np.allclose(res.dqd, contact_impulse(chain, [0.0, 0.0], [1.0, 0.0], n, 0.5, 1)[1]))
    True
    """
    check_chain(model, "impulse propagation")
    k = model.n_bodies - 1 if body is None else check_body(model, body)
    n = _check_contact(contact)
    check_scalar(epsilon, "epsilon (the coefficient of restitution)", 0.0, 1.0)
    state = check_state(model, q, qd=qd, batch=False)
    r = reference(state)  # the kernels' point: the contact line about it
    n = exact(n) if state.symbolic else force_about(n, r)
    try:
        v, s, I_bar, Lambda_bar_inv, M, P = run(impulse_mobilities, None, state.m, (state.q, state.qd, k), (),
                                              state.symbolic)
    except SingularJointInertia as err:
        rider = err.joint > k
        what = "D = s^T I s of joint {j}" if rider else "D = s^T I s of body {j}"
        meaning = (f"bodies {{j}} to {model.n_bodies - 1}, which ride along with the contact body {k}, carry no "
                   f"inertia along (part of) the motion of joint {{j}}, so the impact would set them moving "
                   f"infinitely fast") if rider else UNBOUNDED_MOBILITY
        raise ValueError(err.message(what, meaning, lambda: impulse_mobilities(state.m, state.q, state.qd, k))) \
            from None
    J, v_impact = _impact_magnitude(n, Lambda_bar_inv[k], v[k], epsilon, k)
    Phi, ell, dqd, dv = run(impulse_jumps, None, state.m, (s, I_bar, M, P, n * J, k), (), state.symbolic)
    v_bounce = n @ (v[k] + dv[k])
    if not state.symbolic:  # back about the world origin
        Phi, ell = force_map_about_origin(Phi, r), force_about_origin(ell, r)
        dv, Lambda_bar_inv = motion_about_origin(dv, r), mobility_about_origin(Lambda_bar_inv, r)
    return ImpulseResponse(J, Phi, ell, dqd, dv, v_impact, v_bounce, Lambda_bar_inv)


def contact_impulse(model, q, qd, contact, epsilon, body=None):
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
    body : int, optional
        The body that touches the obstacle (default: the last one).

    Returns
    -------
    J : float
    dqd : ndarray, shape (nv,)

    References
    ----------
    Chapter *Impulse propagation*; Alexiou (2023) eqs. 19-22 with ``Lambda_bar_inv = J H^-1 J^T``.
    """
    k = check_model(model).n_bodies - 1 if body is None else check_body(model, body)
    n = _check_contact(contact)
    check_scalar(epsilon, "epsilon (the coefficient of restitution)", 0.0, 1.0)
    state = check_state(model, q, qd=qd, batch=False)
    kin, r = state_kinematics(state)  # about the reference point r
    n = exact(n) if state.symbolic else force_about(n, r)
    Jk = world_jacobian(state.model, kin, k)
    H = run(crba_passes, None, state.m, (state.q,), (), state.symbolic)
    H_inv_JT = solve_spd(H, Jk.T, "the mass matrix H")
    J, _ = _impact_magnitude(n, Jk @ H_inv_JT, kin.v[k], epsilon, k)
    return J, -H_inv_JT @ n * J
