from director.pages.highlight import segments


def test_plain_text_is_one_segment():
    assert segments("こんにちは", []) == [{"text": "こんにちは", "rules": [], "status": ""}]


def test_spans_of_several_findings_merge_and_name_their_rules():
    findings = [
        {"rule": "praise", "status": "RETRY", "evidence": [{"start": 0, "end": 3}]},
        {"rule": "tone", "status": "WARN", "evidence": [{"start": 2, "end": 5}, {"start": 99, "end": 120}]},
    ]
    parts = segments("すごいです。ね", findings)
    assert "".join(p["text"] for p in parts) == "すごいです。ね"
    assert parts[:3] == [
        {"text": "すご", "rules": ["praise"], "status": "RETRY"},
        {"text": "い", "rules": ["praise", "tone"], "status": "RETRY"},
        {"text": "です", "rules": ["tone"], "status": "WARN"},
    ]
    assert parts[3] == {"text": "。ね", "rules": [], "status": ""}
