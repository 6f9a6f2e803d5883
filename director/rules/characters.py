"""Characters as data: one YAML file per character in ``director/rules/characters/`` (seed 004 §4.2–§4.4).

A character file holds::

    id: yana                  # optional; when given, the file name without .yaml (or the inline key)
    name: やな                # required; accepted as the speaker, like the id
    aliases: [やなちゃん]     # optional; more names accepted as the speaker
    persona: >-               # who the character is, as the generation and review prompts say it
      やな（姉）: 直感的で行動派。…
    markers:
      ending: [わ！, へ？, ...]        # §4.2 語尾マーカー
      vocabulary: [やだ, ほんと, ...]  # §4.3 語彙マーカー
    style:                    # §4.4 文体マーカー, one of two kinds
      kind: short_exclaiming  # at most max_sentences sentences and one of marks in the text
      max_sentences: 2
      marks: [！, ？]
    # or
      kind: polite_endings    # at least min_count sentences ending in one of endings (+ one of followers)
      endings: [です, ます, でした, ました]
      followers: [ね, よ]     # optional, default none
      min_count: 2
    rules:                    # optional; which hard rules apply, each true unless set to false
      praise: false           # (contradiction: false also turns off its WARN sibling, litotes)
    praise:                   # optional; §5.2 相手への肯定: the names this character gives the listener,
      targets: [姉様, やな]   # targets besides the rule set's praise.targets (default none)

The canonical id is the file name (``yana.yaml`` → ``yana``); a speaker is matched against the id
(ignoring ASCII case), the name and the aliases, all after stripping surrounding whitespace.

``persona`` is a non-empty string (surrounding whitespace stripped). It is required in a character
file: the files define the characters sessions generate and review lines of, and a prompt with
nothing but a name would silently weaken both. Inline, under a rule set's ``characters:`` (variants
for replaying and comparing the hard rules), it is optional; without it the character's persona is
"" and the prompts describe it by its name only. It is part of the canonical data ("" when absent),
so changing it changes the rule set's content hash.
"""

from __future__ import annotations

from dataclasses import dataclass

from director.rules.schema import Reader, child, describe

# The hard rules a character may switch off (bracket and script_format are about the text, always on).
SWITCHABLE_RULES = ("format", "setting", "praise", "scatter", "contradiction", "tone", "topic_loop")
STYLE_KINDS = ("short_exclaiming", "polite_endings")


@dataclass(frozen=True, slots=True)
class Style:
    """§4.4 style rule: ``short_exclaiming`` uses max_sentences and marks, ``polite_endings`` the rest."""

    kind: str
    max_sentences: int = 0
    marks: tuple[str, ...] = ()
    endings: tuple[str, ...] = ()
    followers: tuple[str, ...] = ()
    min_count: int = 0


@dataclass(frozen=True, slots=True)
class Character:
    """A character as loaded; ``names`` are the name followed by the aliases."""

    id: str
    name: str
    aliases: tuple[str, ...]
    endings: tuple[str, ...]
    vocabulary: tuple[str, ...]
    style: Style
    rules: frozenset[str]  # the switchable rules that apply
    persona: str = ""  # "" only for an inline character given none (module docstring)
    praise_targets: tuple[str, ...] = ()  # its names for the listener: praise targets (§5.2)

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    def applies(self, rule: str) -> bool:
        return rule in self.rules


def read_character(raw: object, *, file: str, path: str, key: str) -> tuple[Character, dict]:
    """The character described by ``raw`` and its canonical data (for the content hash).

    ``key`` is the id the file name or the inline mapping key gives; ``path`` is the key path of ``raw``
    in ``file`` (empty for a character file, ``characters.yana`` inline in a rule set).
    """
    reader = Reader(file)
    required = ("name", "markers", "style") + (() if path else ("persona",))
    data = reader.fields(raw, path, required, ("id", "aliases", "rules", "persona", "praise"))
    if "id" in data and data["id"] != key:
        where = "the file name" if not path else "its key"
        raise reader.error(child(path, "id"), f"expected {key!r} ({where}), got {data['id']!r}")
    name = reader.text(data["name"], child(path, "name")).strip()
    aliases = [alias.strip() for alias in reader.words(data.get("aliases", []), child(path, "aliases"))]
    persona = reader.text(data["persona"], child(path, "persona")).strip() if "persona" in data else ""
    markers_path = child(path, "markers")
    markers = reader.fields(data["markers"], markers_path, ("ending", "vocabulary"))
    endings = reader.words(markers["ending"], child(markers_path, "ending"))
    vocabulary = reader.words(markers["vocabulary"], child(markers_path, "vocabulary"))
    style, style_data = _read_style(reader, data["style"], child(path, "style"))
    rules_path = child(path, "rules")
    switches = reader.fields(data.get("rules", {}), rules_path, (), SWITCHABLE_RULES)
    enabled = {rule: reader.flag(switches.get(rule, True), child(rules_path, rule)) for rule in SWITCHABLE_RULES}
    praise_path = child(path, "praise")
    praise = reader.fields(data.get("praise", {}), praise_path, (), ("targets",))
    praise_targets = reader.words(praise.get("targets", []), child(praise_path, "targets"))
    character = Character(
        id=key,
        name=name,
        aliases=tuple(aliases),
        endings=tuple(endings),
        vocabulary=tuple(vocabulary),
        style=style,
        rules=frozenset(rule for rule, on in enabled.items() if on),
        persona=persona,
        praise_targets=tuple(praise_targets),
    )
    canonical = {
        "id": key,
        "name": name,
        "aliases": aliases,
        "persona": persona,
        "markers": {"ending": endings, "vocabulary": vocabulary},
        "style": style_data,
        "rules": enabled,
        "praise": {"targets": praise_targets},
    }
    return character, canonical


def _read_style(reader: Reader, raw: object, path: str) -> tuple[Style, dict]:
    kinds = " or ".join(STYLE_KINDS)
    if not isinstance(raw, dict):
        raise reader.error(path, f"expected a mapping with kind: {kinds}, got {describe(raw)}")
    if raw.get("kind") not in STYLE_KINDS:
        raise reader.error(child(path, "kind"), f"expected {kinds}, got {describe(raw.get('kind'))}")
    if raw["kind"] == "short_exclaiming":
        data = reader.fields(raw, path, ("kind", "max_sentences", "marks"))
        max_sentences = reader.integer(data["max_sentences"], child(path, "max_sentences"), 1)
        marks = reader.words(data["marks"], child(path, "marks"))
        if not marks:
            raise reader.error(child(path, "marks"), "expected at least one mark, got an empty list")
        style = Style("short_exclaiming", max_sentences=max_sentences, marks=tuple(marks))
        return style, {"kind": style.kind, "max_sentences": max_sentences, "marks": marks}
    data = reader.fields(raw, path, ("kind", "endings", "min_count"), ("followers",))
    endings = reader.words(data["endings"], child(path, "endings"))
    if not endings:
        raise reader.error(child(path, "endings"), "expected at least one ending, got an empty list")
    followers = reader.words(data.get("followers", []), child(path, "followers"))
    min_count = reader.integer(data["min_count"], child(path, "min_count"), 1)
    style = Style("polite_endings", endings=tuple(endings), followers=tuple(followers), min_count=min_count)
    return style, {"kind": style.kind, "endings": endings, "followers": followers, "min_count": min_count}
