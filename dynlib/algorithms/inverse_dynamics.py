"""Inverse dynamics: the recursive Newton–Euler algorithm, in world coordinates, and the classic
three-vector form it replaces.

Chapter: *Inverse dynamics: the recursive Newton–Euler algorithm* (``ch-inverse-dynamics``);
Lecture 4 "Recursive Newton Euler" (with the gravity trick and its correction) and its summary
slide (the 3-D vector recursion, corrected); Alexiou (1999) "Newton-Euler Equations of Motion";
Kim (2012) Table 2 and eqs. 37, 41, 42.
"""

from __future__ import annotations

import numpy as np

from ..core.backend import exact, is_symbolic, zeros
from ..core.compile import kernel, run
from ..multibody.kinematics import body_kinematics, force_about_origin, gravity_wrenches, state_kinematics
from ..multibody.model import check_configuration, check_state, check_velocity
from ..spatial.algebra import cross3, cross_force, cross_motion, skew

__all__ = [
    "rnea",
    "bias_forces",
    "joint_wrenches",
    "rnea_vectors",
]


@kernel
def rnea_passes(m, q, qd, qdd, f_ext):
    """The two passes of the recursive Newton-Euler algorithm for one state (world frame).

    Parameters
    ----------
    m : ModelArrays
        The model's arrays (``model.arrays``).
    q : ndarray, shape (nq,)
    qd, qdd : ndarray, shape (nv,)
    f_ext : ndarray, shape (n, 6)

    Returns
    -------
    tau : ndarray, shape (nv,)
    f : ndarray, shape (n, 6)
        The wrench each joint transmits to its body.

    References
    ----------
    Chapter *Inverse dynamics* (``alg-rnea``); Lecture 4 "Recursive Newton Euler" (gravity as a base
    acceleration); Alexiou (1999) "Newton-Euler Equations of Motion".
    """
    R, p, s, I = body_kinematics(m, q)
    n = m.parent.shape[0]
    v = np.zeros((n, 6), dtype=qd.dtype)
    a = np.zeros((n, 6), dtype=qd.dtype)
    f = np.zeros((n, 6), dtype=qd.dtype)
    for i in range(n):                                          # out from the base
        k, d = m.parent[i], slice(m.v_start[i], m.v_start[i + 1])
        vJ = s[d].T @ qd[d]                                     # s_i qd_i
        v[i] = v[k] + vJ if k >= 0 else vJ
        a[i] = (a[k] if k >= 0 else m.a_base) + s[d].T @ qdd[d] + cross_motion(v[i], vJ)
        f[i] = I[i] @ a[i] + cross_force(v[i], I[i] @ v[i]) - f_ext[i]
    tau = np.zeros(qd.shape[0], dtype=qd.dtype)
    for i in range(n - 1, -1, -1):                              # in from the tips
        k, d = m.parent[i], slice(m.v_start[i], m.v_start[i + 1])
        tau[d] = s[d] @ f[i]                                    # s_i^T f_i
        if k >= 0:
            f[k] += f[i]
    return tau, f


@kernel
def rnea_batch(m, q, qd, qdd, f_ext):
    """:func:`~dynlib.kernels.rnea_passes` for a batch of states (first axis): a loop over them (``run`` gives
    each core a share of a large batch)."""
    tau, f = np.zeros(qd.shape), np.zeros(f_ext.shape)
    for b in range(q.shape[0]):
        tau[b], f[b] = rnea_passes(m, q[b], qd[b], qdd[b], f_ext[b])
    return tau, f


def state_inverse_dynamics(state):
    """``tau`` and the joint wrenches ``f`` of a checked state (:func:`dynlib.check_state`); ``qdd = 0`` if absent."""
    qdd = zeros(state.qd.shape, state.symbolic) if state.qdd is None else state.qdd
    return run(rnea_passes, rnea_batch, state.m, (state.q, state.qd, qdd, state.f_ext), state.batch, state.symbolic)


