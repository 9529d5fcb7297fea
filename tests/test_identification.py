"""Identification: the pseudo-inertia and physical consistency, Fourier excitation, least squares recovering the
base parameters exactly from noise-free torques and within their standard errors from noisy ones, friction, and
the physically consistent estimate."""

import numpy as np
import pytest

import dynlib as dl

from conftest import assert_close

FREQUENCY = 0.2        # Hz: one period of every excitation lasts 5 s


def excitation(model, rng, samples=400, harmonics=4, amplitude=1.0):
    """A random Fourier trajectory of a model with one coordinate per joint, sampled over one period."""
    t = np.linspace(0.0, 1 / FREQUENCY, samples, endpoint=False)
    a, b = amplitude * rng.normal(size=(2, model.nv, harmonics)) / np.arange(1, harmonics + 1)
    return dl.fourier_trajectory(t, rng.uniform(-1.0, 1.0, model.nv), a, b, FREQUENCY)


def three_link_arm():
    """A spatial three-joint arm (revolute z, revolute y, prismatic x) with unequal links."""
    joints = (dl.revolute([0, 0, 1]), dl.revolute([0, 1, 0]), dl.prismatic([1, 0, 0]))
    placements = np.array([np.eye(4), dl.homogeneous(np.eye(3), [0, 0, 0.4]), dl.homogeneous(np.eye(3), [0.3, 0, 0])])
    inertias = np.array([dl.spatial_inertia(m, c, np.diag(d)) for m, c, d in [
        (3.0, [0.02, 0.01, 0.2], [0.05, 0.04, 0.02]), (2.0, [0.15, 0.0, 0.01], [0.01, 0.03, 0.03]),
        (1.0, [0.1, 0.02, 0.0], [0.004, 0.006, 0.006])]])
    return dl.Model((-1, 0, 1), joints, placements, inertias, gravity=(0.0, 0.0, -9.81))


# ------------------------------------------------------------------------------- pseudo-inertia


def test_pseudo_inertia_is_the_second_moment_of_a_cloud_of_point_masses(rng):
    """J = sum m [r; 1][r; 1]^T for point masses, and it round-trips to the ten parameters."""
    points, masses = rng.normal(size=(7, 3)), rng.uniform(0.1, 1.0, 7)
    J = sum(m * np.outer(np.r_[r, 1.0], np.r_[r, 1.0]) for m, r in zip(masses, points))
    I_O = sum(m * (r @ r * np.eye(3) - np.outer(r, r)) for m, r in zip(masses, points))
    pi = np.r_[masses.sum(), masses @ points, I_O[0, 0], I_O[0, 1], I_O[0, 2], I_O[1, 1], I_O[1, 2], I_O[2, 2]]
    assert_close(dl.pseudo_inertia(pi), J, rtol=1e-13)
    assert_close(dl.parameters_from_pseudo_inertia(J), pi, rtol=1e-13)
    assert np.linalg.eigvalsh(J).min() > 0


def test_pseudo_inertia_positive_exactly_when_the_triangle_inequalities_hold(rng):
    """On random bodies with moments around the triangle's edge: J >= 0 iff I1 + I2 >= I3 (and m > 0)."""
    agree = 0
    for _ in range(200):
        moments = rng.uniform(0.1, 1.0, 3)
        moments[2] = moments[0] + moments[1] + rng.uniform(-0.2, 0.2)
        R = dl.random_rotation(rng)
        m, c = rng.uniform(0.5, 2.0), rng.normal(size=3)
        I_c = R @ np.diag(moments) @ R.T
        C = dl.skew(c)
        I_O = I_c - m * C @ C
        pi = np.r_[m, m * c, I_O[0, 0], I_O[0, 1], I_O[0, 2], I_O[1, 1], I_O[1, 2], I_O[2, 2]]
        holds = np.sort(moments)[0] + np.sort(moments)[1] >= np.sort(moments)[2]
        consistent = np.linalg.eigvalsh(dl.pseudo_inertia(pi)).min() >= -1e-12
        agree += holds == consistent
    assert agree == 200


def test_consistency_violations_name_the_body_and_the_condition():
    arm = dl.planar_chain(3)
    assert dl.consistency_violations(arm) == []
    pi = dl.inertial_parameters(arm)
    wrong = pi.copy()
    wrong[10] = -0.5                                   # body 1: negative mass
    wrong[29] = 0.0                                    # body 2: no rotational inertia about z
    messages = dl.consistency_violations(arm, wrong)
    assert len(messages) == 2
    assert messages[0].startswith("body 1 (body1): mass -0.5 kg is negative")
    assert messages[1].startswith("body 2 (body2): principal moments") and "triangle inequality" in messages[1]
    ghost = pi.copy()
    ghost[0] = 0.0                                     # body 0: a first moment without a mass
    assert dl.consistency_violations(arm, ghost)[0].startswith("body 0 (body0): no mass")
    assert dl.consistency_violations(arm, np.zeros(30)) == []   # massless bodies are possible


