"""The Layer3 part of the demo data set: 125 synthetic trials over model configs A–E, evaluated.

The trials come from ``layer3.demo.generator`` (seeded, written for this project; two with damaged
generated data, to show how evaluation reports them); they are imported as a researcher would
(``import_trials``) and evaluated with the offline baseline judge for both judged metrics, so the
batch's results, statistics and exports have something to show without an LLM endpoint.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

BATCH = "demo-layer3"
EXPERIMENT = "demo-experiment"
TRIALS = 125
BROKEN = (37, 88)  # trials whose generated data is damaged, to show how evaluation reports it


def load() -> str:
    from layer3.demo.generator import break_generated_data, generate_trials
    from layer3.io.imports import trials_import
    from layer3.models import Batch
    from layer3.runs.options import EvaluationOptions
    from layer3.runs.services import layer3_run_create, layer3_run_execute

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "demo-trials.jsonl"
        with path.open("w", encoding="utf-8") as handle:
            trials = generate_trials(TRIALS, broken_share=0.0)
            for number in BROKEN:
                break_generated_data(trials[number]["generatedData"])
            for trial in trials:
                handle.write(json.dumps(trial, ensure_ascii=False) + "\n")
        summary = trials_import(paths=[path], batch_name=BATCH, experiment_id=EXPERIMENT)
    batch = Batch.objects.get(name=BATCH)
    options = EvaluationOptions(judge="baseline", evaluate_w2wr_semantic=True)
    run = layer3_run_execute(run=layer3_run_create(batch=batch, options=options))
    return (
        f"Layer3 batch {BATCH}: {summary.created} trials, {run.evaluated_count} evaluated with the baseline judge, "
        f"{run.error_count} with broken generated data"
    )
