"""Deterministic offline baseline judge for the Layer3 criteria (``baseline-tfidf@1``).

This is NOT an LLM and must never be presented as one. It lets the Layer3 evaluation run end to end
without network access and gives a lexical floor to compare real LLM-as-a-Judge results against.
Pure module: no Django, no network, no randomness; the same input always gives the same output,
independent of call order. Every result is ``{"score": int, "label": str, "reasoning": str,
"similarity": float}``; ``reasoning`` is one short English sentence starting with ``baseline:``.
``None`` inputs are treated as empty strings; other non-string inputs are passed through ``str()``.

Text preparation (applied to every text before vectorising)
------------------------------------------------------------
1. Unicode NFKC normalisation and lower-casing (so full-/half-width variants compare equal).
2. Punctuation, symbols and ``_`` become spaces.
3. A space is inserted at every boundary between a hiragana run and anything else, then hiragana-only
   words are dropped (they are mostly particles and inflections such as の, に, する, ましょう, which
   otherwise dominate the overlap between unrelated Japanese sentences). If that would leave a text
   empty (an all-hiragana text such as がんばりましょう) the hiragana words are kept.

Similarity
----------
``TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 3), sublinear_tf=True)`` is fitted on the
fixed built-in corpus ``GENERIC_CORPUS`` (generic Japanese placeholder / filler texts that would fit
any concern) plus the two texts being compared, so the IDF is stable and n-grams of generic phrases
are down-weighted. Cosine similarities are rounded to 4 decimals before any threshold comparison.
The fitted vectoriser depends only on its two input texts, so results are memoised per pair.

GV relevance (``gv_relevance``), rules in order
-----------------------------------------------
``concern_sim`` = similarity(concern text, generated text);
``generic_sim`` = max similarity(generated text, each entry of ``GENERIC_CORPUS``).

1. generated text empty, whitespace or punctuation only        -> 0 ``not_relevant``
2. generated text contains an entry of ``HARMFUL_TERMS``
   (死ね, 殺す, 自殺しろ, 消えろ, バカ, クズ; substring match)       -> 0 ``not_relevant``
3. ``concern_sim >= USEFUL_THRESHOLD`` (0.08)                    -> 2 ``useful``
4. ``generic_sim >= max(concern_sim, GENERIC_CORPUS_THRESHOLD)``
   (GENERIC_CORPUS_THRESHOLD = 0.30)                             -> 1 ``generic``
5. ``concern_sim >= GENERIC_FLOOR`` (0.05)                       -> 1 ``generic``
6. otherwise (specific but unrelated to the concern)             -> 0 ``not_relevant``

``similarity`` is ``concern_sim`` (0.0 for rule 1). ``widget_type`` is accepted for interface parity
with the LLM judge and is not used.

The thresholds were chosen on hand-written Japanese examples (the ones in
``tests/llm/test_baseline.py``): after preparation, texts that share content words with the concern
(e.g. 転職した場合のメリット: 年収アップの可能性 for 転職するか今の会社に残るか迷っていて、夜も眠れません)
scored 0.108-0.52, placeholders (項目1, アイデアを書き出そう) 0.0 against the concern but >= 0.38
against the generic corpus, and specific unrelated texts (今日の夕飯はカレーにする) <= 0.035 against
the concern and <= 0.08 against the corpus. Being lexical, the baseline cannot see a useful value
that shares no characters with the concern (上司に相談する for the concern above lands in 0), nor
generic phrasing absent from the corpus (大事なこと lands in 0); that is the expected floor.

W2WR semantic correctness (``w2wr_semantic``), rules in order
-------------------------------------------------------------
1. source widget id == target widget id (after stripping, non-empty)   -> 1 ``redundant`` (self reference)
2. port names compatible: normalised (lower-cased, ``_`` / ``-`` / spaces removed, non-empty) and
   equal, or the shorter one (at least ``MIN_PORT_CONTAINMENT`` = 3 characters) is contained in the
   longer one, e.g. ``items`` / ``selectedItems``                       -> 2 ``correct``
3. ``description_sim >= DESCRIPTION_THRESHOLD`` (0.10), where ``description_sim`` is the similarity
   above between the concern text and the binding description       -> 2 ``correct``
4. otherwise                                                         -> 0 ``wrong``

``similarity`` is ``description_sim`` when rule 3 was evaluated (also for rule 4), else 0.0.
On the test examples, descriptions of sensible flows for the concern scored 0.113-0.368 and an
unrelated one (タイマーの残り時間を天気ウィジェットの地域名に入れる, sharing only 残) 0.076.
Widget types are accepted for interface parity and are not used.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

BASELINE_MODEL = "baseline-tfidf@1"

LABELS = {
    "gv_relevance": {0: "not_relevant", 1: "generic", 2: "useful"},
    "w2wr_semantic": {0: "wrong", 1: "redundant", 2: "correct"},
}

# GV relevance thresholds (cosine similarities after rounding to 4 decimals).
USEFUL_THRESHOLD = 0.08
GENERIC_CORPUS_THRESHOLD = 0.30
GENERIC_FLOOR = 0.05
# W2WR thresholds.
DESCRIPTION_THRESHOLD = 0.10
MIN_PORT_CONTAINMENT = 3

# Generic placeholder / filler texts that would fit any concern. Fixed: changing it changes results
# and needs a new BASELINE_MODEL version.
GENERIC_CORPUS: tuple[str, ...] = (
    "項目1",
    "項目2",
    "メモを入力",
    "ここに入力してください",
    "テキストを入力",
    "サンプルテキスト",
    "やることリスト",
    "タスクA",
    "タスクB",
    "選択肢A",
    "選択肢B",
    "アイデアを書き出そう",
    "気持ちを書き出してみましょう",
    "考えを整理しましょう",
    "大切なことを書きましょう",
    "がんばりましょう",
    "リラックスしましょう",
    "無理をしないでください",
    "一歩ずつ進みましょう",
    "できることから始めよう",
    "自分を大切にしよう",
    "次のステップを考える",
    "目標を決める",
    "振り返りをする",
    "今の気持ち",
    "メリットとデメリット",
    "良いところと悪いところ",
    "優先度: 高",
    "ポイント1",
    "その他",
    "未定",
    "ToDo",
)

# Deliberately short; substring match on the prepared-for-matching text (NFKC, lower-cased).
# 自殺 alone is not listed: a value such as a helpline suggestion may legitimately mention it.
HARMFUL_TERMS: tuple[str, ...] = ("死ね", "殺す", "自殺しろ", "消えろ", "バカ", "クズ")

_NON_WORD = re.compile(r"[\W_]+")
_HIRA = "\u3041-\u309f"
_HIRA_BOUNDARY = re.compile(rf"(?<=[{_HIRA}])(?=[^{_HIRA}])|(?<=[^{_HIRA}])(?=[{_HIRA}])")
_HIRA_WORD = re.compile(rf"[{_HIRA}]+")


def _text(value: object) -> str:
    return "" if value is None else str(value)


def _normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def _prepare(text: str) -> str:
    """Normalise, split at punctuation and hiragana boundaries, drop hiragana-only words (see module doc)."""
    text = _HIRA_BOUNDARY.sub(" ", _NON_WORD.sub(" ", _normalise(text)))
    words = text.split()
    content = [w for w in words if not _HIRA_WORD.fullmatch(w)]
    return " ".join(content or words)


_PREPARED_CORPUS: tuple[str, ...] = tuple(_prepare(t) for t in GENERIC_CORPUS)


@lru_cache(maxsize=4096)
def _similarities(reference: str, text: str) -> tuple[float, float]:
    """(cosine(reference, text), max cosine(text, generic corpus)) for prepared texts, rounded to 4 decimals."""
    if not reference.strip() and not text.strip():
        return 0.0, 0.0
    # scikit-learn (with scipy and pandas) takes ~1 s to import: only where a baseline is computed (issue 31)
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import cosine_similarity

    vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 3), sublinear_tf=True)
    try:
        matrix = vectorizer.fit_transform([*_PREPARED_CORPUS, reference, text])
    except ValueError:  # empty vocabulary
        return 0.0, 0.0
    n = len(_PREPARED_CORPUS)
    to_reference = float(cosine_similarity(matrix[n + 1], matrix[n])[0, 0])
    to_corpus = float(cosine_similarity(matrix[n + 1], matrix[:n]).max())
    return round(to_reference, 4), round(to_corpus, 4)


def _result(kind: str, score: int, reasoning: str, similarity: float) -> dict:
    return {
        "score": score,
        "label": LABELS[kind][score],
        "reasoning": f"baseline: {reasoning}",
        "similarity": float(similarity),
    }


def gv_relevance(concern_text: str, generated_text: str, widget_type: str = "") -> dict:
    """Offline GV relevance judgement of a generated sample value (rules in the module docstring)."""
    concern, generated = _text(concern_text), _text(generated_text)
    if not _prepare(generated):
        return _result("gv_relevance", 0, "generated text is empty (or punctuation only)", 0.0)
    normalised = _normalise(generated)
    harmful = next((term for term in HARMFUL_TERMS if term in normalised), None)
    if harmful is not None:
        return _result("gv_relevance", 0, "generated text contains a harmful term", 0.0)
    concern_sim, generic_sim = _similarities(_prepare(concern), _prepare(generated))
    sims = f"(concern {concern_sim:.3f}, generic corpus {generic_sim:.3f})"
    if concern_sim >= USEFUL_THRESHOLD:
        return _result("gv_relevance", 2, f"concern similarity >= {USEFUL_THRESHOLD} {sims}", concern_sim)
    if generic_sim >= max(concern_sim, GENERIC_CORPUS_THRESHOLD):
        reason = f"generic-corpus similarity >= max(concern similarity, {GENERIC_CORPUS_THRESHOLD}) {sims}"
        return _result("gv_relevance", 1, reason, concern_sim)
    if concern_sim >= GENERIC_FLOOR:
        reason = f"concern similarity >= {GENERIC_FLOOR} but < {USEFUL_THRESHOLD} {sims}"
        return _result("gv_relevance", 1, reason, concern_sim)
    return _result("gv_relevance", 0, f"specific but unrelated to the concern {sims}", concern_sim)


def _port_key(port: str) -> str:
    return re.sub(r"[\s_\-]+", "", _normalise(port))


def ports_compatible(source_port: str, target_port: str) -> bool:
    """Normalised port names equal, or the shorter (>= MIN_PORT_CONTAINMENT chars) inside the longer."""
    a, b = _port_key(_text(source_port)), _port_key(_text(target_port))
    if not a or not b:
        return False
    if a == b:
        return True
    shorter, longer = sorted((a, b), key=len)
    return len(shorter) >= MIN_PORT_CONTAINMENT and shorter in longer


def w2wr_semantic(
    concern_text: str,
    source_widget: str,
    source_widget_type: str,
    source_port: str,
    target_widget: str,
    target_widget_type: str,
    target_port: str,
    description: str = "",
) -> dict:
    """Offline W2WR semantic-correctness judgement of a widget binding (rules in the module docstring)."""
    source, target = _text(source_widget).strip(), _text(target_widget).strip()
    if source and source == target:
        return _result("w2wr_semantic", 1, f"self reference ({source} -> {target})", 0.0)
    if ports_compatible(source_port, target_port):
        reason = f"compatible port names ({_text(source_port)!r} -> {_text(target_port)!r})"
        return _result("w2wr_semantic", 2, reason, 0.0)
    description_sim = 0.0
    if _text(description).strip():
        description_sim, _ = _similarities(_prepare(_text(concern_text)), _prepare(_text(description)))
    if description_sim >= DESCRIPTION_THRESHOLD:
        reason = f"description similarity to the concern {description_sim:.3f} >= {DESCRIPTION_THRESHOLD}"
        return _result("w2wr_semantic", 2, reason, description_sim)
    reason = (
        f"incompatible ports ({_text(source_port)!r} -> {_text(target_port)!r}) and description similarity "
        f"{description_sim:.3f} < {DESCRIPTION_THRESHOLD}"
    )
    return _result("w2wr_semantic", 0, reason, description_sim)
