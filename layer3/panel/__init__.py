"""The Layer3 panel: what its pages draw, in pure Python (no Django)."""
