"""Articulated mobility of a serial chain, and forward dynamics by chain splitting.

Articulated inertia looks *outwards* from a joint; articulated mobility looks *inwards*:
``Lambda_inv_i`` maps a force applied to body ``i`` by what lies beyond it to the
acceleration it gives body ``i``, when bodies ``1 .. i`` form a chain fixed at the base,

    a_i = b_i - Lambda_inv_i f_{i+1},

where ``f_{i+1}`` is the force body ``i`` exerts on body ``i+1`` and ``b_i`` the bias
acceleration (velocities, gravity, joint forces).  For impulses the velocity terms vanish
and the same matrix gives ``dv_i = -Lambda_inv_i l_{i+1}`` (Alexiou (2023) eq. 14).

The mobility of a body point, its ellipse and the rank of each body's mobility describe how
that sub-chain yields to blows in different directions and where it stops yielding
(singular configurations).  A rank-deficient mobility is not an error: it is the normal state
of a body with fewer than six independent joint freedoms below it, and the functions here
return it as it is (:func:`dynlib.mobility_spectrum` reports the ranks).  What cannot be inverted is
refused with a ValueError that says what lost rank and what that means for the chain.

Chapter: *Articulated mobility and chain splitting*; Alexiou (2023) eqs. 14-18; Alexiou (1999)
"Articulated Mobility Concept", "Articulated Mobility Recursion", "Articulated Equations of
Motion", "Chain Splitting", "Future Work" (visualisation of articulated quantities).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.backend import as_array, as_finite, eye, is_symbolic, quoted, solve
from ..core.compile import SingularJointInertia, identity, kernel, run, solve_joint
from ..multibody.kinematics import body_kinematics, mobility_about_origin, motion_about_origin
from ..multibody.model import check_model, check_state, reference
from ..spatial.algebra import skew
from .articulated import joint_acceleration, passed_to_parent, velocity_products

__all__ = [
    "Mobility",
    "articulated_mobility",
    "split_chain_dynamics",
    "point_mobility",
    "MobilityEllipse",
    "mobility_ellipse",
    "MobilitySpectrum",
    "mobility_spectrum",
]

#: What a body without inertia along its joint means for the mobility recursion.
UNBOUNDED_MOBILITY = ("body {j} has no inertia along (part of) its joint's motion, so the sub-chain ending at it "
                      "would yield to a push that way without resistance (unbounded mobility); the mobility "
                      "recursion needs every body to have inertia along its own joint")


class Mobility(NamedTuple):
    """Per-body results of :func:`articulated_mobility` (world frame).

    Attributes
    ----------
    Lambda_inv : ndarray, shape (n, 6, 6)
        Articulated mobility (constrained inverse spatial inertia) of each body's sub-chain.
    Psi : ndarray, shape (n, 6, 6)
        The inboard mobility seen through joint ``i``: ``P_i Lambda_inv_{i-1} P_i^T`` with
        ``P_i = 1 - s_i D_i^-1 s_i^T I_i`` (eq. 15 times ``P_i^T``; ``P_i Lambda_inv_{i-1}`` as printed
        with ``form="printed"``), see :func:`~dynlib.kernels.mobility_step`.
    b : ndarray, shape (n, 6), or None
        Bias accelerations (``None`` when no velocities were given).
    """

    Lambda_inv: np.ndarray
    Psi: np.ndarray
    b: np.ndarray | None


def check_chain(model, what):
    """Raise unless ``model`` is a serial chain (``parent[i] == i - 1``); ``what`` names the algorithm."""
    check_model(model)
    if not model.is_chain():
        raise ValueError(
            f"{what} is defined for serial chains (parent[i] == i - 1); this model is a branched tree "
            f"with parents {model.parent}"
        )


def _check_form(form):
    if form not in ("symmetric", "printed"):
        raise ValueError(f"form must be 'symmetric' or 'printed', got {form!r}")
    return form == "symmetric"


@kernel
def mobility_step(Lambda_prev, s, I, symmetric, joint):
    """One body of the articulated-mobility recursion.

    Parameters
    ----------
    Lambda_prev : ndarray, shape (6, 6)
        The parent's mobility (zero for the first body).
    s : ndarray, shape (6, k)
        The joint's world twists.
    I : ndarray, shape (6, 6)
        The inertia the body presents.
    symmetric : bool
        ``Psi = P Lambda_prev P^T`` (well conditioned) or note 000's ``P Lambda_prev``.
    joint : int

    Returns
    -------
    Lambda_inv : ndarray, shape (6, 6)
    Psi, M, P : ndarray, shape (6, 6)
        ``Psi``, ``M = 1 + Psi I`` and the reaction projector ``P = 1 - s D^-1 s^T I``.
    D_inv_sT : ndarray, shape (k, 6)
        ``D^-1 s^T``.

    References
    ----------
    Chapter *Articulated mobility* (``alg-mob-recursion``); Alexiou (2023) eqs. 15-16.
    """
    D_inv_sT = solve_joint(s.T @ I @ s, s.T, joint)
    K = s @ D_inv_sT                                   # s D^-1 s^T
    P = identity(6, I) - K @ I
    # only reactions reach the parent
    Psi = P @ Lambda_prev @ P.T if symmetric else P @ Lambda_prev
    M = identity(6, I) + Psi @ I
    return solve(M, K + Psi, "1 + Psi I"), Psi, M, P, D_inv_sT


@kernel
def mobility_recursion(m, s, I, c, p, tau, a_base, symmetric, count):
    """Mobilities and bias accelerations of the first ``count`` bodies of a chain, from the base out.

    Parameters
    ----------
    m : ModelArrays
        The model's arrays (``model.arrays``).
    s : ndarray, shape (nv, 6)
    I : ndarray, shape (n, 6, 6)
    c, p : ndarray, shape (n, 6)
        Velocity products and bias forces (:func:`~dynlib.kernels.velocity_products`).
    tau : ndarray, shape (nv,)
    a_base : ndarray, shape (6,)
        ``b_0``, the base acceleration (``-[g; 0]``).
    symmetric : bool
    count : int

    Returns
    -------
    Lambda_inv, Psi : ndarray, shape (count, 6, 6)
    b : ndarray, shape (count, 6)

    References
    ----------
    Chapter *Articulated mobility* (``eq-mob-bias``); Alexiou (2023) eqs. 15-18.
    """
    Lambda_inv = np.zeros((count, 6, 6), dtype=I.dtype)
    Psi = np.zeros((count, 6, 6), dtype=I.dtype)
    b = np.zeros((count, 6), dtype=I.dtype)
    Lambda_prev, b_prev = np.zeros((6, 6), dtype=I.dtype), a_base
    for i in range(count):
        d = slice(m.v_start[i], m.v_start[i + 1])
        Lambda_inv[i], Psi[i], M, P, D_inv_sT = mobility_step(
            Lambda_prev, s[d].T, I[i], symmetric, i
        )
        drive = D_inv_sT.T @ tau[d]                          # s D^-1 tau
        inboard = b_prev + c[i]
        # the inboard chain recoils from I s D^-1 tau
        if symmetric:
            inboard = inboard - Lambda_prev @ (I[i] @ drive)
        b[i] = solve(M, P @ inboard + drive, "1 + Psi I") - Lambda_inv[i] @ p[i]
        Lambda_prev, b_prev = Lambda_inv[i], b[i]
    return Lambda_inv, Psi, b


@kernel
def mobility_passes(m, q, qd, tau, f_ext, symmetric):
    """Articulated mobility and bias acceleration of every body of a chain, for one state.

    Parameters
    ----------
    m : ModelArrays
        The model's arrays (``model.arrays``).
    q : ndarray, shape (nq,)
    qd, tau : ndarray, shape (nv,)
    f_ext : ndarray, shape (n, 6)
    symmetric : bool

    Returns
    -------
    Lambda_inv, Psi : ndarray, shape (n, 6, 6)
    b : ndarray, shape (n, 6)

    References
    ----------
    Chapter *Articulated mobility*; Alexiou (2023) eqs. 15-18.
    """
    R, x, s, I = body_kinematics(m, q)
    v, c, p = velocity_products(m, s, I, qd, f_ext)
    return mobility_recursion(m, s, I, c, p, tau, m.a_base, symmetric, m.parent.shape[0])


def articulated_mobility(model, q, qd=None, tau=None, f_ext=None, form="symmetric"):
    """Articulated mobility ``Lambda_inv_i`` of every body of a serial chain, from the base out.

    For body ``i`` with rigid inertia ``I_i``, joint twists ``s_i``, ``D_i = s_i^T I_i s_i`` and
    ``P_i = 1 - s_i D_i^-1 s_i^T I_i``, ``Psi_i = P_i Lambda_inv_{i-1} P_i^T`` (eq. 15, times ``P_i^T``)
    and ``Lambda_inv_i = (1 + Psi_i I_i)^-1 (s_i D_i^-1 s_i^T + Psi_i)`` (eq. 16), from
    ``Lambda_inv_0 = 0``; with velocities the bias accelerations ``b_i`` follow the same pattern
    (:func:`~dynlib.kernels.mobility_recursion`).  ``Lambda_inv_i`` equals ``J_i H_i^-1 J_i^T`` of the sub-chain
    ``1 .. i``; it is singular whenever fewer than six independent joint twists lie below body ``i``,
    its normal state (:func:`mobility_spectrum` gives the ranks).

    Parameters
    ----------
    model : Model
        A serial chain; every body must have mass along its joint (``D_i`` invertible).
    q : array_like, shape (nq,)
    qd : array_like, shape (nv,), optional
        Give it (and ``tau``) to get the bias accelerations ``b``.
    tau : array_like, shape (nv,), optional
        Joint forces (zero if omitted); needs ``qd``.
    f_ext : array_like, shape (n, 6), optional
        Needs ``qd``.
    form : {"symmetric", "printed"}
        How eq. 16 is evaluated (:func:`~dynlib.kernels.mobility_step`): ``"printed"`` is note 000's
        ``Psi_i = P_i Lambda_inv_{i-1}``, which can be badly conditioned after free joints.

    Returns
    -------
    Mobility

    Raises
    ------
    ValueError
        For a branched tree, ``tau`` or ``f_ext`` without ``qd``, or a body with no inertia along
        (part of) its joint's motion.

    References
    ----------
    Chapter *Articulated mobility* (``alg-mob-recursion``); Alexiou (2023) eqs. 15-18 (``Lambda_inv``
    is printed ``Lambda`` in eq. 35: see the errata page); Alexiou (1999) "Articulated Mobility
    Recursion", "Articulated Equations of Motion".

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain, body_jacobian, crba
    >>> model, q = planar_chain(3), np.array([0.3, -0.5, 0.9])
    >>> L, J = articulated_mobility(model, q).Lambda_inv[2], body_jacobian(model, q, 2)
    >>> bool(np.allclose(L, J @ np.linalg.solve(crba(model, q), J.T)))
    True
    """
    check_chain(model, "articulated mobility")
    symmetric = _check_form(form)
    if qd is None and (tau is not None or f_ext is not None):
        raise ValueError("tau and f_ext need qd: without velocities articulated_mobility gives the mobilities "
                         "alone, and the bias accelerations b that tau and f_ext enter need qd")
    dynamic = qd is not None
    state = check_state(model, q, qd=np.zeros(model.nv) if qd is None else qd,
                        tau=np.zeros(model.nv) if tau is None else tau, f_ext=f_ext, batch=False)
    Lambda_inv, Psi, b = state_mobility(state, symmetric)
    if not state.symbolic:  # the kernels' point: move them back to the world origin
        r = reference(state)
        Lambda_inv, Psi = mobility_about_origin(Lambda_inv, r), mobility_about_origin(Psi, r)
        b = motion_about_origin(b, r)
    return Mobility(Lambda_inv, Psi, b if dynamic else None)


def state_mobility(state, symmetric=True):
    """``Lambda_inv``, ``Psi`` and ``b`` of a checked state (:func:`dynlib.check_state`), about its reference point."""
    args = (state.q, state.qd, state.tau, state.f_ext, symmetric)
    try:
        return run(mobility_passes, None, state.m, args, (), state.symbolic)
    except SingularJointInertia as err:
        raise ValueError(err.message("D = s^T I s of body {j}", UNBOUNDED_MOBILITY,
                                     lambda: mobility_passes(state.m, *args))) from None


@kernel
def split_chain_passes(m, q, qd, tau, f_ext, split, symmetric):
    """Forward dynamics of a chain split after body ``split - 1``, for one state.

    Parameters
    ----------
    m : ModelArrays
        The model's arrays (``model.arrays``).
    q : ndarray, shape (nq,)
    qd, tau : ndarray, shape (nv,)
    f_ext : ndarray, shape (n, 6)
    split : int
        Bodies handled by mobilities.
    symmetric : bool

    Returns
    -------
    qdd : ndarray, shape (nv,)

    References
    ----------
    Chapter *Articulated mobility* (``alg-mob-split``); Alexiou (1999) "Chain Splitting".
    """
    R, x, s, I = body_kinematics(m, q)
    v, c, p = velocity_products(m, s, I, qd, f_ext)
    n = m.parent.shape[0]
    Lambda_inv, Psi, b = mobility_recursion(
        m, s, I, c, p, tau, m.a_base, symmetric, split
    )
    IA, pA = I.copy(), p.copy()
    # outboard: articulated inertias
    for i in range(n - 1, split, -1):
        d = slice(m.v_start[i], m.v_start[i + 1])
        Ia, pa = passed_to_parent(IA[i], pA[i], s[d].T, tau[d], c[i], i)
        IA[i - 1] += Ia
        pA[i - 1] += pa
    a = np.zeros((n, 6), dtype=I.dtype)
    qdd = np.zeros(qd.shape[0], dtype=I.dtype)
    f_next = np.zeros(6, dtype=I.dtype)
    if 0 < split < n:                                                # the junction
        d = slice(m.v_start[split], m.v_start[split + 1])
        Ia, pa = passed_to_parent(IA[split], pA[split], s[d].T, tau[d], c[split], split)
        L = Lambda_inv[split - 1]
        a[split - 1] = solve(
            identity(6, I) + L @ Ia, b[split - 1] - L @ pa, "1 + Lambda_inv Ia"
        )
        f_next = Ia @ a[split - 1] + pa
    elif split == n:
        a[n - 1] = b[n - 1]
    # outboard, base to tips
    for i in range(split, n):
        d = slice(m.v_start[i], m.v_start[i + 1])
        a_in = (a[i - 1] if i > 0 else m.a_base) + c[i]
        qdd[d] = joint_acceleration(IA[i], pA[i], s[d].T, tau[d], a_in, i)
        a[i] = a_in + s[d].T @ qdd[d]
    # inboard, back to the base
    for j in range(split - 1, -1, -1):
        d = slice(m.v_start[j], m.v_start[j + 1])
        f_j = I[j] @ a[j] + p[j] + f_next
        a_prev = b[j - 1] - Lambda_inv[j - 1] @ f_j if j > 0 else m.a_base
        qdd[d] = joint_acceleration(
            I[j], p[j] + f_next, s[d].T, tau[d], a_prev + c[j], j
        )
        if j > 0:
            a[j - 1] = a_prev
        f_next = f_j
    return qdd


def split_chain_dynamics(model, q, qd, tau, split, f_ext=None, form="printed"):
    """Forward dynamics of a serial chain solved by splitting it in two.

    The inboard bodies ``0 .. split-1`` are described by their articulated mobility
    (``a_k = b_k - Lambda_inv_k f``), the outboard bodies ``split .. n-1`` by their articulated
    inertia (``f = Ia a_k + pa``); the two meet at body ``k = split - 1`` in
    ``(1 + Lambda_inv_k Ia) a_k = b_k - Lambda_inv_k pa``, then the outboard accelerations follow the
    articulated-body algorithm's last pass and the inboard ones come back down the chain
    (:func:`~dynlib.kernels.split_chain_passes`).  ``split = 0`` is the articulated-body algorithm; ``split = n``
    uses mobility alone.

    On a long chain the inward pass ``a_{j-1} = b_{j-1} - Lambda_inv_{j-1} f_j`` subtracts two
    accelerations far larger than their difference, so a long mobility half costs digits that the
    articulated-body algorithm keeps; the printed form of eq. 16 (the default here) loses fewer of
    them than the symmetric one, because its ``b`` and ``Lambda_inv`` come from the same matrix.

    Parameters
    ----------
    model : Model
        A serial chain.
    q : array_like, shape (nq,)
    qd, tau : array_like, shape (nv,)
    split : int
        Number of inboard bodies, ``0 <= split <= n``.
    f_ext : array_like, shape (n, 6), optional
    form : {"printed", "symmetric"}
        The evaluation of eq. 16 for the inboard half (:func:`~dynlib.kernels.mobility_step`).

    Returns
    -------
    ndarray, shape (nv,)

    References
    ----------
    Chapter *Articulated mobility* (``alg-mob-split``); Alexiou (1999) "Chain Splitting".
    """
    check_chain(model, "chain splitting")
    symmetric = _check_form(form)
    n = model.n_bodies
    if not isinstance(split, (int, np.integer)) or isinstance(split, bool) or not 0 <= split <= n:
        raise ValueError(f"split must be an int in [0, {n}], got {split!r}")
    state = check_state(model, q, qd=qd, tau=tau, f_ext=f_ext, batch=False)
    args = (state.q, state.qd, state.tau, state.f_ext, int(split), symmetric)
    try:
        return run(split_chain_passes, None, state.m, args, (), state.symbolic)
    except SingularJointInertia as err:
        inboard = err.joint < split
        what = "D = s^T I s of body {j}" if inboard else "D = s^T IA s of joint {j}"
        meaning = UNBOUNDED_MOBILITY if inboard else ("body {j} and its subtree carry no inertia along joint {j}'s "
                                                      "motion, so a joint force would give it an unbounded "
                                                      "acceleration")
        raise ValueError(err.message(what, meaning, lambda: split_chain_passes(state.m, *args))) from None


#: Asymmetry, and negative eigenvalues, of a mobility up to this fraction of its size count as round-off.
MOBILITY_RTOL = 1e-8


def _check_mobility_matrix(Lambda_inv):
    """``Lambda_inv`` as a finite 6 x 6 array (entries of magnitude at most 1e40), symmetric positive
    semi-definite as every articulated mobility is."""
    what = "Lambda_inv (a 6x6 articulated mobility)"
    Lambda_inv = as_finite(Lambda_inv, (6, 6), what, batch=False)
    if is_symbolic(Lambda_inv):
        return Lambda_inv
    size = max(float(np.abs(Lambda_inv).max()), np.finfo(float).tiny)
    asymmetry = float(np.abs(Lambda_inv - Lambda_inv.T).max())
    if not asymmetry <= MOBILITY_RTOL * size:
        raise ValueError(f"{what} must be symmetric, as J H^-1 J^T is; it differs from its transpose by "
                         f"{quoted(asymmetry / size)} of its largest entry")
    smallest = float(np.linalg.eigvalsh((Lambda_inv + Lambda_inv.T) / 2)[0])
    if not smallest >= -MOBILITY_RTOL * size:
        raise ValueError(f"{what} must be positive semi-definite, as J H^-1 J^T is (no push can make a body "
                         f"move against it); its smallest eigenvalue is {quoted(smallest / size)} of its largest "
                         "entry")
    return Lambda_inv


def point_mobility(Lambda_inv, point):
    """Velocity jump of a body point per unit impulse through that point: ``G = B^T Lambda_inv B``.

    A pure impulse ``e`` (a force, no couple) through the world point ``p`` is the wrench
    ``B e = [e; p x e]`` with ``B = [1; [p]x]``, and the body point at ``p`` moves with
    ``dv_O + w x p = B^T dv``.  So ``dv_p = G e`` with the symmetric positive semi-definite

        G = B^T Lambda_inv B.

    ``G`` is the point's mobility; ``G^-1``, when it exists, is the effective mass that
    point presents to a blow.

    Parameters
    ----------
    Lambda_inv : array_like, shape (6, 6)
        Articulated mobility of the body (world frame, about the origin), for example
        ``articulated_mobility(model, q).Lambda_inv[i]``.
    point : array_like, shape (3,)
        World position of the body point.

    Returns
    -------
    ndarray, shape (3, 3)

    References
    ----------
    Alexiou (2023) eqs. 14 and 19 (``dv_N = -Lambda_N^-1 n J`` for a line ``n``); chapter
    *Articulated mobility and chain splitting*.

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain
    >>> rod = planar_chain(1, length=1.0, mass=3.0)              # I about the hinge = m L^2 / 3 = 1
    >>> G = point_mobility(articulated_mobility(rod, [0.0]).Lambda_inv[0], [1.0, 0, 0])
    >>> bool(np.allclose(G, np.diag([0.0, 1.0, 0.0])))           # the tip yields only sideways
    True
    """
    Lambda_inv = _check_mobility_matrix(Lambda_inv)
    p = as_finite(point, (3,), "point", batch=False)
    B = np.concatenate([eye(3, is_symbolic(p, Lambda_inv)), skew(p)])
    return B.T @ Lambda_inv @ B


class MobilityEllipse(NamedTuple):
    """Principal mobilities of a body point (see :func:`mobility_ellipse`).

    Attributes
    ----------
    G : ndarray, shape (k, k)
        Point mobility (``k = 2`` in the xy plane, 3 in space).
    radii : ndarray, shape (k,)
        Velocity jump per unit impulse along each principal direction, largest first.
    axes : ndarray, shape (k, k)
        Unit principal directions, one per column.
    """

    G: np.ndarray
    radii: np.ndarray
    axes: np.ndarray


def mobility_ellipse(Lambda_inv, point, planar=False):
    """The ellipse (ellipsoid) of velocity jumps of a body point under unit impulses.

    As the unit impulse ``e`` turns through every direction, the velocity jump ``G e`` of the
    point (:func:`point_mobility`) traces an ellipse with semi-axes ``radii`` along ``axes``:
    the eigen-decomposition of the symmetric ``G``.  A zero radius marks a direction in
    which the sub-chain cannot move the point at all (a singular configuration).

    Parameters
    ----------
    Lambda_inv : array_like, shape (6, 6)
        Articulated mobility of the body (numbers, not symbols).
    point : array_like, shape (3,)
        World position of the body point.
    planar : bool
        Keep the xy block of ``G`` (a chain moving in the xy plane).

    Returns
    -------
    MobilityEllipse

    Raises
    ------
    TypeError
        For symbolic input (use :func:`point_mobility` and sympy's eigenvalues).

    References
    ----------
    Alexiou (1999) "Future Work": visualisation of articulated quantities; chapter
    *Articulated mobility and chain splitting*.

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain
    >>> model = planar_chain(2)
    >>> L = articulated_mobility(model, [0.0, 0.0]).Lambda_inv[1]
    >>> ell = mobility_ellipse(L, [2.0, 0, 0], planar=True)  # the stretched chain's tip
    >>> bool(np.isclose(ell.radii[1], 0, atol=1e-12) and np.allclose(abs(ell.axes[:, 1]), [1, 0]))
    True
    """
    if is_symbolic(as_array(Lambda_inv, "Lambda_inv"), as_array(point, "point")):
        raise TypeError(
            "mobility_ellipse needs numbers; for symbols use point_mobility and sympy"
        )
    G = point_mobility(Lambda_inv, point)
    G = G[:2, :2] if planar else G
    radii, axes = np.linalg.eigh((G + G.T) / 2)
    return MobilityEllipse(G, np.clip(radii[::-1], 0.0, None), axes[:, ::-1])


class MobilitySpectrum(NamedTuple):
    """Singular values and ranks of every body's articulated mobility (see :func:`mobility_spectrum`).

    Attributes
    ----------
    singular_values : ndarray, shape (n, 6)
        Largest first, for each body.
    rank : ndarray of int, shape (n,)
        How many exceed ``rtol`` times the body's largest.
    """

    singular_values: np.ndarray
    rank: np.ndarray


def mobility_spectrum(model, q, rtol=1e-9):
    """Singular values and numerical rank of ``Lambda_inv_i`` for every body of a serial chain.

    ``Lambda_inv_i = J_i H_i^-1 J_i^T`` with ``H_i`` positive definite, so its rank is the
    number of independent joint twists between body ``i`` and the base: the joints' total
    number of freedoms, at most 6 (3 in a plane), and fewer at a singular configuration.
    The singular values depend on the point the mobilities are taken about (here the origin of body
    0's frame, :func:`dynlib.kernels.reference_point`) and on the units; the rank does not.

    Parameters
    ----------
    model : Model
        A serial chain.
    q : array_like, shape (nq,)
    rtol : float
        Relative threshold for the rank.

    Returns
    -------
    MobilitySpectrum

    References
    ----------
    Alexiou (2023) eq. 35 (``Lambda_1^-1`` of rank 1, ``Lambda_2^-1`` of rank 2); chapter
    *Articulated mobility and chain splitting*.

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain
    >>> spec = mobility_spectrum(planar_chain(4), [0.3, -0.2, 0.5, 0.1])
    >>> spec.rank.tolist()  # 1, 2, then the plane's 3
    [1, 2, 3, 3]
    """
    if not (isinstance(rtol, float) and 0 < rtol < 1):
        raise ValueError(f"rtol must be a float in (0, 1), got {rtol!r}")
    check_chain(model, "articulated mobility")
    zero = np.zeros(model.nv)
    state = check_state(model, q, qd=zero, tau=zero, batch=False)
    Lambda_inv = state_mobility(state)[0]  # about the reference point
    if Lambda_inv.dtype == object:
        raise TypeError(
            "mobility_spectrum needs numbers; "
            "for symbols use sympy's rank on articulated_mobility"
        )
    sigma = np.linalg.svd(Lambda_inv, compute_uv=False)
    rank = np.sum(sigma > rtol * sigma[:, :1], axis=1)
    return MobilitySpectrum(sigma, rank)
