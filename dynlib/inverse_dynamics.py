"""Inverse dynamics: the recursive Newton–Euler algorithm, in world coordinates, and the classic
three-vector form it replaces.

Chapter: *Inverse dynamics: the recursive Newton–Euler algorithm* (``ch-inverse-dynamics``);
Lecture 4 "Recursive Newton Euler" (with the gravity trick and its correction) and its summary
slide (the 3-D vector recursion, corrected); Alexiou (1999) "Newton-Euler Equations of Motion";
Kim (2012) Table 2 and eqs. 37, 41, 42.
"""

from __future__ import annotations

import numpy as np

from ._backend import as_array, check_magnitude, exact, is_symbolic, matvec, transpose_matvec, zeros
from .energy import gravity_acceleration, gravity_wrenches, world_inertias
from .kinematics import forward_kinematics
from .model import _check_model, check_configuration, check_velocity
from .spatial import cross3, cross_force, skew

__all__ = ["rnea", "bias_forces", "check_external_forces", "joint_wrenches", "rnea_vectors"]


def check_external_forces(model, f_ext, batch=False):
    """Return external wrenches as an (n, 6) array (zeros if ``None``), checking the shape.

    Parameters
    ----------
    model : Model
    f_ext : array_like, shape (n, 6), or (..., n, 6) if ``batch``; or None
        ``f_ext[i]`` is the wrench the environment applies to body ``i``, in world
        coordinates about the world origin (linear part first).
    batch : bool
        Accept leading batch axes (one set of wrenches per state).

    Returns
    -------
    ndarray, shape (n, 6) or (..., n, 6)
    """
    _check_model(model)
    if f_ext is None:
        return zeros((model.n_bodies, 6), model.symbolic)
    f_ext = as_array(f_ext, "f_ext")
    if f_ext.shape[-2:] != (model.n_bodies, 6) or (f_ext.ndim > 2 and not batch):
        want = f"(n_bodies, 6) = ({model.n_bodies}, 6)" + (" or (..., n_bodies, 6)" if batch else "")
        raise ValueError(f"f_ext must have shape {want}, got {f_ext.shape}")
    check_magnitude(f_ext, "f_ext")
    return f_ext


def rnea(model, q, qd, qdd, f_ext=None):
    """Joint forces ``tau`` that produce accelerations ``qdd``: inverse dynamics.

    Two passes over the tree, all quantities in world coordinates:

    1. out from the base (:func:`dynlib.forward_kinematics`), with the base accelerating
       *upwards* at ``-g`` so that gravity needs no per-body term (Lecture 4's trick)::

           v_i = v_parent + s_i qd_i
           a_i = a_parent + s_i qdd_i + v_i x s_i qd_i           (a_base = -[g; 0])
           f_i = I_i a_i + v_i x* I_i v_i - f_ext_i

    2. in from the tips::

           tau_i = s_i^T f_i,   f_parent += f_i

    In the world frame the trick shifts every ``a_i`` by the same ``-[g; 0]``, so
    ``a_i + [g; 0]`` are the true accelerations, and ``f_i`` equals the corrected
    force ``I_i a_i^true + v_i x* I_i v_i - I_i [g; 0]`` of Lecture 4.  The shift is
    also how the code applies the trick: the kinematics are computed with the base at
    rest, then every acceleration is shifted, and every body's force follows at once.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (..., nq)
        A leading batch of states gives a batch of results.
    qd, qdd : array_like, shape (nv,) or (..., nv)
    f_ext : array_like, shape (n, 6) or (..., n, 6), optional
        External wrench on each body (world frame, about the origin).

    Returns
    -------
    ndarray, shape (nv,) or (..., nv)

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
    >>> rnea(model, [[0.0], [np.pi / 2]], [0.0], [0.0]).round(6).tolist()   # held at two angles
    [[29.43], [0.0]]
    """
    # pass 1, base to tips: twists and accelerations (gravity as a base acceleration), body forces
    qd, qdd = check_velocity(model, qd, "qd", batch=True), check_velocity(model, qdd, "qdd", batch=True)
    kin = forward_kinematics(model, q, qd, qdd)
    f_ext = check_external_forces(model, f_ext, batch=True)
    symbolic = model.symbolic or is_symbolic(kin.R, f_ext)
    if symbolic:
        model, f_ext = model.exact(), exact(f_ext)
    I = world_inertias(model, kin)
    a = kin.a - gravity_acceleration(model)
    f = matvec(I, a) + cross_force(kin.v, matvec(I, kin.v)) - f_ext
    # pass 2, tips to base: joint forces, and each body's force passed on to its parent
    tau = zeros(f.shape[:-2] + (model.nv,), symbolic)
    for i in reversed(range(model.n_bodies)):
        tau[..., model.v_slices[i]] = transpose_matvec(kin.s[i], f[..., i, :])
        if model.parent[i] >= 0:
            f[..., model.parent[i], :] += f[..., i, :]
    return tau


