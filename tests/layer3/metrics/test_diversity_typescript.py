"""§4.4 against the seed's own TypeScript, run by Node on random specs: where no trial of a batch uses a type
outside the catalogue, every figure equals ``calculateWidgetDiversity(uiSpec, |catalogue|)``; with types outside
it, every trial's figures equal ``calculateWidgetDiversity(uiSpec, |W|)`` for the batch's one |W|."""

import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from layer3.metrics import calculate_widget_diversity, parse_ui_spec
from layer3.metrics.catalogue import DEFAULT_WIDGET_TYPES
from layer3.metrics.widget_types import available_types, merge_seen, outside_counts

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="needs Node.js to run the seed's TypeScript")
SEED = next((Path(__file__).resolve().parents[3] / ".." / "shared" / "seeds").glob("002_*.txt"), None)
FIXTURE = Path(__file__).with_name("seed_002_diversity.ts")
# Names that are array indices move to the front of Object.keys; names inherited from Object.prototype are left
# out, as the TypeScript's plain-object counter mangles them (layer3.metrics.diversity says so).
CATALOGUE = (*DEFAULT_WIDGET_TYPES[:13], "7", "10")
OUTSIDE = ("custom_chart", "custom_table", "3", "カスタム")
SEED_KEYS = ("selectedWidgets", "widgetCounts", "uniqueWidgetCount", "entropy", "normalizedEntropy", "maxEntropy")

HELPERS = """
function isPlanUISpec(spec) { return spec !== null && typeof spec === 'object' && 'sections' in spec; }
function getAllWidgetsFromUISpec(spec) {
  return [...spec.sections.diverge.widgets, ...spec.sections.organize.widgets, ...spec.sections.converge.widgets];
}
"""
MAIN = """
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(input.map(([spec, count]) => calculateWidgetDiversity(spec, count))));
"""


def seed_source() -> str:
    """The seed's §4.4 TypeScript as the fixture holds it (from its ``function`` line on)."""
    text = FIXTURE.read_text(encoding="utf-8")
    return text[text.index("/**") :]


def test_the_fixture_is_the_seed_s_own_code():
    if SEED is None:
        pytest.skip("seed 002 is not next to the project (../shared/seeds): the fixture is checked where it is")
    text = SEED.read_text(encoding="utf-8")
    section = text[text.index("### 4.4") :]
    start = section.index("```typescript") + len("```typescript")
    assert section[start : section.index("```", start)].strip() == seed_source().strip()


def seed_function() -> str:
    """``calculateWidgetDiversity`` of seed 002 §4.4 as the seed writes it, with its type annotations removed."""
    code = seed_source()
    signature, brace, body = code.partition("{")
    signature = re.sub(r"(\w+): (PlanUISpec \| UISpec|number)\b", r"\1", signature)  # parameter types
    signature = re.sub(r"\)\s*:\s*\w+\s*$", ")", signature)  # the return type
    body = re.sub(r"(const \w+): [^=]+=", r"\1 =", body)  # typed constants
    code = signature + brace + body
    assert "function calculateWidgetDiversity(" in code and ": number" not in code and "Record<" not in code
    return code


def random_spec(rng: random.Random, names) -> dict:
    def widgets(n):
        return [{"id": f"w{rng.randrange(10**6)}", "component": rng.choice(names), "config": {}} for _ in range(n)]

    bindings = {"bindings": []}
    if rng.random() < 0.3:
        return {"sections": {section: {"widgets": widgets(rng.randrange(0, 6))} for section in
                             ("diverge", "organize", "converge")}, "reactiveBindings": bindings}  # fmt: skip
    return {"widgets": widgets(rng.randrange(0, 25)), "reactiveBindings": bindings}


def run_typescript(cases) -> list[dict]:
    script = seed_function() + HELPERS + MAIN
    done = subprocess.run(
        [NODE, "-e", script], input=json.dumps(cases), capture_output=True, text=True, check=True, timeout=60
    )
    return json.loads(done.stdout)


def test_within_the_catalogue_every_figure_equals_the_seed_typescript_with_the_catalogue_size():
    rng = random.Random(20260214)
    specs = [random_spec(rng, rng.sample(CATALOGUE, rng.randrange(1, len(CATALOGUE) + 1))) for _ in range(400)]
    assert outside_counts(specs, CATALOGUE) == {}  # the batch's |W| is its catalogue
    types = available_types(CATALOGUE, [])
    expected = run_typescript([[spec, len(CATALOGUE)] for spec in specs])
    for spec, seed in zip(specs, expected, strict=True):
        ours = calculate_widget_diversity(parse_ui_spec(spec), catalogue=CATALOGUE, available_types=types)
        assert {key: ours[key] for key in SEED_KEYS} == seed
        assert list(ours["widgetCounts"]) == list(seed["widgetCounts"])  # Object.keys order, and the sums' order
        assert (ours["availableWidgetCount"], ours["outOfCatalogue"]) == (len(CATALOGUE), [])


def test_with_types_outside_the_catalogue_every_trial_equals_the_typescript_with_the_batch_s_one_count():
    rng = random.Random(7)
    names = (*CATALOGUE, *OUTSIDE)
    specs = [random_spec(rng, rng.sample(names, rng.randrange(1, 8))) for _ in range(300)]
    seen, _added = merge_seen([], outside_counts(specs, CATALOGUE))
    types = available_types(CATALOGUE, seen)
    assert len(types) == len(CATALOGUE) + len(OUTSIDE)
    expected = run_typescript([[spec, len(types)] for spec in specs])
    for spec, seed in zip(specs, expected, strict=True):
        ours = calculate_widget_diversity(parse_ui_spec(spec), catalogue=CATALOGUE, available_types=types)
        assert {key: ours[key] for key in SEED_KEYS} == seed
        assert ours["availableWidgetCount"] == len(types)
        assert ours["outOfCatalogue"] == [name for name in ours["widgetCounts"] if name not in CATALOGUE]
