"""The LLM review's scores (§7): parsing the reply, the average against the thresholds, worse(), the schema."""

import pytest

from director.review.scores import (
    ASPECTS,
    Review,
    ReviewThresholds,
    parse_review,
    review_status,
    worse,
)


def reply(scores=(4, 4, 4, 4, 4), summary="全体に自然です。") -> dict:
    pairs = zip(ASPECTS, scores, strict=True)
    answer = {aspect: {"score": score, "reason": f"{aspect}の理由"} for aspect, score in pairs}
    return {**answer, "summary": summary}


def test_the_aspects_in_order():
    assert ASPECTS == ("frame", "roleplay", "connection", "density", "naturalness")


def test_a_reply_parses_into_scores_reasons_summary_and_average():
    review = parse_review(reply((5, 4, 3, 4, 5)))
    assert review == Review(
        scores={"frame": 5, "roleplay": 4, "connection": 3, "density": 4, "naturalness": 5},
        reasons={aspect: f"{aspect}の理由" for aspect in ASPECTS},
        summary="全体に自然です。",
        average=4.2,
    )
    assert list(review.scores) == list(ASPECTS)
    assert review.to_dict()["average"] == 4.2
    with pytest.raises(AttributeError):
        review.average = 5.0  # frozen


def test_a_whole_float_score_is_an_integer():
    answer = reply()
    answer["frame"]["score"] = 3.0
    assert parse_review(answer).scores["frame"] == 3


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r["density"].update(score=6), r"^density\.score: expected an integer from 1 to 5, got 6$"),
        (lambda r: r["frame"].update(score=0), r"^frame\.score: expected an integer from 1 to 5, got 0$"),
        (lambda r: r["roleplay"].update(score=3.5), r"^roleplay\.score: expected an integer from 1 to 5, got 3\.5$"),
        (lambda r: r["roleplay"].update(score=True), r"^roleplay\.score: .*got True$"),
        (lambda r: r["connection"].update(score="4"), r"^connection\.score: .*got '4'$"),
        (lambda r: r.pop("naturalness"), r"^naturalness: missing"),
        (lambda r: r["frame"].pop("reason"), r"^frame: expected"),
        (lambda r: r["frame"].update(extra=1), r"^frame: expected"),
        (lambda r: r["frame"].update(reason=3), r"^frame\.reason: expected a string, got 3$"),
        (lambda r: r.update(frame=4), r"^frame: expected"),
        (lambda r: r.pop("summary"), r"^summary: expected a string, got None$"),
        (lambda r: r.update(score=4), r"^score: unknown key"),
    ],
)
def test_a_bad_reply_names_the_aspect(change, message):
    answer = reply()
    change(answer)
    with pytest.raises(ValueError, match=message):
        parse_review(answer)


def test_a_reply_must_be_an_object():
    with pytest.raises(ValueError, match=r"^review: expected an object"):
        parse_review([4, 4, 4, 4, 4])


@pytest.mark.parametrize(
    ("scores", "average", "status"),
    [
        ((1, 1, 1, 1, 1), 1.0, "RETRY"),
        ((3, 3, 4, 4, 3), 3.4, "RETRY"),
        ((3, 4, 4, 4, 3), 3.6, "WARN"),
        ((4, 4, 4, 3, 4), 3.8, "WARN"),
        ((4, 4, 4, 4, 3), 3.8, "WARN"),
        ((5, 4, 4, 3, 3), 3.8, "WARN"),
        ((4, 4, 4, 4, 4), 4.0, "PASS"),
        ((5, 5, 3, 3, 4), 4.0, "PASS"),
        ((5, 5, 5, 5, 5), 5.0, "PASS"),
    ],
)
def test_the_average_of_integer_scores_against_the_thresholds(scores, average, status):
    review = parse_review(reply(scores))
    assert review.average == average
    assert review_status(review.average, ReviewThresholds()) == status


@pytest.mark.parametrize(
    ("average", "status"),
    [(3.4, "RETRY"), (3.5, "WARN"), (3.6, "WARN"), (3.9, "WARN"), (4.0, "PASS"), (3.4999999999999996, "WARN")],
)
def test_the_boundaries(average, status):
    assert review_status(average, ReviewThresholds(3.5, 4.0)) == status