def bias_forces(model, q, qd, f_ext=None):
    """Bias forces ``C(q, qd) = rnea(q, qd, 0)``: Coriolis, centrifugal, gravity and external terms.

    The equations of motion read ``H(q) qdd + C(q, qd) = tau``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (..., nq)
    qd : array_like, shape (nv,) or (..., nv)
    f_ext : array_like, shape (n, 6) or (..., n, 6), optional

    Returns
    -------
    ndarray, shape (nv,) or (..., nv)
    """
    qd = check_velocity(model, qd, "qd", batch=True)
    return rnea(model, q, qd, np.zeros_like(qd), f_ext)


def joint_wrenches(model, q, qd, qdd, f_ext=None):
    """The wrench that each joint transmits from the parent to its child body, world frame.

    Lecture 4's corrected form, without the gravity trick: true accelerations (the base
    at rest) and each body's weight added as an external wrench, summed from the tips::

        f_i = I_i a_i + v_i x* I_i v_i - I_i [g; 0] - f_ext_i + sum over children c of f_c

    These are the forces that :func:`rnea` accumulates in its inward pass, so
    ``tau_i = s_i^T f_i``.  Besides the joint force, ``f_i`` holds the reaction (bearing)
    load that the joint's structure carries, which does no work on the joint's motion.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    qd, qdd : array_like, shape (nv,)
    f_ext : array_like, shape (n, 6), optional
        External wrench on each body (world frame, about the origin).

    Returns
    -------
    ndarray, shape (n, 6)
        ``f[i] = [force; moment about the world origin]`` on body ``i`` from its parent.

    References
    ----------
    Lecture 4 "Multibody Systems: Forces" (``f_i = I_i a_i + v_i x* I_i v_i + sum f_children``)
    and the revised line (**) ``f_i = I_i a_i + v_i x* I_i v_i - I_i a_g`` with ``a_0 = 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain
    >>> model = planar_chain(2, mass=3.0)                          # two links held horizontal
    >>> f = joint_wrenches(model, [0.0, 0.0], [0.0, 0.0], [0.0, 0.0])
    >>> bool(np.isclose(f[0][1], 2 * 3.0 * 9.81))                  # the first joint holds both up
    True
    """
    q, qd = check_configuration(model, q), check_velocity(model, qd, "qd")
    kin = forward_kinematics(model, q, qd, check_velocity(model, qdd, "qdd"))
    f_ext = check_external_forces(model, f_ext)
    symbolic = model.symbolic or is_symbolic(kin.R, kin.v, kin.a, f_ext)
    if symbolic:
        model, f_ext = model.exact(), exact(f_ext)
    I, weight = world_inertias(model, kin), gravity_wrenches(model, kin)
    f = zeros((model.n_bodies, 6), symbolic)
    for i in reversed(range(model.n_bodies)):
        v = kin.v[i]
        f[i] = I[i] @ kin.a[i] + cross_force(v, I[i] @ v) - weight[i] - f_ext[i]
        f[i] += sum(f[c] for c in model.children[i])
    return f


def _check_vector_joints(model):
    for i, joint in enumerate(model.joints):
        if joint.kind not in ("revolute", "prismatic"):
            raise ValueError(
                f"rnea_vectors handles revolute and prismatic joints only; joint {i} is "
                f"{joint.kind!r} (use dynlib.rnea for any joint type)"
            )


