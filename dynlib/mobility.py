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

from ._backend import as_array, as_vector, eye, is_symbolic, quoted, quoted_list, solve, solve_spd, zeros
from .articulated import _prepare, articulated_bodies, velocity_products
from .energy import gravity_acceleration
from .model import _check_model
from .spatial import skew

__all__ = [
    "Mobility",
    "articulated_mobility",
    "MobilityStep",
    "mobility_steps",
    "split_chain_dynamics",
    "point_mobility",
    "MobilityEllipse",
    "mobility_ellipse",
    "MobilitySpectrum",
    "mobility_spectrum",
]


class Mobility(NamedTuple):
    """Per-body results of :func:`articulated_mobility` (world frame).

    Attributes
    ----------
    Lambda_inv : ndarray, shape (n, 6, 6)
        Articulated mobility (constrained inverse spatial inertia) of each body's sub-chain.
    Psi : ndarray, shape (n, 6, 6)
        The inboard mobility seen through joint ``i``: ``P_i Lambda_inv_{i-1} P_i^T`` with
        ``P_i = 1 - s_i D_i^-1 s_i^T I_i`` (eq. 15 times ``P_i^T``; ``P_i Lambda_inv_{i-1}`` as printed
        with ``form="printed"``), see :func:`mobility_steps`.
    b : ndarray, shape (n, 6), or None
        Bias accelerations (``None`` when no velocities were given).
    """

    Lambda_inv: np.ndarray
    Psi: np.ndarray
    b: np.ndarray | None


def _require_chain(model, what):
    _check_model(model)
    if not model.is_chain():
        raise ValueError(
            f"{what} is defined for serial chains (parent[i] == i - 1); this model is a branched tree "
            f"with parents {model.parent}"
        )


def articulated_mobility(model, q, qd=None, tau=None, f_ext=None, form="symmetric"):
    """Articulated mobility ``Lambda_inv_i`` of every body of a serial chain, from the base out.

    For body ``i`` with rigid inertia ``I_i``, joint twists ``s_i``, ``D_i = s_i^T I_i s_i`` and
    ``P_i = 1 - s_i D_i^-1 s_i^T I_i``::

        Psi_i        = P_i Lambda_inv_{i-1} P_i^T                                  (eq. 15, times P_i^T)
        Lambda_inv_i = (1 + Psi_i I_i)^-1 (s_i D_i^-1 s_i^T + Psi_i)                  (eq. 16)

    starting from ``Lambda_inv_0 = 0`` (a fixed base), so that the first body gets
    ``s_1 D_1^-1 s_1^T`` (eqs. 17-18).  The factor ``P_i^T``, which note 000 does not print, changes
    nothing in exact arithmetic and keeps ``1 + Psi_i I_i`` well conditioned (see
    :func:`mobility_steps`).  With velocities the bias accelerations follow the same pattern::

        b_i = (1 + Psi_i I_i)^-1 (P_i (b_{i-1} + c_i - Lambda_inv_{i-1} I_i s_i D_i^-1 tau_i) + s_i D_i^-1 tau_i)
              - Lambda_inv_i p_i

    with ``b_0 = -[g; 0]`` (gravity as a base acceleration), ``c_i = v_i x s_i qd_i`` and
    ``p_i = v_i x* I_i v_i - f_ext_i``: the joint force ``tau_i`` drives body ``i`` and pushes the
    inboard chain back with its active part ``I_i s_i D_i^-1 tau_i``.  ``Lambda_inv_i`` equals
    ``J_i H^-1 J_i^T`` of the sub-chain ``1 .. i``.  Serial chains only (any joint kinds).

    ``Lambda_inv_i`` is singular whenever fewer than six independent joint twists lie between body
    ``i`` and the base (one hinge: rank 1), and loses rank at singular configurations (joints in
    line); that is its normal state, not an error: :func:`mobility_spectrum` gives the ranks and
    singular values.

    Parameters
    ----------
    model : Model
        A serial chain; every body must have mass along its joint (``D_i`` invertible).
    q : array_like, shape (nq,)
    qd : array_like, shape (nv,), optional
        Give it (and ``tau``) to get the bias accelerations ``b``.
    tau : array_like, shape (nv,), optional
        Joint forces (zero if omitted).
    f_ext : array_like, shape (n, 6), optional
    form : {"symmetric", "printed"}
        How eq. 16 is evaluated (:func:`mobility_steps`); ``"printed"`` is note 000's form, which
        :func:`split_chain_dynamics` uses.

    Returns
    -------
    Mobility

    Raises
    ------
    ValueError
        For a branched tree, or a body with no inertia along (part of) its joint's motion: ``D_i``
        has lost rank, and the sub-chain ending at that body would have unbounded mobility.

    References
    ----------
    Alexiou (2023) eqs. 15-18 (``Lambda_inv`` is printed ``Lambda`` in the worked example,
    eq. 35: see the errata page); Alexiou (1999) "Articulated Mobility Recursion",
    "Articulated Equations of Motion" (``a_i = b_i - Lambda_i^-1 f_{i+1}``).

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import planar_chain, body_jacobian, crba
    >>> model = planar_chain(3)
    >>> q = np.array([0.3, -0.5, 0.9])
    >>> L = articulated_mobility(model, q).Lambda_inv[2]
    >>> J = body_jacobian(model, q, 2)
    >>> bool(np.allclose(L, J @ np.linalg.solve(crba(model, q), J.T)))
    True
    """
    _require_chain(model, "articulated mobility")
    dynamic = qd is not None
    qd = np.zeros(model.nv) if qd is None else qd
    tau = np.zeros(model.nv) if tau is None else tau
    model, kin, I, f_ext, (qd, tau), symbolic = _prepare(model, q, f_ext, (qd, "qd"), (tau, "tau"))
    n = model.n_bodies
    Lambda_inv, Psi = zeros((n, 6, 6), symbolic), zeros((n, 6, 6), symbolic)
    b = zeros((n, 6), symbolic) if dynamic else None
    b_prev, Lambda_prev = -gravity_acceleration(model), zeros((6, 6), symbolic)
    c, p = velocity_products(model, kin, I, qd, f_ext) if dynamic else (None, None)
    for i, step in enumerate(mobility_steps(kin.s, I, symbolic, form)):
        Lambda_inv[i], Psi[i] = step.Lambda_inv, step.Psi
        if dynamic:
            drive = step.Dinv_sT.T @ tau[model.v_slices[i]]  # s D^-1 tau
            inboard = b_prev + c[i]
            if form == "symmetric":  # the inboard chain recoils from the joint force's active part I s D^-1 tau
                inboard = inboard - Lambda_prev @ (I[i] @ drive)
            b[i] = solve(step.M, step.reaction @ inboard + drive, "1 + Psi I") - Lambda_inv[i] @ p[i]
            b_prev = b[i]
        Lambda_prev = step.Lambda_inv
    return Mobility(Lambda_inv, Psi, b)


