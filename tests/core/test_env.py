import pytest

from config.env import ImproperlyConfiguredError, env_bool, env_float, env_int, env_list, env_str


def test_env_bool_reads_the_usual_spellings():
    for raw in ("1", "true", "Yes", " on "):
        assert env_bool("X", False, environ={"X": raw}) is True
    for raw in ("0", "false", "NO", "off"):
        assert env_bool("X", True, environ={"X": raw}) is False


def test_env_bool_uses_the_default_when_unset_or_empty():
    assert env_bool("X", True, environ={}) is True
    assert env_bool("X", True, environ={"X": " "}) is True


def test_env_bool_rejects_other_values_naming_the_variable_and_what_is_accepted():
    with pytest.raises(ImproperlyConfiguredError, match=r"DEBUG='maybe' is not a boolean; use one of 1/0"):
        env_bool("DEBUG", False, environ={"DEBUG": "maybe"})


def test_env_int_checks_type_and_minimum():
    assert env_int("N", 3, environ={}) == 3
    assert env_int("N", 3, environ={"N": " 7 "}) == 7
    with pytest.raises(ImproperlyConfiguredError, match="N='x' is not an integer"):
        env_int("N", 3, environ={"N": "x"})
    with pytest.raises(ImproperlyConfiguredError, match="N=0 must be at least 1"):
        env_int("N", 3, minimum=1, environ={"N": "0"})


def test_env_float_rejects_nan_and_infinity():
    assert env_float("F", 1.5, environ={"F": "2.5"}) == 2.5
    for raw in ("nan", "inf", "-inf"):
        with pytest.raises(ImproperlyConfiguredError, match="finite"):
            env_float("F", 1.0, environ={"F": raw})


def test_env_list_splits_on_commas_and_drops_blanks():
    assert env_list("H", ["a"], environ={}) == ["a"]
    assert env_list("H", ["a"], environ={"H": " x.org, ,y.org ,"}) == ["x.org", "y.org"]
    assert env_list("H", ["a"], environ={"H": ""}) == []


def test_env_str_default():
    assert env_str("S", "d", environ={}) == "d"
    assert env_str("S", "d", environ={"S": "v"}) == "v"
