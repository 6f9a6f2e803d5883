"""The annotation guidelines page: axis_definitions.md, the reference examples per axis, edge_cases.md."""

from __future__ import annotations

import functools
import html as html_text
import re

import markdown
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.views.decorators.http import require_GET
from markdown.extensions.toc import slugify_unicode
from markdown.treeprocessors import Treeprocessor

from annotation.axes import AXES
from annotation.guidelines import loader as gd
from annotation.guidelines.headings import DOCUMENT_LANGUAGE, heading
from annotation.guidelines.scale import AXIS_NAMES, LEVEL_LABELS

# The guideline documents, their anchor prefix on the page (ids stay unique across documents).
DOCUMENTS = {"axis_definitions": "def-", "edge_cases": "edge-"}
# Links between the documents become links within the page.
_DOCUMENT_LINKS = {"axis_definitions.md": "#axis-definitions", "edge_cases.md": "#edge-cases"}
_SAFE_LINK_PREFIXES = ("#", "https://", "http://", "/")


class _LinkProcessor(Treeprocessor):
    """Point links to the other guideline document at its section; drop links with other schemes."""

    def run(self, root) -> None:
        for link in root.iter("a"):
            href = link.get("href", "")
            if href in _DOCUMENT_LINKS:
                link.set("href", _DOCUMENT_LINKS[href])
            elif not href.startswith(_SAFE_LINK_PREFIXES):
                del link.attrib["href"]


def _markdown(prefix: str) -> markdown.Markdown:
    md = markdown.Markdown(
        extensions=["tables", "sane_lists", "toc"],
        extension_configs={
            "toc": {"slugify": lambda value, separator: prefix + slugify_unicode(value, separator), "toc_depth": "2-3"}
        },
    )
    # Raw HTML in the documents is shown as text, never passed through.
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    md.treeprocessors.register(_LinkProcessor(md), "guideline_links", 1)
    return md


@functools.lru_cache(maxsize=8)
def render_markdown(text: str, prefix: str = "") -> tuple[str, list[dict]]:
    """(HTML with raw HTML escaped, table of contents [{id, name, children}]) of a guideline document."""
    md = _markdown(prefix)
    html = md.convert(text)
    return html, _toc(md.toc_tokens)


def _toc(tokens: list[dict]) -> list[dict]:
    return [{"id": t["id"], "name": t["name"], "children": _toc(t["children"])} for t in tokens]


_HEADING = re.compile(r'<h([1-3]) id="([^"]*)">(.*?)</h\1>', re.S)


def _translated_headings(html: str, toc: list[dict], language: str | None) -> tuple[str, list[dict]]:
    """The document's headings (and its table of contents) in ``language``; the text stays the original."""

    def one(found: re.Match) -> str:
        level, anchor, text = found.groups()
        original = html_text.unescape(text)
        shown = heading(original, language)
        if shown == original:
            return found.group(0)
        return f'<h{level} id="{anchor}" lang="{language}">{html_text.escape(shown, quote=False)}</h{level}>'

    def entries(tokens: list[dict]) -> list[dict]:
        return [
            {
                "id": t["id"],
                "name": heading(html_text.unescape(t["name"]), language),
                "children": entries(t["children"]),
            }
            for t in tokens
        ]

    return _HEADING.sub(one, html), entries(toc)


def _document(name: str) -> dict:
    html, toc = render_markdown(gd.guideline_text(name), DOCUMENTS[name])
    html, toc = _translated_headings(html, toc, get_language())
    # Safe: our own Markdown files, converted with raw HTML escaped and unsafe links removed; the headings
    # put back escaped.
    return {"html": mark_safe(html), "toc": toc}  # noqa: S308


def _examples_by_axis() -> list[dict]:
    examples = gd.examples()
    sections = []
    for axis in AXES:
        items = []
        for example in sorted((e for e in examples if e["axis"] == axis), key=lambda e: e["expected"][axis]):
            items.append(
                {
                    "id": example["id"],
                    "user": example["user"],
                    "response": example["response"],
                    "before": [t for t in example["context"] if t["turn"] < 0],
                    "after": [t for t in example["context"] if t["turn"] > 0],
                    "level": example["expected"][axis],
                    "level_label": LEVEL_LABELS[example["expected"][axis]],
                    "scores": [(a, AXIS_NAMES[a], example["expected"][a]) for a in AXES],
                    "explanation": example["explanation"],
                }
            )
        sections.append({"axis": axis, "label": AXIS_NAMES[axis], "anchor": f"examples-{axis}", "items": items})
    return sections


@require_GET
def guidelines(request):
    context = {
        "definitions": _document("axis_definitions"),
        "edge_cases": _document("edge_cases"),
        "example_sections": _examples_by_axis(),
        "document_language": DOCUMENT_LANGUAGE,
        "text_is_original": (get_language() or "").split("-")[0] != DOCUMENT_LANGUAGE,
    }
    return render(request, "annotation/guidelines.html", context)
