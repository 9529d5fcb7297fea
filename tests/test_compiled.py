"""One source, two executions: the kernels' Python text on floats agrees with their compiled form.

``DYNLIB_COMPILE=0`` makes dynlib run exactly as it does without numba, so a child process with it
set computes the algorithms from the plain Python text of the kernels; this process computes them
compiled (``dl.compile_kernels()``: compiled from their first call, not after being used often).
Both see the same models and states (seeded), and the results must agree to what the conditioning of
each problem allows.
"""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import dynlib as dl
from dynlib.core import compile as compile_

EPS = np.finfo(float).eps
HERE = os.path.dirname(os.path.abspath(__file__))


def _states(model, rng, batch=()):
    q = np.array([dl.random_configuration(model, rng) for _ in range(int(np.prod(batch)) or 1)])
    qd = rng.normal(size=(len(q), model.nv))
    tau = rng.normal(size=(len(q), model.nv))
    return (q.reshape(batch + (model.nq,)), qd.reshape(batch + (model.nv,)), tau.reshape(batch + (model.nv,)))


def results():
    """Every compiled algorithm on seeded trees of every joint kind, single states and a batch."""
    out = {}
    for seed, (n, branching) in enumerate([(1, 0.0), (5, 0.0), (9, 0.6), (14, 0.3)]):
        rng = np.random.default_rng(100 + seed)
        tree = dl.random_tree(n, seed, branching=branching, kinds=list(dl.JOINT_KINDS))
        q, qd, tau = _states(tree, rng)
        f_ext = rng.normal(size=(tree.n_bodies, 6))
        given = rng.uniform(size=tree.n_bodies) < 0.5
        key = f"tree{seed}"
        out[f"{key}/rnea"] = dl.rnea(tree, q, qd, tau, f_ext)
        out[f"{key}/crba"] = dl.crba(tree, q)
        out[f"{key}/aba"] = dl.aba(tree, q, qd, tau, f_ext)
        out[f"{key}/hybrid"] = np.concatenate(dl.hybrid_dynamics(tree, q, qd, tau, tau, given, f_ext))
        out[f"{key}/rnea derivatives"] = np.stack(dl.rnea_derivatives(tree, q, qd, tau, f_ext))
        out[f"{key}/regressor"] = dl.joint_torque_regressor(tree, q, qd, tau)
        out[f"{key}/regressor energy"] = np.stack(dl.energy_regressor(tree, q, qd))
        Q, QD, TAU = _states(tree, rng, batch=(3, 50))  # large enough to be split over the cores
        out[f"{key}/rnea batch"] = dl.rnea(tree, Q, QD, TAU)
        out[f"{key}/aba batch"] = dl.aba(tree, Q, QD, TAU)
        out[f"{key}/crba batch"] = dl.crba(tree, Q)
        out[f"{key}/regressor batch"] = dl.joint_torque_regressor(tree, Q, QD, TAU)
    for seed, n in enumerate([2, 6]):
        rng = np.random.default_rng(200 + seed)
        chain = dl.random_tree(n, 50 + seed, branching=0.0, kinds=["revolute", "prismatic", "spherical"])
        q, qd, tau = _states(chain, rng)
        key = f"chain{seed}"
        out[f"{key}/crba"] = dl.crba(chain, q)
        mobility = dl.articulated_mobility(chain, q, qd, tau)
        out[f"{key}/mobility Lambda_inv"] = mobility.Lambda_inv
        out[f"{key}/mobility b"] = mobility.b
        out[f"{key}/split"] = dl.split_chain_dynamics(chain, q, qd, tau, n // 2)
        kin = dl.forward_kinematics(chain, q, qd)
        contact = dl.line_coordinates(kin.p[-1] + rng.normal(scale=0.3, size=3), rng.normal(size=3))
        contact = contact if contact @ kin.v[-1] > 0 else -contact
        impulse = dl.impulse_propagation(chain, q, qd, contact, 0.4)
        out[f"{key}/impulse dqd"] = impulse.dqd
        out[f"{key}/impulse Lambda_inv"] = impulse.Lambda_bar_inv
        out[f"{key}/impulse J"] = np.array([impulse.J])
    return out


def _tolerance(name, cond):
    """Forward computations (rnea, crba) lose nothing to conditioning; solves lose up to cond(H) eps."""
    if name.split("/")[1].startswith(("rnea", "crba", "regressor")):
        return 1e-12 if "derivatives" not in name else 1e-10  # sums of many products of subtree terms
    return max(1e-12, 1e3 * EPS * cond[name.split("/")[0]])


@pytest.fixture(scope="module")
def uncompiled(tmp_path_factory):
    path = tmp_path_factory.mktemp("uncompiled") / "results.npz"
    script = (
        "import sys, warnings; sys.path.insert(0, sys.argv[1]); warnings.simplefilter('always')\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    import numpy as np, test_compiled\n"
        "    np.savez(sys.argv[2], **test_compiled.results())\n"
        "import dynlib.core.compile as c\n"
        "said = [str(w.message) for w in caught if 'plain Python' in str(w.message)]\n"
        "print(c.COMPILED, len(said)); print(said[0] if said else '')\n"
    )
    env = dict(os.environ, DYNLIB_COMPILE="0")
    done = subprocess.run([sys.executable, "-c", script, HERE, str(path)], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    compiled_flag, warnings_count = done.stdout.split("\n")[0].split()
    with np.load(path) as data:
        return dict(data), compiled_flag, int(warnings_count), done.stdout.split("\n")[1]


@pytest.mark.skipif(not compile_.COMPILED, reason="numba is not installed here")
def test_the_python_text_on_floats_agrees_with_the_compiled_kernels(uncompiled):
    plain, _, _, _ = uncompiled
    dl.compile_kernels()  # from here on every kernel runs compiled from its first call
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the compiled path says nothing
        fast = results()
    assert plain.keys() == fast.keys()

    cond = {}  # the worst cond(H) of the states behind each model's results
    for name in fast:
        if name.split("/")[1].startswith("crba"):
            H = fast[name].reshape((-1,) + fast[name].shape[-2:])
            key = name.split("/")[0]
            cond[key] = max(cond.get(key, 1.0), float(np.linalg.cond(H).max()))
    for name in fast:
        rtol = _tolerance(name, cond)
        assert dl.relative_close(plain[name], fast[name], rtol=rtol), (
            f"{name}: the Python text and the compiled kernel differ by more than {rtol:.1e} "
            f"(largest difference {np.abs(plain[name] - fast[name]).max():.1e})")


def test_without_the_compiler_dynlib_works_and_says_so_once(uncompiled):
    _, compiled_flag, warnings_count, message = uncompiled
    assert compiled_flag == "False"
    assert warnings_count == 1, f"the uncompiled run warned {warnings_count} times, expected once"
    assert "pip install numba" in message and "DYNLIB_COMPILE" in message