def test_every_sum_of_five_scores_lands_on_the_right_side():
    for total in range(5, 26):
        tenths = total * 2  # the average in tenths: total / 5 = 2 * total / 10
        expected = "RETRY" if tenths < 35 else "WARN" if tenths < 40 else "PASS"
        assert review_status(total / 5, ReviewThresholds()) == expected, total


def test_other_thresholds():
    thresholds = ReviewThresholds(retry_below=3.0, pass_from=4.6)
    assert [review_status(x, thresholds) for x in (2.8, 3.0, 4.4, 4.6)] == ["RETRY", "WARN", "WARN", "PASS"]
    assert review_status(3.4) == "RETRY"  # the default thresholds


@pytest.mark.parametrize(("retry_below", "pass_from"), [(4.0, 3.5), (4.0, 4.0), (0.5, 4.0), (3.5, 6), (True, 4.0)])
def test_thresholds_are_checked(retry_below, pass_from):
    with pytest.raises(ValueError):
        ReviewThresholds(retry_below, pass_from)


ORDER = ("PASS", "MODIFY", "WARN", "RETRY")


@pytest.mark.parametrize("a", ORDER)
@pytest.mark.parametrize("b", ORDER)
def test_worse_ranks_pass_modify_warn_retry(a, b):
    assert worse(a, b) == ORDER[max(ORDER.index(a), ORDER.index(b))]
    assert worse(a, b) == worse(b, a)


def test_worse_table():
    assert worse("PASS", "WARN") == "WARN"
    assert worse("MODIFY", "PASS") == "MODIFY"
    assert worse("MODIFY", "WARN") == "WARN"
    assert worse("RETRY", "MODIFY") == "RETRY"
    assert worse("WARN", "RETRY") == "RETRY"


def test_worse_refuses_an_unknown_status():
    with pytest.raises(ValueError, match="unknown status 'FAIL'"):
        worse("PASS", "FAIL")


def review_schema() -> dict:
    """The reply schema the gateway registers for director.review@2 (what every review is validated against)."""
    from llm.prompt_library import DIRECTOR_REVIEW_V2

    assert DIRECTOR_REVIEW_V2.ref == "director.review@2"
    return DIRECTOR_REVIEW_V2.schema


def test_the_schema_is_strict():
    schema = review_schema()
    assert schema["required"] == [*ASPECTS, "summary"]
    assert schema["additionalProperties"] is False
    for aspect in ASPECTS:
        entry = schema["properties"][aspect]
        assert entry["additionalProperties"] is False
        assert entry["required"] == ["score", "reason"]
        assert entry["properties"]["score"] == {"type": "integer", "minimum": 1, "maximum": 5}


def test_the_schema_validates_with_the_gateway():
    from llm.schema import validate

    assert validate(reply(), review_schema()) == []
    assert validate({**reply(), "verdict": "PASS"}, review_schema())


@pytest.fixture
def jsonschema():
    return pytest.importorskip("jsonschema")


def test_the_schema_is_draft_2020_12_and_accepts_a_valid_reply(jsonschema):
    validator = jsonschema.Draft202012Validator(review_schema())
    jsonschema.Draft202012Validator.check_schema(review_schema())
    assert list(validator.iter_errors(reply())) == []
    assert parse_review(reply()).average == 4.0


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r.update(verdict="PASS"),  # an extra key
        lambda r: r["frame"].update(note="x"),  # an extra key in an aspect
        lambda r: r.pop("density"),
        lambda r: r["density"].update(score=6),
        lambda r: r["density"].update(score=0),
        lambda r: r["density"].update(score="4"),
        lambda r: r["density"].update(reason="x" * 401),
        lambda r: r.update(summary=None),
    ],
)
def test_the_schema_rejects(jsonschema, change):
    answer = reply()
    change(answer)
    assert not jsonschema.Draft202012Validator(review_schema()).is_valid(answer)
