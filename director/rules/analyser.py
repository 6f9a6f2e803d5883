"""Morphological analysis with SudachiPy (core dictionary, split mode C), done once per utterance.

``Analyser.tokenize`` returns ``Tokens``: Sudachi's morphemes, for each a small part-of-speech code,
and the lemma (dictionary form) of each content word. The topic, topic-loop and contradiction checks
read the same ``Tokens``; they ask a morpheme for its offsets or surface only where a pattern needs it,
because every call into Sudachi costs more than the table lookup of the code.

Codes (from the first three levels of Sudachi's POS, decided once per POS id):

- ``NOUN``: 名詞 普通名詞 (一般, サ変可能, 形状詞可能, サ変形状詞可能) and 名詞 固有名詞;
- ``NOUN_ADVERBIAL``: 名詞 普通名詞 副詞可能 / 助数詞可能 (今日, 今, 時): time and quantity words;
- ``NUMERAL``: 名詞 数詞; ``PREFIX``: 接頭辞; ``NOUN_SUFFIX``: 接尾辞 名詞的 (さん, たち);
- ``VERB``: 動詞; ``ADJECTIVE``: 形容詞; ``ADJECTIVAL_NOUN``: 形状詞 一般 (きれい, 素敵);
- ``AUXILIARY``: 助動詞; ``CASE_PARTICLE``: 助詞 格助詞; ``BINDING_PARTICLE``: 助詞 係助詞 (は, も);
- ``OTHER``: everything else (代名詞, 副詞, 連体詞, 接続詞, 感動詞, other particles, symbols, spaces).

Content words are the tokens coded ``NOUN``, ``NOUN_ADVERBIAL``, ``VERB``, ``ADJECTIVE`` or
``ADJECTIVAL_NOUN``; their lemma is Sudachi's dictionary form (食べた → 食べる; a noun's is its surface),
so 食べた and 食べる are one word, すごい and 凄い two.

The dictionary is loaded once per process; each thread gets its own tokenizer, so one ``RuleSet``
can serve several threads. Sudachi refuses inputs over 49,149 bytes; a longer text is analysed in
pieces of at most ``CHUNK`` characters, cut after a line break where there is one, with the offsets
carried over, so the checks see one analysis of the whole text.
"""

from __future__ import annotations

import re
import threading
from functools import cache

(
    OTHER,
    NOUN,
    NOUN_ADVERBIAL,
    NUMERAL,
    PREFIX,
    NOUN_SUFFIX,
    VERB,
    ADJECTIVE,
    ADJECTIVAL_NOUN,
    AUXILIARY,
    CASE_PARTICLE,
    BINDING_PARTICLE,
) = range(12)

# The word fields the checks read (surface and offsets come from the text): loading only these makes
# the analysis faster, with the same morphemes. The normalized form (無い for ない, ねえ and 無かっ; 言う
# for 言え) lets the double-negation grammar read a morpheme whatever its spelling or conjugation.
_FIELDS = {"pos", "dictionary_form", "normalized_form", "split_a"}
_CACHED = 10_000  # words remembered per cache of the analyser
# Parts of speech of what may follow a negative prefix (無料 = 無 + 料, 不便 = 不 + 便, 無休 = 無 + 休).
_AFTER_PREFIX = frozenset({("名詞", "普通名詞"), ("形状詞", "一般"), ("接尾辞", "名詞的")})
_KANA = re.compile(r"[ぁ-ゖァ-ヺー]+\Z")
CHUNK = 12_000  # characters; 4 bytes each at most in UTF-8, under Sudachi's limit

CONTENT = frozenset({NOUN, NOUN_ADVERBIAL, VERB, ADJECTIVE, ADJECTIVAL_NOUN})


def _code(pos: tuple[str, ...]) -> int:
    first, second, third = pos[0], pos[1], pos[2]
    if first == "名詞":
        if second == "数詞":
            return NUMERAL
        if third in ("副詞可能", "助数詞可能"):
            return NOUN_ADVERBIAL
        return NOUN
    if first == "接頭辞":
        return PREFIX
    if first == "接尾辞":
        return NOUN_SUFFIX if second == "名詞的" else OTHER
    if first == "動詞":
        return VERB
    if first == "形容詞":
        return ADJECTIVE
    if first == "形状詞":
        return ADJECTIVAL_NOUN if second == "一般" else OTHER
    if first == "助動詞":
        return AUXILIARY
    if first == "助詞":
        if second == "格助詞":
            return CASE_PARTICLE
        if second == "係助詞":
            return BINDING_PARTICLE
    return OTHER


