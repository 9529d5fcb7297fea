"""Inverse dynamics: the recursive Newton–Euler algorithm, in world coordinates.

Chapter: *The recursive Newton–Euler algorithm*; Lecture 4 "Recursive Newton Euler" (with
the gravity trick and its correction), Alexiou (1999) "Newton-Euler Equations of Motion",
Kim (2012) Table 2.
"""

from __future__ import annotations

import numpy as np

from ._backend import as_array, exact, is_symbolic, zeros
from .energy import gravity_acceleration, world_inertias
from .kinematics import forward_kinematics
from .model import check_velocity
from .spatial import cross_force, cross_motion

__all__ = ["rnea", "bias_forces", "check_external_forces"]


def check_external_forces(model, f_ext):
    """Return external wrenches as an (n, 6) array (zeros if ``None``), checking the shape.

    Parameters
    ----------
    model : Model
    f_ext : array_like, shape (n, 6), or None
        ``f_ext[i]`` is the wrench the environment applies to body ``i``, in world
        coordinates about the world origin (linear part first).

    Returns
    -------
    ndarray, shape (n, 6)
    """
    if f_ext is None:
        return zeros((model.n_bodies, 6), model.symbolic)
    f_ext = as_array(f_ext, "f_ext")
    if f_ext.shape != (model.n_bodies, 6):
        raise ValueError(f"f_ext must have shape (n_bodies, 6) = ({model.n_bodies}, 6), got {f_ext.shape}")
    return f_ext


def rnea(model, q, qd, qdd, f_ext=None):
    """Joint forces ``tau`` that produce accelerations ``qdd``: inverse dynamics.

    Two passes over the tree, all quantities in world coordinates:

    1. out from the base, with the base accelerating *upwards* at ``-g`` so that
       gravity needs no per-body term (Lecture 4's trick)::

           v_i = v_parent + s_i qd_i
           a_i = a_parent + s_i qdd_i + v_i x s_i qd_i           (a_base = -[g; 0])
           f_i = I_i a_i + v_i x* I_i v_i - f_ext_i

    2. in from the tips::

           tau_i = s_i^T f_i,   f_parent += f_i

    In the world frame the trick shifts every ``a_i`` by the same ``-[g; 0]``, so
    ``a_i + [g; 0]`` are the true accelerations, and ``f_i`` equals the corrected
    force ``I_i a_i^true + v_i x* I_i v_i - I_i [g; 0]`` of Lecture 4.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    qd, qdd : array_like, shape (nv,)
    f_ext : array_like, shape (n, 6), optional
        External wrench on each body (world frame, about the origin).

    Returns
    -------
    ndarray, shape (nv,)

    References
    ----------
    Lecture 4, "Recursive Newton Euler" and the gravity correction; Alexiou (1999)
    "Newton-Euler Equations of Motion" (``f = I a - (v x)^T I v``, ``tau = s^T f``);
    Kim (2012) Table 2 (body-frame form).

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain
    >>> model = planar_chain(1, length=2.0, mass=3.0)          # a rod held horizontal
    >>> tau = rnea(model, [0.0], [0.0], [0.0])
    >>> bool(np.isclose(tau[0], 3.0 * 9.81 * 1.0))             # weight times half the length
    True
    """
    kin = forward_kinematics(model, q)
    qd, qdd = check_velocity(model, qd, "qd"), check_velocity(model, qdd, "qdd")
    f_ext = check_external_forces(model, f_ext)
    symbolic = model.symbolic or is_symbolic(kin.R, qd, qdd, f_ext)
    if symbolic:
        model, qd, qdd, f_ext = model.exact(), exact(qd), exact(qdd), exact(f_ext)
    I = world_inertias(model, kin)
    n = model.n_bodies
    v, a, f = zeros((n, 6), symbolic), zeros((n, 6), symbolic), zeros((n, 6), symbolic)
    a_base = -gravity_acceleration(model)
    # pass 1, base to tips: twists, accelerations (gravity as a base acceleration), body forces
    for i in range(n):
        s, k, vs = kin.s[i], model.parent[i], model.v_slices[i]
        v_joint = s @ qd[vs]
        v[i] = v_joint if k < 0 else v[k] + v_joint
        a[i] = (a_base if k < 0 else a[k]) + s @ qdd[vs] + cross_motion(v[i], v_joint)
        f[i] = I[i] @ a[i] + cross_force(v[i], I[i] @ v[i]) - f_ext[i]
    # pass 2, tips to base: joint forces, and each body's force passed on to its parent
    tau = zeros(model.nv, symbolic)
    for i in reversed(range(n)):
        tau[model.v_slices[i]] = kin.s[i].T @ f[i]
        if model.parent[i] >= 0:
            f[model.parent[i]] += f[i]
    return tau


def bias_forces(model, q, qd, f_ext=None):
    """Bias forces ``C(q, qd) = rnea(q, qd, 0)``: Coriolis, centrifugal, gravity and external terms.

    The equations of motion read ``H(q) qdd + C(q, qd) = tau``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    qd : array_like, shape (nv,)
    f_ext : array_like, shape (n, 6), optional

    Returns
    -------
    ndarray, shape (nv,)
    """
    qd = check_velocity(model, qd, "qd")
    return rnea(model, q, qd, np.zeros(model.nv, dtype=qd.dtype), f_ext)