def rnea_vectors(model, q, qd, qdd):
    """Inverse dynamics with 3-vectors in body frames: the classic (Luh–Walker–Paul, Craig) form.

    The recursion of Lecture 4's summary slide, generalised from ``z`` axes to each joint's
    own unit axis ``e_i`` (body-``i`` coordinates) and from chains to trees.  Every quantity of
    body ``i`` is in body-``i`` axes; ``(R_i, p_i)`` is the pose of frame ``i`` in its parent's
    frame.  Outward, with the base accelerating upwards, ``w_0 = dw_0 = 0``, ``dv_0 = -g``::

        w_i   = R_i^T w_k + e_i qd_i                                  (revolute)
        dw_i  = R_i^T dw_k + (R_i^T w_k) x e_i qd_i + e_i qdd_i        (revolute)
        w_i   = R_i^T w_k,   dw_i = R_i^T dw_k                          (prismatic)
        dv_i  = R_i^T (dv_k + dw_k x p_i + w_k x (w_k x p_i))
                [+ 2 w_i x e_i qd_i + e_i qdd_i                         (prismatic)]
        dv_Ci = dv_i + dw_i x c_i + w_i x (w_i x c_i)
        F_i = m_i dv_Ci,    N_i = I_Ci dw_i + w_i x I_Ci w_i

    where ``k`` is the parent; inward, over the children ``j`` of ``i``::

        f_i = F_i + sum R_j f_j
        n_i = N_i + c_i x F_i + sum (R_j n_j + p_j x R_j f_j)
        tau_i = e_i . n_i  (revolute)   or   e_i . f_i  (prismatic)

    ``n_i`` is the moment about the origin of frame ``i`` (the joint).  The result equals
    :func:`rnea` without external forces.

    Parameters
    ----------
    model : Model
        Revolute and prismatic joints only (any tree).
    q, qd, qdd : array_like, shape (n,)
        One number per joint.

    Returns
    -------
    ndarray, shape (n,)

    Raises
    ------
    ValueError
        If the model has a joint of another kind.

    References
    ----------
    Lecture 4, summary slide "Compare to 3D vector version" (corrected: the slide adds the
    prismatic terms ``2 w x e qd + e qdd`` to the acceleration of a revolute joint's frame and
    writes ``I_C w`` for ``I_C dw``; see the chapter's errata); Craig, *Introduction to
    Robotics*, eqs. 6.45-6.53 (the classic statement).

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain
    >>> model = planar_chain(1, length=2.0, mass=3.0)          # a rod held horizontal
    >>> tau = rnea_vectors(model, [0.0], [0.0], [0.0])
    >>> bool(np.isclose(tau[0], 3.0 * 9.81 * 1.0))             # weight times half the length
    True
    """
    _check_vector_joints(model)
    q = check_configuration(model, q)
    qd, qdd = check_velocity(model, qd, "qd"), check_velocity(model, qdd, "qdd")
    symbolic = model.symbolic or is_symbolic(q, qd, qdd)
    if symbolic:
        model, q, qd, qdd = model.exact(), exact(q), exact(qd), exact(qdd)
    n = model.n_bodies
    R, p = [None] * n, [None] * n
    w, dw, dv = zeros((n, 3), symbolic), zeros((n, 3), symbolic), zeros((n, 3), symbolic)
    F, N = zeros((n, 3), symbolic), zeros((n, 3), symbolic)
    m, c = model.mass, model.com
    # outward pass: angular velocity and acceleration, linear acceleration of each frame origin
    for i, joint in enumerate(model.joints):
        T, (R_J, p_J) = model.placements[i], joint.pose(q[i : i + 1])
        R[i], p[i] = T[:3, :3] @ R_J, T[:3, 3] + T[:3, :3] @ p_J
        k, e = model.parent[i], joint.axis
        if k < 0:
            w_k, dw_k, dv_k = zeros(3, symbolic), zeros(3, symbolic), -model.gravity
        else:
            w_k, dw_k, dv_k = w[k], dw[k], dv[k]
        dv[i] = R[i].T @ (dv_k + cross3(dw_k, p[i]) + cross3(w_k, cross3(w_k, p[i])))
        if joint.kind == "revolute":
            w[i] = R[i].T @ w_k + e * qd[i]
            dw[i] = R[i].T @ dw_k + cross3(R[i].T @ w_k, e * qd[i]) + e * qdd[i]
        else:
            w[i], dw[i] = R[i].T @ w_k, R[i].T @ dw_k
            dv[i] = dv[i] + 2 * cross3(w[i], e * qd[i]) + e * qdd[i]
        dv_c = dv[i] + cross3(dw[i], c[i]) + cross3(w[i], cross3(w[i], c[i]))
        I_c = model.inertias[i][3:, 3:] + m[i] * skew(c[i]) @ skew(c[i])   # about the centre of mass
        F[i] = m[i] * dv_c
        N[i] = I_c @ dw[i] + cross3(w[i], I_c @ w[i])
    # inward pass: force and moment (about the joint) that the parent exerts on each body
    f, n_O, tau = zeros((n, 3), symbolic), zeros((n, 3), symbolic), zeros(n, symbolic)
    for i in reversed(range(n)):
        f[i] = F[i] + sum(R[j] @ f[j] for j in model.children[i])
        n_O[i] = N[i] + cross3(c[i], F[i])
        n_O[i] += sum(R[j] @ n_O[j] + cross3(p[j], R[j] @ f[j]) for j in model.children[i])
        e = model.joints[i].axis
        tau[i] = e @ n_O[i] if model.joints[i].kind == "revolute" else e @ f[i]
    return tau