class Tokens:
    """The morphemes of one text, their codes, and the content words; offsets are computed on first need.

    ``codes`` is a ``bytes`` of one code per morpheme (so ``codes.find`` looks for a code at C speed);
    ``content`` holds the index of each content word and ``lemmas`` its lemma, in text order. ``shifts``
    is None for a text analysed in one piece, else the offset of each morpheme's piece.
    """

    __slots__ = ("codes", "content", "lemmas", "morphemes", "shifts")

    def __init__(
        self, morphemes, codes: bytes, content: list[int], lemmas: list[str], shifts: list[int] | None = None
    ) -> None:
        self.morphemes = morphemes
        self.codes = codes
        self.content = content
        self.lemmas = lemmas
        self.shifts = shifts

    def index_at(self, position: int) -> int | None:
        """The index of the (first non-empty) morpheme starting at text offset ``position``, if any.

        A binary search asking a few morphemes for their offsets: cheaper than computing every offset.
        """
        low, high = 0, len(self.codes)
        while low < high:
            middle = (low + high) // 2
            if self.start(middle) < position:
                low = middle + 1
            else:
                high = middle
        index = low
        while index < len(self.codes) and self.start(index) == position:
            if self.end(index) > position:
                return index
            index += 1
        return None

    def start(self, index: int) -> int:
        if self.shifts is None:
            return self.morphemes[index].begin()
        return self.morphemes[index].begin() + self.shifts[index]

    def end(self, index: int) -> int:
        if self.shifts is None:
            return self.morphemes[index].end()
        return self.morphemes[index].end() + self.shifts[index]

    def surface(self, index: int) -> str:
        return self.morphemes[index].surface()

    def normalized(self, index: int) -> str:
        """Sudachi's normalized form: one spelling for variants (無い for ない and 無かっ, 有る for あり)."""
        return self.morphemes[index].normalized_form()


