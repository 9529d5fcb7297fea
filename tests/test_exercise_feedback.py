"""dynlib.course.exercises: the messages a student sees, for each way an answer can be wrong."""

import numpy as np
import pytest
import sympy as sp

from dynlib.course.exercises import ExerciseFeedback, answered, check_answer, check_function, check_property


def reference(x):
    return np.array([x, 2 * x, np.inf])


def test_a_right_function_prints_one_line_and_returns_nothing(capsys):
    assert check_function(reference, reference, [("one", (1.0,)), ("two", (2.0,))]) is None
    assert capsys.readouterr().out == "reference: all 2 cases agree with dynlib.\n"


@pytest.mark.parametrize(
    "candidate, message",
    [
        (lambda x: np.array([x, 2 * x]), r"expected shape \(3,\), got shape \(2,\)"),
        (lambda x: np.array([x, 2.1 * x, np.inf]), "differs by 0.05 relative to its size"),
        (lambda x: -reference(x), "has infinities where none are expected, or misses one"),
        (lambda x: np.array([-x, -2 * x, np.inf]), "has the wrong sign"),
        (lambda x: np.array([np.nan, x, np.inf]), "contains NaN"),
        (lambda x: 1 / 0, "raised ZeroDivisionError on case 1 of 1 \\(x = 1\\)"),
    ],
)
def test_each_kind_of_wrong_function_gets_its_own_message(candidate, message):
    with pytest.raises(ExerciseFeedback, match=message) as caught:
        check_function(candidate, reference, [("x = 1", (1.0,))], name="f", hint="look at eq. (2.3)")
    assert "Hint: look at eq. (2.3)" in str(caught.value)


def test_a_function_not_written_yet_is_told_so():
    def mine(x):
        raise NotImplementedError("write this function")

    with pytest.raises(ExerciseFeedback, match="mine is not written yet"):
        check_function(mine, reference, [("x = 1", (1.0,))])


def test_tuples_are_compared_item_by_item_counting_from_one():
    with pytest.raises(ExerciseFeedback, match="result 2 of 2"):
        check_function(lambda x: (x, x), lambda x: (x, 2 * x), [("x = 1", (1.0,))])


def test_a_wrong_value_is_refused_without_showing_the_right_one():
    m = sp.Symbol("m", positive=True)
    with pytest.raises(ExerciseFeedback) as caught:
        check_answer(m / 2, m / 3, "the inertia")
    assert "m/3" not in str(caught.value) and "not right yet" in str(caught.value)
    with pytest.raises(ExerciseFeedback, match="no answer yet"):
        check_answer(..., m / 3, "the inertia")
    with pytest.raises(ExerciseFeedback, match="no answer yet for `axis`"):
        answered(pitch=0.5, axis=...)
    with pytest.raises(ExerciseFeedback, match="does not hold: the power is zero"):
        check_property(False, "the power is zero", detail="power = 0.3 W")


def test_every_failing_case_is_reported_not_only_the_first():
    cases = [("x = 1", (1.0,)), ("x = 2", (2.0,)), ("x = 3", (3.0,))]
    with pytest.raises(ExerciseFeedback) as caught:
        check_function(lambda x: reference(x) * (1 if x == 2.0 else 3), reference, cases, name="f")
    message = str(caught.value)
    assert message.startswith("2 of 3 cases fail")
    assert "case 1 of 3 (x = 1)" in message and "case 3 of 3 (x = 3)" in message and "case 2 of 3" not in message


def test_a_wrong_scalar_is_told_wrong_not_how_far():
    with pytest.raises(ExerciseFeedback) as caught:
        check_answer(0.3001, 0.3, "the ratio", hint="think of the lever arm")
    message = str(caught.value)
    assert "not right yet" in message and "Hint: think of the lever arm" in message
    assert not any(word in message for word in ("differs by", "relative", "0.3", "0.0001"))


def test_symbolic_feedback_names_entries_and_symbols_but_never_the_expected_expression():
    m, L, g = sp.symbols("m L g", positive=True)
    expected = sp.Matrix([[m * L**2 / 3, 0], [0, m * g * L / 2]])
    with pytest.raises(ExerciseFeedback) as caught:
        check_answer(sp.Matrix([[m * L**2 / 3, 0], [0, m * L / 2]]), expected, "the matrix")
    message = str(caught.value)
    assert "(1, 1)" in message and "g" in message and "(0, 0)" not in message
    assert "L**2" not in message and "g*L" not in message and "L*g" not in message


def test_a_fingerprint_accepts_the_answer_rounded_and_refuses_others_without_holding_it():
    from dynlib.course.exercises import Fingerprint

    m, L = sp.symbols("m L", positive=True)
    for value, right, wrong in [
        (0.123456789, 0.1234568, 0.1240),
        (np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 2.0], [3.0, 4.0 + 1e-12]]),
         np.array([[1.0, 2.0], [3.0, 4.01]])),
        (m * L**2 / 3, sp.Rational(1, 3) * L**2 * m, m * L**2 / 12),
        (3, 3.0, 4),
        (True, True, False),
        ((1.5, m / 2), (1.5, m / 2), (1.5, m / 3)),
        ([m / 2, L], [m / 2, L], [m / 3, L]),
    ]:
        fingerprint = Fingerprint.of(value)
        text = repr(fingerprint)
        import base64
        decoded = base64.b64decode(text.split("'")[1]).decode()
        assert "0.1234" not in decoded and "L**2" not in decoded and "m/2" not in decoded
        restored = eval(text, {"Fingerprint": Fingerprint})  # what a student's check cell holds
        assert restored.mismatch(right) is None, (value, right)
        assert restored.mismatch(wrong), (value, wrong)
        check_answer(right, restored, "the answer")
        with pytest.raises(ExerciseFeedback, match="not right yet"):
            check_answer(wrong, restored, "the answer")


def test_a_forbidden_function_raises_during_the_readers_call_only():
    import dynlib as dl

    model = dl.planar_chain(3)
    q = np.array([0.1, 0.2, 0.3])
    copy_only = {"dl": dl}
    exec("def mass_matrix(model, q):\n    return dl.crba(model, q)\n", copy_only)
    with pytest.raises(ExerciseFeedback, match="without `crba`"):
        check_function(copy_only["mass_matrix"], dl.crba, [("chain", (model, q))], forbid=(dl.crba,))
    assert dl.crba is not None and np.allclose(dl.crba(model, q), dl.crba(model, q))  # restored afterwards
    honest = {"dl": dl, "np": np}
    exec("def mass_matrix(model, q):\n"
         "    g = dl.rnea(model, q, np.zeros(3), np.zeros(3))\n"
         "    return np.column_stack([dl.rnea(model, q, np.zeros(3), e) - g for e in np.eye(3)])\n", honest)
    check_function(honest["mass_matrix"], dl.crba, [("chain", (model, q))], forbid=(dl.crba,))
