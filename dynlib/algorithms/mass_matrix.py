"""The joint-space inertia (mass) matrix by the composite-rigid-body algorithm, and forward
dynamics by a Cholesky solve with it (the cross-check of the articulated-body algorithm).

Chapter: *Inverse dynamics: the recursive Newton–Euler algorithm* (``ch-inverse-dynamics``), section
on the mass matrix; Featherstone (2008) §6.2, Table 6.2 (here in world coordinates); Kim (2012)
eq. 32 (``M qdd + b = tau``).
"""

from __future__ import annotations

import numpy as np

from ..core.backend import solve_spd, zeros
from ..core.compile import kernel, run
from ..multibody.kinematics import body_kinematics, check_kinematics, state_kinematics, world_jacobian
from ..multibody.model import check_state
from ..spatial.algebra import crm, skew
from .inverse_dynamics import state_inverse_dynamics

__all__ = [
    "composite_inertias",
    "coriolis_matrix",
    "crba",
    "forward_dynamics_crba",
]


@kernel
def crba_passes(m, q):
    """The joint-space inertia matrix of one state: composite inertias, then a walk up the ancestors.

    Parameters
    ----------
    m : ModelArrays
        The model's arrays (``model.arrays``).
    q : ndarray, shape (nq,)

    Returns
    -------
    H : ndarray, shape (nv, nv)

    References
    ----------
    Chapter *Inverse dynamics* (the mass matrix); Featherstone (2008) Table 6.2, in world coordinates.
    """
    R, p, s, I = body_kinematics(m, q)
    n, nv = m.parent.shape[0], m.v_start[m.parent.shape[0]]
    Ic = I.copy()
    # composite inertias, tips to base
    for i in range(n - 1, -1, -1):
        if m.parent[i] >= 0:
            Ic[m.parent[i]] += Ic[i]
    H = np.zeros((nv, nv), dtype=q.dtype)
    for i in range(n):
        di = slice(m.v_start[i], m.v_start[i + 1])
        # the force that moves joint i alone: Ic_i s_i
        F = Ic[i] @ s[di].T
        H[di, di] = s[di] @ F
        j = m.parent[i]
        # up the ancestors: H_ji = s_j^T F_i
        while j >= 0:
            dj = slice(m.v_start[j], m.v_start[j + 1])
            H[dj, di] = s[dj] @ F
            j = m.parent[j]
    for r in range(nv):                                         # H is symmetric:
        for c in range(r):                                      # the lower triangle
            H[r, c] = H[c, r]                                   # mirrors the upper
    return H


@kernel
def crba_batch(m, q):
    """:func:`~dynlib.kernels.crba_passes` for a batch of configurations (first axis): a loop over them (``run`` gives
    each core a share of a large batch)."""
    nv = m.v_start[m.parent.shape[0]]
    H = np.zeros((q.shape[0], nv, nv))
    for b in range(q.shape[0]):
        H[b] = crba_passes(m, q[b])
    return H


def composite_inertias(model, kin):
    """World-frame inertia of every subtree frozen into one rigid body: ``Ic_i = I_i + sum Ic_children``.

    Parameters
    ----------
    model : Model
    kin : Kinematics
        From :func:`dynlib.forward_kinematics` for the same configuration.

    Returns
    -------
    ndarray, shape (n, 6, 6) or (..., n, 6, 6)
        ``Ic[i]`` is the sum of the world-frame inertias of body ``i`` and all its
        descendants (world frame, about the origin, so inertias simply add).

    References
    ----------
    Featherstone (2008) §6.2 (composite rigid bodies).

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import forward_kinematics, planar_chain
    >>> model = planar_chain(3)
    >>> kin = forward_kinematics(model, [0.1, 0.2, 0.3])
    >>> bool(np.allclose(composite_inertias(model, kin)[0], kin.I.sum(axis=0)))
    True
    """
    check_kinematics(model, kin)
    Ic = kin.I.copy()
    for i in reversed(range(model.n_bodies)):  # tips to base
        if model.parent[i] >= 0:
            Ic[..., model.parent[i], :, :] += Ic[..., i, :, :]
    return Ic


def crba(model, q):
    """Joint-space inertia matrix ``H(q)`` (kinetic energy ``qd·H qd / 2``), in O(n d) on a tree of depth d.

    Every subtree frozen rigid has the composite inertia ``Ic_i``; the force that gives joint ``i``
    alone a unit acceleration, ``F_i = Ic_i s_i``, loads every joint ``j`` on the path to the base:
    ``H_ji = s_j^T F_i`` (:func:`~dynlib.kernels.crba_passes`).

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (..., nq)
        A leading batch of configurations gives a batch of matrices.

    Returns
    -------
    ndarray, shape (nv, nv) or (..., nv, nv)
        Symmetric; positive definite when no subtree is massless along its joint.

    References
    ----------
    Chapter *Inverse dynamics* (the mass matrix); Featherstone (2008) §6.2, Table 6.2; Kim (2012) eq. 32.

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain
    >>> H = crba(planar_chain(1, length=2.0, mass=3.0), [0.7])
    >>> bool(np.isclose(H[0, 0], 3.0 * 2.0**2 / 3))       # a rod about its end: m L^2 / 3
    True
    """
    return state_mass_matrix(check_state(model, q))


