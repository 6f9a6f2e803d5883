"""Compile every gettext catalogue (.po) of the project to .mo, with polib (no GNU gettext needed)."""

from __future__ import annotations

import sys
from pathlib import Path

import polib

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    catalogues = [p for p in ROOT.glob("**/locale/*/LC_MESSAGES/*.po") if ".venv" not in p.parts]
    for po_path in catalogues:
        mo_path = po_path.with_suffix(".mo")
        if mo_path.exists() and mo_path.stat().st_mtime >= po_path.stat().st_mtime:
            continue
        catalogue = polib.pofile(str(po_path))
        catalogue.save_as_mofile(str(mo_path))
        print(f"compiled {po_path.relative_to(ROOT)} ({catalogue.percent_translated()}% translated)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