class MobilityStep(NamedTuple):
    """One body's step of the articulated-mobility recursion (see :func:`mobility_steps`).

    Attributes
    ----------
    Lambda_inv : ndarray, shape (6, 6)
        Eq. 16.
    Psi : ndarray, shape (6, 6)
        ``P Lambda_inv_{i-1} P^T`` (form ``"symmetric"``) or eq. 15's ``P Lambda_inv_{i-1}``
        (form ``"printed"``).
    M : ndarray, shape (6, 6)
        ``1 + Psi I``.
    reaction : ndarray, shape (6, 6)
        ``P = 1 - s D^-1 s^T I``: the part of a motion the joint cannot take.
    Dinv_sT : ndarray, shape (nv_i, 6)
        ``D^-1 s^T``.
    """

    Lambda_inv: np.ndarray
    Psi: np.ndarray
    M: np.ndarray
    reaction: np.ndarray
    Dinv_sT: np.ndarray


#: Eigenvalues of a joint inertia ``D`` at most this fraction of its largest count as lost rank.
RANK_RTOL = 1e-12

_UNBOUNDED = ("body {i} has no inertia along (part of) its joint's motion, so the sub-chain ending at it would yield "
              "to a push that way without resistance (unbounded mobility); the mobility recursion needs every body "
              "to have inertia along its own joint")


def _solve_joint_inertia(D, rhs, what, meaning, symbolic=False):
    """``D^-1 rhs`` for a joint inertia ``D = s^T I s``, or a ValueError saying which motion has no inertia.

    ``D`` has lost rank when an eigenvalue is at most ``RANK_RTOL`` times the largest, or not
    positive; the message then gives the rank found and expected, the eigenvalues and
    ``meaning`` (what that says about the chain).  ``what`` names the joint or body.
    """
    if not symbolic and np.all(np.isfinite(D)):
        eig = np.linalg.eigvalsh((D + D.T) / 2)
        largest = eig[-1] if eig.size else 1.0
        rank = int(np.sum(eig > RANK_RTOL * largest)) if largest > 0 else 0
        if rank < len(eig):
            floor = RANK_RTOL * largest if largest > 0 else 0.0
            relative = f", smallest/largest {quoted(eig[0] / largest, RANK_RTOL)}" if largest > 0 else ""
            raise ValueError(f"D = s^T I s of {what} has rank {rank}, expected {len(eig)} "
                             f"(eigenvalues {quoted_list(eig, floor, 3)}{relative}): {meaning}")
    return solve_spd(D, rhs, f"D = s^T I s of {what}")


