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
