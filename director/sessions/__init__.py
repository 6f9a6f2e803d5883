"""The Director's session state across turns (seed 004 §8, §9): pure, no Django.

``state`` holds the current topic, its hook depth and loop counter, the turn and the pending
interventions (次回指示), finds topic loops and early topic changes, and advances on accepted turns only.
"""
