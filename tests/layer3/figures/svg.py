"""Reading the text of a figure's SVG, where every text is a group of glyph paths after a comment naming it."""

import re
from xml.etree import ElementTree

SVG_NS = "{http://www.w3.org/2000/svg}"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"


def parse(svg: bytes) -> ElementTree.Element:
    return ElementTree.fromstring(svg)


def texts(svg: bytes) -> list[str]:
    """The texts drawn, as matplotlib names them in the comment before each (with ``<``, ``>``, ``&`` escaped)."""
    parser = ElementTree.XMLParser(target=ElementTree.TreeBuilder(insert_comments=True))
    root = ElementTree.fromstring(svg, parser=parser)
    return [node.text.strip() for node in root.iter() if node.tag is ElementTree.Comment]


def glyphs(svg: bytes, text: str) -> list[str]:
    """The glyph ids the text ``text`` is drawn with (one ``<use>`` per character, spaces included)."""
    marker = f"<!-- {text} -->"
    source = svg.decode()
    start = source.index(marker) + len(marker)
    group = source[start : source.index("</g>", start)]
    return re.findall(r'<use xlink:href="#([^"]+)"', group)


def glyph_font(glyph_id: str) -> str:
    """``NotoSansCJKjp-Regular`` of ``NotoSansCJKjp-Regular-5e1``."""
    return glyph_id.rsplit("-", 1)[0]
