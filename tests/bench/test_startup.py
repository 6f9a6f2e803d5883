"""bench/startup.py: its four figures are the medians of its runs, its last line covers all four targets and its
exit status agrees (the processes it would start are replaced by fixed figures here: no timing in tests)."""

import pytest

from bench import startup


@pytest.fixture
def figures(monkeypatch):
    """Each measurement returns the next of its figures; migrate and the databases do nothing."""

    def next_of(values):
        values = iter(values)
        return lambda *args, **kwargs: next(values)

    def set_figures(setup, migrate, first, restart, replay=None):
        monkeypatch.setattr(startup, "setup_seconds", next_of(setup))
        monkeypatch.setattr(startup, "migrate_seconds", next_of(migrate))
        fresh, replayed = next_of(first), next_of(replay if replay is not None else [9.0] * len(first))
        monkeypatch.setattr(
            startup,
            "first_start_seconds",
            lambda *args: replayed() if "--replay" in args else fresh(),
        )
        monkeypatch.setattr(startup, "serve_until_ok", next_of([0.0, *restart]))  # the untimed start first
        monkeypatch.setattr(startup, "migrate", lambda root, env, *options: None)

    return set_figures


def test_every_target_is_in_the_last_line_and_a_missed_one_makes_the_exit_status_1(figures, capsys):
    figures(
        setup=[0.5, 0.7, 0.55],
        migrate=[0.9, 0.95, 1.2],
        first=[2.5, 2.7, 2.6],
        restart=[1.9, 2.5, 2.4],
        replay=[5.0, 5.4, 5.2],
    )

    status = startup.main(["--runs", "3"])

    lines = capsys.readouterr().out.strip().splitlines()
    assert status == 1
    assert lines[-1] == (
        "targets: 3 of 4 met — django.setup() ≤ 0.6 s: met (0.55 s); migrate with nothing to do ≤ 1 s: met (0.95 s); "
        "first start on a fresh database ≤ 3 s: met (2.60 s); restart ≤ 2 s: NOT met (2.40 s)"
    )
    assert "median  2.60 s  (runs 2.50, 2.70, 2.60)" in lines[-4]
    # The replayed migrations are the reference of the first start, with no target of their own.
    assert lines[-2].startswith("(e) first start, --replay          median  5.20 s  (runs 5.00, 5.40, 5.20)")
    assert "no target" in lines[-2] and "(2.0x the time of (c))" in lines[-2]


def test_the_exit_status_is_0_when_all_four_are_met(figures, capsys):
    figures(setup=[0.5], migrate=[0.9], first=[2.5], restart=[1.8])

    assert startup.main(["--runs", "1"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("targets: 4 of 4 met — ")
