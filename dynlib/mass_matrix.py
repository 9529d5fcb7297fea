"""The joint-space inertia (mass) matrix by the composite-rigid-body algorithm, and forward
dynamics by a Cholesky solve with it (the cross-check of the articulated-body algorithm).

Chapter: *Inverse dynamics: the recursive Newton–Euler algorithm* (``ch-inverse-dynamics``), section
on the mass matrix; Featherstone (2008) §6.2, Table 6.2 (here in world coordinates); Kim (2012)
eq. 32 (``M qdd + b = tau``).
"""

from __future__ import annotations

import numpy as np

from ._backend import is_symbolic, matvec, solve_spd
from .energy import world_inertias
from .inverse_dynamics import bias_forces
from .kinematics import forward_kinematics
from .model import check_velocity

__all__ = ["composite_inertias", "crba", "forward_dynamics_crba"]


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
    >>> from dynlib import forward_kinematics, planar_chain, world_inertias
    >>> model = planar_chain(3)
    >>> kin = forward_kinematics(model, [0.1, 0.2, 0.3])
    >>> bool(np.allclose(composite_inertias(model, kin)[0], world_inertias(model, kin).sum(axis=0)))
    True
    """
    symbolic = model.symbolic or is_symbolic(kin.R)
    Ic = world_inertias(model.exact() if symbolic else model, kin).copy()
    for i in reversed(range(model.n_bodies)):  # tips to base
        if model.parent[i] >= 0:
            Ic[..., model.parent[i], :, :] += Ic[..., i, :, :]
    return Ic


def crba(model, q):
    """Joint-space inertia matrix ``H(q)`` (kinetic energy ``qd·H qd / 2``).

    Composite-rigid-body algorithm in world coordinates: every subtree, frozen rigid,
    has the composite inertia ``Ic_i = I_i + sum of Ic over the children``; the force
    needed to give joint ``i`` a unit acceleration is ``F_i = Ic_i s_i`` and it loads every
    joint ``j`` on the path to the base::

        Ic_parent += Ic_i                       (tips to base)
        H_ii = s_i^T Ic_i s_i,   H_ji = s_j^T Ic_i s_i = H_ij^T   for j an ancestor of i

    Every ``F_i`` is formed at once, and so is every product ``s_j^T F_i``; the model's
    tree then says which of them are entries of ``H``: ``H_ji`` where ``j`` is on the path to
    ``i``, its transpose where ``i`` is on the path to ``j``, and zero between branches.

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
    Featherstone (2008) §6.2, Table 6.2 (world-frame form: no transforms needed); Kim (2012)
    eq. 32.

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain
    >>> H = crba(planar_chain(1, length=2.0, mass=3.0), [0.7])
    >>> bool(np.isclose(H[0, 0], 3.0 * 2.0**2 / 3))       # a rod about its end: m L^2 / 3
    True
    """
    kin = forward_kinematics(model, q)
    Ic = composite_inertias(model, kin)  # composite inertias, tips to base
    layout = model._layout
    s = np.concatenate(kin.s, axis=-1)  # every joint's world twist, one column per entry of qd
    F = matvec(Ic[..., layout.dof_body, :, :], np.swapaxes(s, -1, -2))  # F[c] = Ic_i s_c, c in joint i
    sTF = np.swapaxes(s, -1, -2) @ np.swapaxes(F, -1, -2)  # [j, i] = s_j^T F_i
    on_path = layout.dof_supports
    zero = 0 if sTF.dtype == object else 0.0
    return np.where(on_path, sTF, np.where(on_path.T, np.swapaxes(sTF, -1, -2), zero))


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
    tau = check_velocity(model, tau, "tau", batch=True)
    rhs = tau - bias_forces(model, q, qd, f_ext)
    H = crba(model, q)
    return solve_spd(np.broadcast_to(H, rhs.shape[:-1] + H.shape[-2:]), rhs, "the mass matrix H")