class Analyser:
    """Sudachi's core dictionary in split mode C, with the POS codes of all its POS ids."""

    def __init__(self) -> None:
        import sudachipy  # imported with the dictionary it loads, not at Django start-up (issue 31)

        self._dictionary = sudachipy.Dictionary(dict="core")
        self._mode_a, self._mode_c = sudachipy.SplitMode.A, sudachipy.SplitMode.C
        codes = []
        while (pos := self._dictionary.pos_of(len(codes))) is not None:
            codes.append(_code(pos))
        self._codes = codes
        self._local = threading.local()
        self._prefixed: dict[str, bool] = {}
        self._readings: dict[str, frozenset[str]] = {}
        self._kana: dict[frozenset[str], dict[str, str]] = {}
        self._heads: dict[frozenset[str], frozenset[str]] = {}
        self._lock = threading.Lock()

    def _tokenizer(self):
        tokenizer = getattr(self._local, "tokenizer", None)
        if tokenizer is None:
            tokenizer = self._local.tokenizer = self._dictionary.tokenizer(self._mode_c, fields=_FIELDS)
        return tokenizer

    def tokenize(self, text: str) -> Tokens:
        shifts = None
        if len(text) <= CHUNK:
            morphemes = self._tokenizer().tokenize(text)
        else:
            morphemes, shifts = [], []
            for shift, piece in _pieces(text):
                analysed = self._tokenizer().tokenize(piece)
                morphemes.extend(analysed)
                shifts.extend([shift] * len(analysed))
        # One pass, as each step over (or index into) a MorphemeList creates the Python morpheme anew:
        # the morphemes made here are kept, so the checks' later offset lookups reuse them.
        table = self._codes
        kept, codes, content, lemmas = [], [], [], []
        keep, add_code, add_content, add_lemma = kept.append, codes.append, content.append, lemmas.append
        for index, morpheme in enumerate(morphemes):
            keep(morpheme)
            code = table[morpheme.part_of_speech_id()]
            add_code(code)
            if code in CONTENT:
                add_content(index)
                add_lemma(morpheme.dictionary_form())
        return Tokens(kept, bytes(codes), content, lemmas, shifts)

    def bare_tokenize(self, text: str):
        """Sudachi's tokenisation alone, as the benchmark's baseline."""
        return self._tokenizer().tokenize(text)

    def readings(self, word: str) -> frozenset[str]:
        """The readings (katakana) the dictionary gives ``word`` in any part of speech (事 → コト, ジ …). Cached."""
        known = self._readings.get(word)
        if known is None:
            known = frozenset(entry.reading_form() for entry in self._dictionary.lookup(word))
            if len(self._readings) < _CACHED:
                self._readings[word] = known
        return known

    def starts_with_prefix(self, tokens: Tokens, index: int) -> bool:
        """Whether the word at ``index`` is a 接頭辞 followed by a noun, an adjectival noun or a noun suffix.

        Either Sudachi's finer mode A splits it so (未成年 = 未 + 成年), or the dictionary spells it as a
        prefix and such a word and reads it as their readings joined: 無料 (ムリョウ) = 無 (ム) + 料 (リョウ),
        不便 = 不 (フ) + 便 (ベン), 無休 = 無 (ム) + 休 (キュウ). 不思議 is not (思議 is no word). Cached per word.
        """
        morpheme = tokens.morphemes[index]
        word = morpheme.surface()
        known = self._prefixed.get(word)
        if known is None:
            parts = morpheme.split(self._mode_a, add_single=False)
            known = (len(parts) >= 2 and parts[0].part_of_speech()[0] == "接頭辞") or self._reads_prefixed(word)
            if len(self._prefixed) < _CACHED:
                self._prefixed[word] = known
        return known

    def _reads_prefixed(self, word: str) -> bool:
        lookup = self._dictionary.lookup
        if len(word) < 2:
            return False
        readings = {entry.reading_form() for entry in lookup(word) if entry.part_of_speech()[0] in ("名詞", "形状詞")}
        if not readings:
            return False
        heads = {entry.reading_form() for entry in lookup(word[0]) if entry.part_of_speech()[0] == "接頭辞"}
        rests = {entry.reading_form() for entry in lookup(word[1:]) if entry.part_of_speech()[:2] in _AFTER_PREFIX}
        return any(head + rest in readings for head in heads for rest in rests)

    def kana_prefixed_word(self, kana: str, prefixes: frozenset[str]) -> str | None:
        """The dictionary word starting with one of ``prefixes`` and read ``kana`` (みせいねん, ミセイネン → 未成年).

        Reads the readings of the dictionary's prefixed nouns and adjectival nouns once, on first need
        (about 1.5 s, once per process and set of prefixes): only kana spellings ask.
        """
        if not _KANA.match(kana):
            return None
        reading = kana.translate(_TO_KATAKANA)
        if not any(reading.startswith(head) for head in self._prefix_readings(prefixes)):
            return None
        with self._lock:
            index = self._kana.get(prefixes)
            if index is None:
                index = self._kana[prefixes] = self._prefixed_readings(prefixes)
        return index.get(reading)

    def _prefix_readings(self, prefixes: frozenset[str]) -> frozenset[str]:
        """The readings of ``prefixes`` as 接頭辞 (未 ミ, 不 フ and ブ, 無 ム and ブ, 非 ヒ)."""
        known = self._heads.get(prefixes)
        if known is None:
            known = self._heads[prefixes] = frozenset(
                entry.reading_form()
                for prefix in prefixes
                for entry in self._dictionary.lookup(prefix)
                if entry.part_of_speech()[0] == "接頭辞"
            )
        return known

    def _prefixed_readings(self, prefixes: frozenset[str]) -> dict[str, str]:
        codes, words = self._codes, {}
        candidates = []
        for entry in self._dictionary.entries():
            word = entry.surface()
            if word[:1] in prefixes and 2 <= len(word) <= 13 and codes[entry.part_of_speech_id()] in _WORD_CODES:
                candidates.append(entry)
        for entry in candidates:
            word = entry.surface()
            parts = entry.split(self._mode_a, add_single=False)
            if (len(parts) >= 2 and parts[0].part_of_speech()[0] == "接頭辞") or self._reads_prefixed(word):
                words.setdefault(entry.reading_form(), word)
        return words


_WORD_CODES = frozenset({NOUN, NOUN_ADVERBIAL, ADJECTIVAL_NOUN})
_TO_KATAKANA = {code: code + 0x60 for code in range(ord("ぁ"), ord("ゖ") + 1)}


def _pieces(text: str):
    """``(offset, piece)`` of ``text`` cut into pieces of at most ``CHUNK`` characters, after a line break if any."""
    start = 0
    while start < len(text):
        end = min(start + CHUNK, len(text))
        if end < len(text):
            newline = text.rfind("\n", start, end)
            if newline > start:
                end = newline + 1
        yield start, text[start:end]
        start = end


@cache
def get_analyser() -> Analyser:
    """The process's analyser (loading the dictionary takes ~50 ms: once)."""
    return Analyser()