def state_mass_matrix(state):
    """``H`` of a checked state (:func:`dynlib.check_state`)."""
    return run(crba_passes, crba_batch, state.m, (state.q,), state.batch, state.symbolic)


def forward_dynamics_crba(model, q, qd, tau, f_ext=None):
    """Joint accelerations from ``H qdd = tau - C`` with a Cholesky factorisation of ``H``.

    An O(n^3) alternative to :func:`dynlib.aba`, kept as its cross-check.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (..., nq)
    qd, tau : array_like, shape (nv,) or (..., nv)
    f_ext : array_like, shape (n, 6) or (..., n, 6), optional

    Returns
    -------
    ndarray, shape (nv,) or (..., nv)

    Raises
    ------
    ValueError
        If ``H`` is not positive definite (a massless subtree).
    """
    state = check_state(model, q, qd=qd, tau=tau, f_ext=f_ext)
    return solve_spd(state_mass_matrix(state), state.tau - state_inverse_dynamics(state)[0], "the mass matrix H")


def coriolis_matrix(model, q, qd):
    """The Coriolis matrix ``C(q, qd)``: ``C qd`` are the velocity products, and ``dH/dt - 2 C`` is skew.

    Body by body, with ``J_i`` the world Jacobian of body ``i`` (the joint twists ``s_j`` of its
    ancestors), ``v_i`` its twist and ``I_i`` its world inertia::

        C = sum_i J_i^T (I_i dJ_i + B(I_i, v_i) J_i)
        dJ_i = columns v_j x s_j           (a joint twist turns with its body, eq-rnea-outward)
        B(I, v) = (v x* I - I v x + (I v) xbar) / 2,      (f xbar) u = u x* f   (velocity_inertia_product / 2)

    ``C qd = sum_i J_i^T (I_i dJ_i qd + v_i x* I_i v_i)`` is the RNEA's velocity-product torque, and
    ``C + C^T = dH/dt`` because ``B + B^T = dI/dt = v x* I - I v x``.  In coordinates where every
    entry of ``qd`` is the rate of an entry of ``q`` (revolute, prismatic, helical and translational
    joints) this is the matrix of Christoffel symbols,
    ``C_ij = sum_k (dH_ij/dq_k + dH_ik/dq_j - dH_jk/dq_i) qd_k / 2``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    qd : array_like, shape (nv,)

    Returns
    -------
    ndarray, shape (nv, nv)

    References
    ----------
    Chapter *Inverse dynamics* (``sec-rnea-coriolis``); Echeandia & Wensing (2021), the body-level
    factorisation ``B``; Spong, Hutchinson & Vidyasagar, the skew-symmetry of ``dH/dt - 2 C``.

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain, bias_forces
    >>> chain = planar_chain(2, gravity=(0, 0, 0))
    >>> q, qd = np.array([0.3, -0.5]), np.array([1.0, 2.0])
    >>> bool(np.allclose(coriolis_matrix(chain, q, qd) @ qd, bias_forces(chain, q, qd)))
    True
    """
    state = check_state(model, q, qd=qd, batch=False)
    model, (kin, _) = state.model, state_kinematics(state)  # about the reference point: C is the same about any
    C = zeros((model.nv, model.nv), state.symbolic)
    for i in range(model.n_bodies):
        J, dJ = world_jacobian(model, kin, i), zeros((6, model.nv), state.symbolic)
        for j in model.ancestors(i):
            dJ[:, model.v_slices[j]] = crm(kin.v[j]) @ kin.s[j]
        I, v = kin.I[i], kin.v[i]
        B = velocity_inertia_product(I, v) / 2
        C += J.T @ (I @ dJ + B @ J)
    return C


@kernel(inline=True)
def velocity_inertia_product(I, v):
    """``2 B(I, v) = v x* I - I v x + (I v) xbar``: how ``I a + v x* I v`` responds to a change of ``v``.

    With ``(h xbar) u = u x* h``, a twist change ``dv`` with the acceleration change ``v x dv``
    (or ``dv x v``, turned) changes a body's Newton-Euler force by ``2 B dv``; it is twice the
    body-level Coriolis factor ``B`` of :func:`dynlib.coriolis_matrix`.

    Parameters
    ----------
    I : ndarray, shape (6, 6)
        World inertia of a body.
    v : ndarray, shape (6,)
        Its twist.

    Returns
    -------
    ndarray, shape (6, 6)
    """
    h = I @ v
    W, V, F, N = skew(v[3:]), skew(v[:3]), skew(h[:3]), skew(h[3:])
    vx = np.zeros((6, 6), dtype=I.dtype)                    # crm(v) = [[w x, v_O x], [0, w x]]
    hx = np.zeros((6, 6), dtype=I.dtype)                    # (h xbar) = [[0, -f x], [-f x, -n x]]
    vx[:3, :3], vx[:3, 3:], vx[3:, 3:] = W, V, W
    hx[:3, 3:], hx[3:, :3], hx[3:, 3:] = -F, -F, -N
    return -vx.T @ I - I @ vx + hx