def rnea(model, q, qd, qdd, f_ext=None):
    """Joint forces ``tau`` that produce accelerations ``qdd``: inverse dynamics in O(n).

    An outward pass from the base gives every body's twist, acceleration (the base accelerating
    upwards at ``-g``, Lecture 4's gravity trick) and Newton-Euler force; an inward pass from the
    tips projects each force on its joint and hands it to the parent (:func:`~dynlib.kernels.rnea_passes`).

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
    Chapter *Inverse dynamics* (``alg-rnea``); Lecture 4, "Recursive Newton Euler" and the gravity
    correction; Alexiou (1999) "Newton-Euler Equations of Motion"; Kim (2012) Table 2.

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain
    >>> model = planar_chain(1, length=2.0, mass=3.0)          # a rod held horizontal
    >>> bool(np.isclose(rnea(model, [0.0], [0.0], [0.0])[0], 3.0 * 9.81 * 1.0))   # weight x half length
    True
    """
    return state_inverse_dynamics(check_state(model, q, qd=qd, qdd=qdd, f_ext=f_ext))[0]


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
    return state_inverse_dynamics(check_state(model, q, qd=qd, f_ext=f_ext))[0]


def joint_wrenches(model, q, qd, qdd, f_ext=None):
    """The wrench that each joint transmits from the parent to its child body, world frame.

    Lecture 4's corrected form, without the gravity trick: true accelerations (the base at rest)
    and each body's weight subtracted, summed from the tips,
    ``f_i = I_i a_i + v_i x* I_i v_i - I_i [g; 0] - f_ext_i + sum over children c of f_c``.
    These are the forces :func:`rnea` accumulates in its inward pass (with the trick), so
    ``tau_i = s_i^T f_i``.  Besides the joint force, ``f_i`` holds the reaction (bearing) load the
    joint's structure carries, which does no work on the joint's motion.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    qd, qdd : array_like, shape (nv,)
    f_ext : array_like, shape (n, 6), optional

    Returns
    -------
    ndarray, shape (n, 6)
        ``f[i] = [force; moment about the world origin]`` on body ``i`` from its parent.

    References
    ----------
    Lecture 4 "Multibody Systems: Forces" and the revised line (**).

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain
    >>> model = planar_chain(2, mass=3.0)  # two links held horizontal
    >>> f = joint_wrenches(model, [0.0, 0.0], [0.0, 0.0], [0.0, 0.0])
    >>> bool(np.isclose(f[0][1], 2 * 3.0 * 9.81))  # the first joint holds both up
    True
    """
    state = check_state(model, q, qd=qd, qdd=qdd, f_ext=f_ext, batch=False)
    # true accelerations: the base at rest; 6-vectors about the reference point r
    model, (kin, r), f_ext = state.model, state_kinematics(state), state.f_ext
    weight = gravity_wrenches(model, kin)
    f = zeros((model.n_bodies, 6), state.symbolic)
    for i in reversed(range(model.n_bodies)):
        I, v = kin.I[i], kin.v[i]
        f[i] = I @ kin.a[i] + cross_force(v, I @ v) - weight[i] - f_ext[i]
        f[i] += sum(f[c] for c in model.children[i])
    return f if state.symbolic else force_about_origin(f, r)


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
    >>> bool(np.isclose(tau[0], 3.0 * 9.81 * 1.0))  # weight times half the length
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
    w, dw, dv = (zeros((n, 3), symbolic) for _ in range(3))
    F, N = zeros((n, 3), symbolic), zeros((n, 3), symbolic)
    m, c = model.mass, model.com
    # outward pass: angular velocity and acceleration,
    # linear acceleration of each frame origin
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
        # about the centre of mass
        I_c = model.inertias[i][3:, 3:] + m[i] * skew(c[i]) @ skew(c[i])
        F[i] = m[i] * dv_c
        N[i] = I_c @ dw[i] + cross3(w[i], I_c @ w[i])
    # inward pass: force and moment (about the joint)
    # that the parent exerts on each body
    f, n_O, tau = zeros((n, 3), symbolic), zeros((n, 3), symbolic), zeros(n, symbolic)
    for i in reversed(range(n)):
        children = model.children[i]
        f[i] = F[i] + sum(R[j] @ f[j] for j in children)
        n_O[i] = N[i] + cross3(c[i], F[i])
        n_O[i] += sum(R[j] @ n_O[j] + cross3(p[j], R[j] @ f[j]) for j in children)
        e = model.joints[i].axis
        tau[i] = e @ n_O[i] if model.joints[i].kind == "revolute" else e @ f[i]
    return tau
