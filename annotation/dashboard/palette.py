"""Line colours of the annotators in the plots (pure): an annotator sorted n-th gets the n-th style.

Okabe-Ito, colour-blind safe; after seven annotators the dash pattern tells lines apart.
"""

PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000")
DASHES = ("", "6 3", "2 3", "8 3 2 3")


def line_style(n: int) -> tuple[str, str]:
    """(colour, stroke-dasharray) of the n-th line."""
    return PALETTE[n % len(PALETTE)], DASHES[(n // len(PALETTE)) % len(DASHES)]