def mobility_steps(s, inertias, symbolic=False, form="symmetric"):
    """Run eqs. 15-16 along a chain, yielding each body's :class:`MobilityStep`.

    Eq. 16, ``Lambda_inv_i = (1 + Psi_i I_i)^-1 (s_i D_i^-1 s_i^T + Psi_i)``, in one of two forms
    that are equal in exact arithmetic:

    ``"symmetric"`` (default)
        ``Psi_i = P_i Lambda_inv_{i-1} P_i^T`` with ``P_i = 1 - s_i D_i^-1 s_i^T I_i``.  The
        impulse joint ``i`` passes inwards is a pure reaction (``s_i^T l_i = 0``, so
        ``l_i = P_i^T l_i``), hence the extra ``P_i^T`` changes nothing; but it makes ``Psi_i``
        symmetric, so that ``1 + Psi_i I_i`` is similar, through ``I_i^1/2``, to one plus a
        symmetric positive semi-definite matrix: its condition number stays below
        ``cond(I_i) (1 + |I_i^1/2 Psi_i I_i^1/2|)``.
    ``"printed"``
        ``Psi_i = P_i Lambda_inv_{i-1}`` as note 000 prints eq. 15.  ``P_i`` acts on the left only,
        so ``Psi_i`` keeps how the parent yields along the directions joint ``i`` takes by itself;
        that part cancels from ``Lambda_inv_i`` but makes ``1 + Psi_i I_i`` far from normal (cond
        1e10 for a translational joint after a free one), and ``Lambda_inv`` loses as many digits.
        :func:`split_chain_dynamics` uses this form by default (its docstring says why).

    Parameters
    ----------
    s : sequence of ndarray, shape (6, nv_i)
        World-frame joint twists from the base out.
    inertias : sequence of ndarray, shape (6, 6)
        The inertia each body presents (its own, or an articulated inertia standing in for
        bodies beyond it).
    symbolic : bool
    form : {"symmetric", "printed"}

    Returns
    -------
    iterator of MobilityStep

    Raises
    ------
    ValueError
        For an unknown ``form``, or a body with no inertia along (part of) its joint's motion.

    References
    ----------
    Alexiou (2023) eqs. 15-18.
    """
    if form not in ("symmetric", "printed"):
        raise ValueError(f"form must be 'symmetric' or 'printed', got {form!r}")
    one = eye(6, symbolic)
    Lambda_prev = zeros((6, 6), symbolic)
    for i, (s_i, I_i) in enumerate(zip(s, inertias)):
        Dinv_sT = _solve_joint_inertia(s_i.T @ I_i @ s_i, s_i.T, f"body {i}", _UNBOUNDED.format(i=i), symbolic)
        sDs = s_i @ Dinv_sT  # s D^-1 s^T
        reaction = one - sDs @ I_i  # P
        Psi = reaction @ Lambda_prev  # eq. 15
        if form == "symmetric":
            Psi = Psi @ reaction.T  # only reactions reach the parent
        M = one + Psi @ I_i
        Lambda_prev = solve(M, sDs + Psi, "1 + Psi I")
        yield MobilityStep(Lambda_prev, Psi, M, reaction, Dinv_sT)