def test_urdf_robots_and_random_bodies_are_consistent():
    for model in (dl.kuka_iiwa14(), dl.random_tree(9, 5, kinds=list(dl.JOINT_KINDS), branching=0.5)):
        assert dl.consistency_violations(model) == []


def test_bad_inputs_of_the_consistency_functions():
    arm = dl.planar_chain(2)
    with pytest.raises(ValueError, match=r"shape \(20,\) or \(2, 10\)"):
        dl.consistency_violations(arm, np.zeros(21))
    with pytest.raises(ValueError, match="finite"):
        dl.consistency_violations(arm, np.full(20, np.nan))
    with pytest.raises(ValueError, match=r"\(\.\.\., 10\)"):
        dl.pseudo_inertia(np.zeros(9))
    with pytest.raises(ValueError, match="symmetric"):
        dl.parameters_from_pseudo_inertia(np.triu(np.ones((4, 4))))


# ------------------------------------------------------------------------------------ excitation


def test_fourier_trajectory_is_periodic_and_its_derivatives_are_consistent(rng):
    t = np.linspace(0.0, 1 / FREQUENCY, 2001)
    a, b = rng.normal(size=(2, 3, 4))
    q, qd, qdd = dl.fourier_trajectory(t, [0.1, -0.2, 0.3], a, b, FREQUENCY)
    assert_close(q[0], q[-1], rtol=1e-12)
    assert_close(qd[0], qd[-1], rtol=1e-12)
    h = t[1] - t[0]
    assert_close((q[2:] - q[:-2]) / (2 * h), qd[1:-1], rtol=1e-4)
    assert_close((qd[2:] - qd[:-2]) / (2 * h), qdd[1:-1], rtol=1e-4)
    assert_close(np.mean(q[:-1], axis=0), [0.1, -0.2, 0.3], rtol=1e-12)     # the harmonics average to zero


def test_fourier_trajectory_refuses_bad_input():
    t = np.linspace(0, 1, 5)
    with pytest.raises(ValueError, match=r"a and b must both have shape \(2, L\)"):
        dl.fourier_trajectory(t, [0.0, 0.0], np.zeros((3, 2)), np.zeros((3, 2)), 1.0)
    with pytest.raises(ValueError, match="frequency must be positive"):
        dl.fourier_trajectory(t, [0.0], [[1.0]], [[0.0]], 0.0)
    with pytest.raises(ValueError, match="1-D"):
        dl.fourier_trajectory(np.zeros((2, 2)), [0.0], [[1.0]], [[0.0]], 1.0)


def test_a_still_arm_excites_nothing_and_more_harmonics_excite_better(rng):
    arm = three_link_arm()
    still = np.zeros((50, 3))
    assert dl.excitation_condition(arm, still, still, still) == np.inf
    one = dl.excitation_condition(arm, *excitation(arm, np.random.default_rng(3), harmonics=1))
    four = dl.excitation_condition(arm, *excitation(arm, np.random.default_rng(3), harmonics=4))
    assert four < one


# ------------------------------------------------------------------------------------ least squares


@pytest.mark.parametrize("model", [dl.planar_chain(3), three_link_arm()], ids=["planar 3R", "spatial RRP"])
def test_noise_free_torques_give_the_base_parameters_exactly(model, rng):
    q, qd, qdd = excitation(model, rng)
    found = dl.identify_base_parameters(model, q, qd, qdd, dl.rnea(model, q, qd, qdd))
    truth = found.base.of(dl.inertial_parameters(model))
    cond = dl.excitation_condition(model, q, qd, qdd, found.base)
    assert np.abs(found.parameters - truth).max() <= 100 * cond * np.finfo(float).eps * np.abs(truth).max()
    assert found.friction is None and found.noise.max() < 1e-10


def test_noisy_torques_give_estimates_within_their_standard_errors_and_weighting_helps():
    """Over repeated experiments the errors are of the size of the reported standard errors and unbiased; when
    one joint's sensor is much better than the others', weighted least squares is more accurate than ordinary."""
    model = three_link_arm()
    rng = np.random.default_rng(11)
    q, qd, qdd = excitation(model, rng, samples=500)
    tau = dl.rnea(model, q, qd, qdd)
    sigma = np.array([0.5, 0.5, 0.005])                   # the slider's force sensor is a hundred times better
    base = dl.base_parameters(model)
    truth = base.of(dl.inertial_parameters(model))
    scaled, errors = {False: [], True: []}, {False: [], True: []}
    experiments = 40
    for _ in range(experiments):
        noisy = tau + sigma * rng.normal(size=tau.shape)
        for weighted in (False, True):
            found = dl.identify_base_parameters(model, q, qd, qdd, noisy, base, weighted=weighted)
            scaled[weighted].append((found.parameters - truth) / found.standard_errors)
            errors[weighted].append(found.parameters - truth)
            if weighted:
                assert_close(found.noise, sigma, rtol=0.15)
    for weighted in (False, True):
        z = np.array(scaled[weighted])
        assert 0.7 < np.sqrt(np.mean(z**2)) < 1.3          # errors of the size the standard errors say
        assert np.abs(np.mean(z, axis=0)).max() < 4 / np.sqrt(experiments)   # and no bias
    spread = {w: np.sqrt(np.mean(np.array(errors[w]) ** 2, axis=0)) for w in errors}
    assert (spread[True] < 1.1 * spread[False]).all()           # never worse
    assert (spread[True] < 0.1 * spread[False]).sum() >= 3      # ten times better where the slider sees them


