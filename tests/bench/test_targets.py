"""bench/_targets.py: the last line of a bench lists every target it checked, and its exit status agrees."""

from bench._targets import StoredFigure, Targets, ratio_range


def test_the_last_line_lists_every_target_checked_with_its_figure():
    targets = Targets()
    targets.at_most("agreement_stats bootstrap", 0.5, 5.0)
    targets.at_most("kappa_calculator end to end", 6.41, 4.5)
    targets.at_least("pairwise kappas vs sklearn", 38.04, 20.0, unit="x")

    assert targets.line() == (
        "targets: 2 of 3 met — agreement_stats bootstrap ≤ 5 s: met (0.50 s); "
        "kappa_calculator end to end ≤ 4.5 s: NOT met (6.41 s); pairwise kappas vs sklearn ≥ 20x: met (38.0x)"
    )


def test_the_exit_status_is_1_when_any_target_is_missed():
    targets = Targets()
    targets.record("a", True, "1")
    targets.record("b", False, "2")

    assert targets.exit_status() == 1


def test_the_exit_status_is_0_when_every_target_is_met(capsys):
    targets = Targets()
    targets.at_most("export", 2.3, 5.0)

    assert targets.finish() == 0
    assert capsys.readouterr().out == "targets: 1 of 1 met — export ≤ 5 s: met (2.30 s)\n"


def test_a_run_that_checks_no_target_says_why_and_exits_0():
    targets = Targets(none_reason="--quick: the targets are defined at 100,000 dialogues")

    assert targets.line() == "targets: none checked (--quick: the targets are defined at 100,000 dialogues)"
    assert targets.exit_status() == 0


def test_a_bound_is_met_when_equal_to_the_figure():
    targets = Targets()

    assert targets.at_most("x", 4.5, 4.5) and targets.at_least("y", 235.0, 235.0, unit="/s")
    assert targets.all_met


def test_a_stored_figure_is_labelled_with_its_system_setup_transport_and_date():
    figure = StoredFigure("Label Studio 1.23.2", "gunicorn 4 sync", "HTTP", "measured 2026-11-27")

    assert figure.label("44.9/s") == "Label Studio 1.23.2, gunicorn 4 sync, HTTP, measured 2026-11-27: 44.9/s"


def test_a_ratio_against_a_stored_range_spans_both_ends():
    assert ratio_range(355.0, 44.9, 47.3) == "7.5–7.9×"
    assert ratio_range(100.0, 50.0, 50.0) == "2.0×"
