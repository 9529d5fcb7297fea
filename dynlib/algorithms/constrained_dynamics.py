"""Dynamics of constrained (closed-loop or coupled) systems with Lagrange multipliers.

``H qdd + C = tau + A^T lambda`` together with ``A qdd + dA/dt qd = 0``: the multipliers
``lambda`` are the constraint forces, mapped into joint space by ``A^T``.  The constraints are
loop closures (:class:`dynlib.LoopConstraint`) and joint couplings (:class:`dynlib.JointCoupling`,
whose multiplier is a joint torque), mixed in one list.  The stacked form
writes every body's Newton–Euler equation at once and treats the joints themselves as
constraints, whose multipliers are the joint wrenches.

Chapter: *Constrained chains: loops, multipliers and actuation*; Kim (2012) §3, eqs. 54-66;
Alexiou (1999) "Open Tree Structures", "Contacts Between Bodies", "Planar Constrained Example".
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from ..core.backend import as_array, quoted, solve_spd
from ..multibody.kinematics import (
    about_origin,
    force_about_origin,
    gravity_wrenches,
    marker_motion,
    motion_about_origin,
    state_kinematics,
)
from ..multibody.loops import (
    RANK_RTOL,
    JointCoupling,
    check_constraints,
    constraint_jacobian,
    dependent_constraints_message,
    loop_bias,
    loop_jacobian,
    loop_residual,
    numerical_rank,
)
from ..multibody.model import check_joint_vector, check_state, reference, reference_of
from ..spatial.algebra import cross3, skew
from .articulated import velocity_products
from .inverse_dynamics import state_inverse_dynamics
from .mass_matrix import crba, state_mass_matrix

__all__ = [
    "constrained_forward_dynamics",
    "constrained_inverse_dynamics",
    "StackedDynamics",
    "stacked_system",
    "stacked_forward_dynamics",
    "project_velocity",
]


def constrained_forward_dynamics(model, q, qd, tau, constraints, f_ext=None,
                                 baumgarte=None):
    """Accelerations and constraint forces of a constrained system.

    The free accelerations ``qdd0 = H^-1 (tau - C)`` are corrected by the constraint forces::

        (A H^-1 A^T) lambda = -dA/dt qd - A qdd0 - 2 alpha A qd - beta^2 phi,
        qdd = qdd0 + H^-1 A^T lambda

    The last two terms (Baumgarte stabilisation, off by default) pull a drifting
    simulation back onto ``phi = 0``.  If ``A`` has lost rank (redundant constraints, or a
    singular configuration of the mechanism), ``qdd`` is still unique as long as the dependent
    constraint rows ask for consistent accelerations; ``lambda`` is then the least-norm one.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    qd, tau : array_like, shape (nv,)
    constraints : sequence of LoopConstraint and JointCoupling
    f_ext : array_like, shape (n, 6), optional
    baumgarte : (float, float), optional
        ``(alpha, beta)`` in 1/s; e.g. ``(5, 5)``.

    Returns
    -------
    qdd : ndarray, shape (nv,)
    lam : ndarray, shape (m,)

    Raises
    ------
    ValueError
        If ``A`` has lost rank (smallest singular value at most ``RANK_RTOL`` of the largest) and
        the dependent rows contradict each other: no finite constraint force keeps the loop
        closed, as at a singular configuration passed with speed.

    References
    ----------
    Kim (2012) eqs. 54-55; Baumgarte (1972) stabilisation.
    """
    constraints = check_constraints(model, constraints)
    state = check_state(
        model, q, qd=qd, qdd=np.zeros(model.nv), tau=tau, f_ext=f_ext, batch=False
    )
    kin, r = state_kinematics(state)  # one pass for A, dA/dt qd (qdd = 0) and phi
    A = loop_jacobian(model, kin, constraints)
    rhs = -loop_bias(model, kin, constraints)
    if baumgarte is not None:
        alpha, beta = baumgarte
        phi = loop_residual(model, state.q, kin, r, constraints)
        rhs -= 2 * alpha * (A @ state.qd) + beta**2 * phi
    # one Cholesky factorisation of H gives the free accelerations and H^-1 A^T together
    rhs_H = np.column_stack([state.tau - state_inverse_dynamics(state)[0], A.T])
    solved = solve_spd(state_mass_matrix(state), rhs_H, "the mass matrix H")
    qdd0, H_inv_AT = solved[:, 0], solved[:, 1:]
    scale = np.abs(rhs).max() + np.abs(A @ qdd0).max()
    lam = _multipliers(A, H_inv_AT, rhs - A @ qdd0, scale)
    return qdd0 + H_inv_AT @ lam, lam


def _multipliers(A, H_inv_AT, rhs, scale):
    """Least-norm ``lambda`` with ``A H^-1 A^T lambda = rhs``; a ValueError if ``A`` lost rank and ``rhs`` conflicts.

    With ``A = U diag(sigma) V^T`` of rank ``r``, the rows ``U_r^T A`` are independent and
    ``U_0^T A = 0``: the system holds only if ``U_0^T rhs = 0`` (to ``1e-8`` of ``scale``), and then
    ``lambda = U_r (U_r^T A H^-1 A^T U_r)^-1 U_r^T rhs``.
    """
    m = A.shape[0]
    rank, ratio, U = numerical_rank(A)
    if rank == m:
        return np.linalg.solve(A @ H_inv_AT, rhs)
    U_r, U_0 = U[:, :rank], U[:, rank:]
    conflict = np.abs(U_0.T @ rhs).max()
    if not conflict <= 1e-8 * max(scale, np.finfo(float).tiny):
        raise ValueError(
            dependent_constraints_message(rank, m, ratio)
            + "; here the dependent rows ask for conflicting accelerations "
            f"(mismatch {quoted(conflict)}, against terms of size {quoted(scale)}), "
            "so no finite constraint force keeps the loop closed"
        )
    return U_r @ np.linalg.solve(U_r.T @ A @ H_inv_AT @ U_r, U_r.T @ rhs)


def _joint_mask(model, actuated):
    actuated = np.asarray(actuated, dtype=bool)
    if actuated.shape != (model.n_bodies,):
        raise ValueError(f"actuated must hold one flag per joint ({model.n_bodies}), got shape {actuated.shape}")
    return np.concatenate([[flag] * joint.nv for flag, joint in zip(actuated, model.joints)]).astype(bool)


def constrained_inverse_dynamics(model, q, qd, qdd, constraints, actuated, f_ext=None,
                                 tau_passive=None, minimize="constraint_force"):
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
    constraints : sequence of LoopConstraint and JointCoupling
    actuated : sequence of bool, length n
        Which joints have actuators.
    f_ext : array_like, shape (n, 6), optional
    tau_passive : array_like, shape (nv,), optional
        Forces in the passive joints (springs, friction); zero by default; actuated entries ignored.
    minimize : {"constraint_force", "torque"}

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
        raise ValueError(
            f"minimize must be 'constraint_force' or 'torque', got {minimize!r}"
        )
    state = check_state(model, q, qd=qd, qdd=qdd, f_ext=f_ext, batch=False)
    act = _joint_mask(model, actuated)
    if tau_passive is None:
        tau_p_given = np.zeros(model.nv)
    else:
        tau_p_given = check_joint_vector(model, tau_passive, "tau_passive")
    tau_r = state_inverse_dynamics(state)[0]
    kin, _ = state_kinematics(state)
    A = loop_jacobian(model, kin, check_constraints(model, constraints))
    A_a, A_p = A[:, act], A[:, ~act]
    rhs = tau_r[~act] - tau_p_given[~act]
    if rhs.size:
        lam = np.linalg.lstsq(A_p.T, rhs, rcond=None)[0]
    else:
        lam = np.zeros(A.shape[0])
    mismatch = np.abs(A_p.T @ lam - rhs).max(initial=0.0)
    if mismatch > 1e-8 * max(1.0, np.abs(rhs).max(initial=0.0)):
        rank, ratio, _ = numerical_rank(A_p.T)
        raise ValueError(
            "the passive joints cannot follow these accelerations: "
            "A_p^T lambda = tau_r,p - tau_p has no solution "
            f"(mismatch {quoted(mismatch)}), since the passive columns A_p "
            f"of the constraint Jacobian have rank {rank} for {rhs.size} passive "
            f"coordinates (smallest singular value {quoted(ratio, RANK_RTOL)} "
            "of the largest): the mechanism has fewer independent constraints "
            "than passive coordinates, or is at a singular configuration where "
            "the constraints cannot hold a passive joint; the prescribed motion "
            "is not one the constraints and passive joints allow"
        )
    if minimize == "torque":
        if rhs.size:
            _, sing, Vt = np.linalg.svd(A_p.T)
            rank = int((sing > 1e-10 * max(1.0, sing.max(initial=0.0))).sum())
            N = Vt[rank:].T  # null space of A_p^T
        else:
            # every joint actuated: any lambda keeps the passive rows satisfied
            N = np.eye(A.shape[0])
        if N.size:
            s, *_ = np.linalg.lstsq(A_a.T @ N, tau_r[act] - A_a.T @ lam, rcond=None)
            lam = lam + N @ s
    tau = tau_p_given.copy()
    tau[act] = tau_r[act] - A_a.T @ lam
    return tau, lam


class StackedDynamics(NamedTuple):
    """Result of :func:`stacked_forward_dynamics`.

    Attributes
    ----------
    qdd : ndarray, shape (nv,)
        Joint accelerations.
    a : ndarray, shape (n, 6)
        Spatial accelerations of the bodies (world frame, about the origin).
    f : ndarray, shape (n, 6)
        Joint wrenches: the wrench that joint ``i`` applies to body ``i`` (world frame, about the origin).
    lam : ndarray, shape (m,)
        Constraint multipliers, as in :func:`constrained_forward_dynamics` (empty without constraints).
    """

    qdd: np.ndarray
    a: np.ndarray
    f: np.ndarray
    lam: np.ndarray


def stacked_system(model, q, qd, tau, f_ext=None, constraints=None, about="origin"):
    """The stacked form: all bodies' Newton–Euler equations with the joints and loops as constraints.

    Unknowns are the body accelerations ``a`` (6 per body) and ``qdd``; the multipliers are
    the joint wrenches ``f`` (6 per joint) and the loop multipliers ``lam``.  One symmetric,
    sparse, indefinite system::

        [ M  G^T ] [ x  ]   [ b ]      M = diag(I_1 .. I_n, 0),   x = (a, qdd)
        [ G   0  ] [ -mu] = [ c ]      mu = (f, lam)

    with the rows

        I_i a_i + p_i = f_i - sum_{j child of i} f_j + f_grav_i + f_ext_i (+ loop forces)   (bodies)
        s_i^T f_i = tau_i (+ coupling forces)                                               (joints)
        a_i - a_parent - s_i qdd_i = v_i x s_i qd_i                                         (joint constraints)
        linear_axes (xdd_a - xdd_b) = 0,   angular_axes (alpha_a - alpha_b) = 0             (loops)
        qdd_j - r qdd_i = 0                                                                 (joint couplings)

    where ``p_i = v_i x* I_i v_i`` and a point ``x`` of a body has ``xdd = a_O + alpha x x + w x xd``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    qd, tau : array_like, shape (nv,)
    f_ext : array_like, shape (n, 6), optional
    constraints : sequence of LoopConstraint and JointCoupling, optional
    about : {"origin", "reference"}
        The point the 6-vectors are taken about: the world origin, or the origin of body 0's frame
        (:func:`dynlib.kernels.reference_point`), which keeps the system as well conditioned
        far from the world origin as near it (:func:`stacked_forward_dynamics` solves it there).

    Returns
    -------
    K : scipy.sparse.csc_array, shape (12 n + nv + m, 12 n + nv + m)
        Ordered ``(a_1 .. a_n, qdd, joint rows 1 .. n, loop rows)``.
    rhs : ndarray, shape (12 n + nv + m,)

    References
    ----------
    Alexiou (1999) "Open Tree Structures" (stacked body vectors and the adjacency of the tree),
    "Contacts Between Bodies" (constraint forces adjust the accelerations); Kim (2012) eqs. 54-55.
    """
    if about not in ("origin", "reference"):
        raise ValueError(f"about must be 'origin' or 'reference', got {about!r}")
    state = check_state(model, q, qd=qd, tau=tau, f_ext=f_ext, batch=False)
    loops = [] if constraints is None else check_constraints(model, constraints)
    n, nv = model.n_bodies, model.nv
    kin, f_ext = state_kinematics(state)[0], state.f_ext  # about the reference point r
    if about == "origin" and not state.symbolic:
        r = reference(state)
        kin, f_ext = about_origin(kin, r), force_about_origin(f_ext, r)
    I, tau = kin.I, state.tau
    s_rows = np.concatenate([s_i.T for s_i in kin.s]) if nv else np.zeros((0, 6))
    _, kappa, p = velocity_products(model.arrays, s_rows, I, state.qd, f_ext)
    size = 12 * n + nv + sum(c.m for c in loops)
    rows, cols, values, rhs = [], [], [], np.zeros(size)

    # the non-zero entries of a block whose top-left corner is (r, c)
    def put(r, c, block):
        i, j = np.nonzero(block)
        rows.append(r + i)
        cols.append(c + j)
        values.append(block[i, j])

    # a constraint block in the lower left and its transpose in the upper right
    def couple(r, c, block):
        put(r, c, block)
        put(c, r, block.T)

    rhs[: 6 * n] = (gravity_wrenches(model, kin) - p).ravel()  # body rows
    rhs[6 * n : 6 * n + nv] = tau  # joint rows
    for i in range(n):
        row = 6 * n + nv + 6 * i  # joint i's constraint rows
        put(6 * i, 6 * i, I[i])
        couple(row, 6 * i, np.eye(6))
        if model.parent[i] >= 0:
            couple(row, 6 * model.parent[i], -np.eye(6))
        couple(row, 6 * n + model.v_slices[i].start, -kin.s[i])
        rhs[row : row + 6] = kappa[i]
    row = 12 * n + nv
    for c in loops:
        if isinstance(c, JointCoupling):  # a row on the joint rates alone
            for body, entry in ((c.joint, [[1.0]]), (c.leader, [[-c.multiplier]])):
                couple(row, 6 * n + model.v_slices[body].start, np.array(entry))
            row += c.m
            continue
        k = len(c.linear_axes)
        ends = ((c.body_a, c.point_a, 1.0), (c.body_b, c.point_b, -1.0))
        for body, point, sign in ends:
            if body < 0:
                continue
            x, xd, _ = marker_motion(kin, body, point)
            # the point's velocity and the angular velocity from the body's twist
            linear = np.hstack([np.eye(3), -skew(x)])
            angular = np.hstack([np.zeros((3, 3)), np.eye(3)])
            couple(row, 6 * body, sign * c.linear_axes @ linear)
            couple(row + k, 6 * body, sign * c.angular_axes @ angular)
            rhs[row : row + k] -= sign * c.linear_axes @ cross3(kin.v[body, 3:], xd)
        row += c.m
    from scipy.sparse import coo_array  # here: importing scipy.sparse takes a second

    K = coo_array(
        (np.concatenate(values), (np.concatenate(rows), np.concatenate(cols))),
        shape=(size, size),
    )
    return K.tocsc(), rhs


def stacked_forward_dynamics(model, q, qd, tau, f_ext=None, constraints=None):
    """Forward dynamics by one sparse solve of the stacked form (:func:`stacked_system`).

    Gives the same ``qdd`` as :func:`dynlib.aba` on a tree (and as
    :func:`constrained_forward_dynamics` with loops), together with every body's
    acceleration and every joint's wrench.  The system has ``12 n + nv + m`` unknowns
    against the ``nv`` of the recursive algorithms, but it is sparse: a tree's matrix has
    a bounded number of blocks per row, so a sparse factorisation costs O(n) like ABA,
    with a larger constant.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    qd, tau : array_like, shape (nv,)
    f_ext : array_like, shape (n, 6), optional
    constraints : sequence of LoopConstraint and JointCoupling, optional

    Returns
    -------
    StackedDynamics

    Raises
    ------
    ValueError
        If the loop constraints are dependent (their Jacobian ``A`` has lost rank: a singular
        configuration, or redundant constraints, which :func:`constrained_forward_dynamics`
        accepts), or if the stacked matrix is singular because a joint moves a subtree with no
        inertia along its motion (the mass matrix ``H`` has lost rank).

    References
    ----------
    Alexiou (1999) "Open Tree Structures", "Planar Constrained Example" (piston-crank).

    Examples
    --------
    >>> import dynlib as dl
    >>> model = dl.planar_chain(3)
    >>> q, qd, tau = [0.1, 0.2, 0.3], [1.0, -1.0, 0.5], [0.0, 1.0, 0.0]
    >>> bool(np.allclose(stacked_forward_dynamics(model, q, qd, tau).qdd, dl.aba(model, q, qd, tau)))
    True
    """
    if constraints is not None:
        A = constraint_jacobian(model, q, constraints)
        rank, ratio, _ = numerical_rank(A)
        if rank < A.shape[0]:
            raise ValueError(dependent_constraints_message(rank, A.shape[0], ratio, "the loop-constraint Jacobian A")
                             + "; the stacked matrix needs independent loop constraints (constrained_forward_dynamics "
                             "takes least-norm multipliers for redundant ones)")
    from scipy.sparse.linalg import MatrixRankWarning, spsolve

    K, rhs = stacked_system(model, q, qd, tau, f_ext, constraints, about="reference")
    with warnings.catch_warnings():
        warnings.simplefilter("error", MatrixRankWarning)
        try:
            x = spsolve(K, rhs)
        except MatrixRankWarning:
            raise ValueError(_singular_mass_matrix_message(model, q)) from None
    n, nv = model.n_bodies, model.nv
    r = reference_of(model, as_array(q, "q"))  # a and f back about the world origin (q checked by stacked_system)
    a, f = x[: 6 * n].reshape(n, 6), -x[6 * n + nv : 12 * n + nv].reshape(n, 6)
    return StackedDynamics(x[6 * n : 6 * n + nv], motion_about_origin(a, r), force_about_origin(f, r),
                           -x[12 * n + nv :])


def _singular_mass_matrix_message(model, q):
    """Why the stacked matrix of a tree with independent loop constraints is singular: ``H`` has lost rank."""
    eig = np.linalg.eigvalsh(crba(model, q))
    largest = eig[-1] if eig.size and eig[-1] > 0 else 0.0
    rank = int(np.sum(eig > 1e-12 * largest)) if largest else 0
    ratio = eig[0] / largest if largest else 0.0
    return (f"the stacked matrix is singular; the mass matrix H has rank {rank}, expected {model.nv} (smallest "
            f"eigenvalue {quoted(ratio, 1e-12)} of the largest)"
            + (": a joint moves a subtree with no inertia along its motion, so a force along it would give an "
               "unbounded acceleration" if rank < model.nv else ""))


def project_velocity(model, q, qd, constraints):
    """The velocity nearest ``qd`` in the kinetic-energy metric that satisfies ``A qd = 0``.

    ``qd - H^-1 A^T (A H^-1 A^T)^+ A qd``: removes the constraint-violating part of the
    motion while changing the kinetic energy as little as possible.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    qd : array_like, shape (nv,)
    constraints : sequence of LoopConstraint and JointCoupling

    Returns
    -------
    ndarray, shape (nv,)
    """
    state = check_state(model, q, qd=qd, batch=False)
    kin, _ = state_kinematics(state)
    A = loop_jacobian(model, kin, check_constraints(model, constraints))
    H_inv_AT = solve_spd(state_mass_matrix(state), A.T, "the mass matrix H")
    lam = np.linalg.lstsq(A @ H_inv_AT, A @ state.qd, rcond=None)[0]
    return state.qd - H_inv_AT @ lam