def test_friction_is_identified_beside_the_parameters_and_biases_them_when_left_out(rng):
    model = three_link_arm()
    q, qd, qdd = excitation(model, rng)
    friction = np.array([[0.3, 0.4], [0.2, 0.5], [1.0, 0.8]])       # viscous, Coulomb
    tau = dl.rnea(model, q, qd, qdd) + friction[:, 0] * qd + friction[:, 1] * np.sign(qd)
    base = dl.base_parameters(model)
    truth = base.of(dl.inertial_parameters(model))
    found = dl.identify_base_parameters(model, q, qd, qdd, tau, base, friction=True)
    assert_close(found.parameters, truth, rtol=1e-8)
    assert_close(found.friction, friction, rtol=1e-8)
    blind = dl.identify_base_parameters(model, q, qd, qdd, tau, base)
    assert np.abs(blind.parameters - truth).max() > 1e-2 * np.abs(truth).max()
    assert blind.noise.min() > 0.05


def test_identification_refuses_bad_input(rng):
    arm = dl.planar_chain(2)
    q, qd, qdd = excitation(arm, rng, samples=60)
    tau = dl.rnea(arm, q, qd, qdd)
    with pytest.raises(ValueError, match="tau"):
        dl.identify_base_parameters(arm, q, qd, qdd, tau[:, :1])
    with pytest.raises(ValueError, match="more samples"):
        dl.identify_base_parameters(arm, q[:2], qd[:2], qdd[:2], tau[:2])
    with pytest.raises(ValueError, match="does not determine every base parameter"):
        still = np.zeros_like(q)
        dl.identify_base_parameters(arm, still, still, still, tau)
    with pytest.raises(ValueError, match="base parameters of this model"):
        dl.identify_base_parameters(arm, q, qd, qdd, tau, base=dl.base_parameters(dl.planar_chain(3)))
    with pytest.raises(TypeError, match="BaseParameters"):
        dl.identify_base_parameters(arm, q, qd, qdd, tau, base=[1, 2])
    with pytest.raises(ValueError, match="finite"):
        dl.identify_base_parameters(arm, q, qd, qdd, np.where(tau > 0, np.nan, tau))
    with pytest.raises(ValueError, match=r"prior must have shape \(20,\)"):
        dl.identify_consistent_parameters(arm, q, qd, qdd, tau, prior=np.zeros(10))
    with pytest.raises(ValueError, match="regularization"):
        dl.identify_consistent_parameters(arm, q, qd, qdd, tau, regularization=-1.0)


# --------------------------------------------------------------------------------- consistent estimate


def test_consistent_estimate_recovers_noise_free_parameters_and_stays_consistent(rng):
    model = three_link_arm()
    q, qd, qdd = excitation(model, rng)
    tau = dl.rnea(model, q, qd, qdd)
    prior = dl.inertial_parameters(model) * rng.uniform(0.7, 1.3, 30)       # a rough prior, not the truth
    found = dl.identify_consistent_parameters(model, q, qd, qdd, tau, prior=prior)
    assert dl.consistency_violations(model, found.parameters) == []
    base = dl.base_parameters(model)
    truth = base.of(dl.inertial_parameters(model))
    assert np.abs(base.of(found.parameters) - truth).max() < 1e-4 * np.abs(truth).max()
    assert found.noise.max() < 1e-4 * np.abs(tau).max()


def test_consistent_estimate_corrects_an_impossible_least_squares_estimate():
    """Few noisy samples of a light last link: raw least squares puts the full estimate nearest the prior outside
    the consistent set; the consistent estimate fits the torques almost as well and is a rigid body."""
    model = three_link_arm()
    rng = np.random.default_rng(5)
    q, qd, qdd = excitation(model, rng, samples=40, harmonics=2, amplitude=0.5)
    tau = dl.rnea(model, q, qd, qdd) + 0.3 * rng.normal(size=q.shape)
    base = dl.base_parameters(model)
    raw = dl.identify_base_parameters(model, q, qd, qdd, tau, base)
    found = dl.identify_consistent_parameters(model, q, qd, qdd, tau)
    assert dl.consistency_violations(model, found.parameters) == []
    assert np.sqrt(np.mean(found.noise**2)) < 1.5 * np.sqrt(np.mean(raw.noise**2))