def split_chain_dynamics(model, q, qd, tau, split, f_ext=None, form="printed"):
    """Forward dynamics of a serial chain solved by splitting it in two.

    The inboard bodies ``0 .. split-1`` are described by their articulated mobility
    (``a_k = b_k - Lambda_inv_k f``), the outboard bodies ``split .. n-1`` by their
    articulated inertia (``f = Ia a_k + pa``, the force through the joint at the split).
    The two meet at body ``k = split - 1``::

        (1 + Lambda_inv_k Ia) a_k = b_k - Lambda_inv_k pa

    Then the outboard accelerations follow the articulated-body algorithm's last pass,
    and the inboard ones come back down the chain::

        f_j = I_j a_j + p_j + f_{j+1},   a_{j-1} = b_{j-1} - Lambda_inv_{j-1} f_j,
        qdd_j = D_j^-1 (tau_j - s_j^T (p_j + f_{j+1}) - s_j^T I_j (a_{j-1} + c_j))

    ``split = 0`` is the articulated-body algorithm; ``split = n`` uses mobility alone.

    Accuracy: ``a_{j-1} = b_{j-1} - Lambda_inv_{j-1} f_j`` subtracts the deceleration caused by the
    outboard load from the acceleration the free sub-chain would have under the joint forces; on a
    long chain both are up to 1e8 times larger than their difference, so their rounding errors
    must cancel too.  They largely do in the printed form of eq. 16 (the default here), whose
    ``b`` and ``Lambda_inv`` come from the same ``1 + Psi I``; the symmetric form computes each of
    them more accurately but needs the joint force's recoil on the inboard chain as a separate
    term, and gives 10 to 100 times larger errors on chains of hundreds of links.  Either way a
    long mobility half costs digits that the articulated-body algorithm keeps.

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
        The evaluation of eq. 16 for the inboard half (:func:`mobility_steps`).

    Returns
    -------
    ndarray, shape (nv,)

    References
    ----------
    Alexiou (1999) "Chain Splitting": articulated inertia and articulated mobility
    combined for a direct solution.
    """
    _require_chain(model, "chain splitting")
    n = model.n_bodies
    if not isinstance(split, (int, np.integer)) or not 0 <= split <= n:
        raise ValueError(f"split must be an int in [0, {n}], got {split!r}")
    model, kin, I, f_ext, (qd, tau), symbolic = _prepare(model, q, f_ext, (qd, "qd"), (tau, "tau"))
    a_base = -gravity_acceleration(model)
    c, p = velocity_products(model, kin, I, qd, f_ext)
    a = zeros((n, 6), symbolic)
    qdd = zeros(model.nv, symbolic)
    f_split = zeros(6, symbolic)  # force through the joint at the split (none if split == n)
    if split > 0:
        inboard = model.first_bodies(split)
        nq, nv = inboard.nq, inboard.nv
        mob = articulated_mobility(inboard, np.asarray(q)[:nq], qd[:nv], tau[:nv], f_ext[:split], form)
    if split < n:
        art = articulated_bodies(model, q, qd, tau, f_ext)
        o = split
        what = f"D = s^T IA s of joint {o}"
        Dinv_Ut = solve_spd(art.D[o], art.U[o].T, what) if kin.s[o].shape[1] else art.U[o].T
        Ia = art.IA[o] - art.U[o] @ Dinv_Ut
        pa = art.pA[o] + Ia @ c[o] + Dinv_Ut.T @ art.u[o]
        if split > 0:
            k = split - 1
            L = mob.Lambda_inv[k]
            a[k] = solve(eye(6, symbolic) + L @ Ia, mob.b[k] - L @ pa, "1 + Lambda_inv Ia")
            f_split = Ia @ a[k] + pa
        for i in range(o, n):  # outboard: the last pass of the articulated-body algorithm
            a_in = (a_base if i == 0 else a[i - 1]) + c[i]
            vs = model.v_slices[i]
            if kin.s[i].shape[1]:
                qdd[vs] = solve_spd(art.D[i], art.u[i] - art.U[i].T @ a_in, f"D = s^T IA s of joint {i}")
            a[i] = a_in + kin.s[i] @ qdd[vs]
    elif split > 0:
        a[split - 1] = mob.b[split - 1]
    f_next = f_split
    for j in reversed(range(split)):  # inboard: back down the chain through the mobilities
        s, vs = kin.s[j], model.v_slices[j]
        f_j = I[j] @ a[j] + p[j] + f_next
        a_prev = a_base if j == 0 else mob.b[j - 1] - mob.Lambda_inv[j - 1] @ f_j
        D = s.T @ I[j] @ s
        qdd[vs] = solve_spd(D, tau[vs] - s.T @ (p[j] + f_next) - s.T @ I[j] @ (a_prev + c[j]),
                            f"D = s^T I s of body {j}")
        if j > 0:
            a[j - 1] = a_prev
        f_next = f_j
    return qdd


def _check_mobility_matrix(Lambda_inv):
    Lambda_inv = as_array(Lambda_inv, "Lambda_inv")
    if Lambda_inv.shape != (6, 6):
        raise ValueError(f"Lambda_inv must be a 6x6 articulated mobility, got shape {Lambda_inv.shape}")
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
    p = as_vector(point, 3, "point")
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
    >>> ell = mobility_ellipse(L, [2.0, 0, 0], planar=True)      # the stretched chain's tip
    >>> bool(np.isclose(ell.radii[1], 0, atol=1e-12) and np.allclose(abs(ell.axes[:, 1]), [1, 0]))
    True
    """
    if is_symbolic(as_array(Lambda_inv, "Lambda_inv"), as_array(point, "point")):
        raise TypeError("mobility_ellipse needs numbers; for symbols use point_mobility and sympy")
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
    The singular values depend on the frame and the units; the rank does not.

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
    >>> spec.rank.tolist()                                         # 1, 2, then the plane's 3
    [1, 2, 3, 3]
    """
    if not (isinstance(rtol, float) and 0 < rtol < 1):
        raise ValueError(f"rtol must be a float in (0, 1), got {rtol!r}")
    Lambda_inv = articulated_mobility(model, q).Lambda_inv
    if Lambda_inv.dtype == object:
        raise TypeError("mobility_spectrum needs numbers; for symbols use sympy's rank on articulated_mobility")
    sigma = np.linalg.svd(Lambda_inv, compute_uv=False)
    rank = np.sum(sigma > rtol * sigma[:, :1], axis=1)
    return MobilitySpectrum(sigma, rank)
