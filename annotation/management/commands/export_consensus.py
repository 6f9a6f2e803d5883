from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.aggregation.consensus import METHODS, merge_with_exclusions
from annotation.axes import MIN_CONFIDENCE, MIN_KAPPA
from annotation.io.dataset import rating_set
from annotation.management.commands._common import add_float_option, output_file, write_jsonl
from annotation.models import Batch
from annotation.review.selectors import batch_consensus
from annotation.selectors import annotation_records


class Command(BaseCommand):
    help = (
        "Merge the stored ratings into consensus JSONL (the merge_annotations rules, read from the database "
        "instead of files); rejected items go to a second file. With --batch, researchers' adjudications "
        'replace the merged score of the axes they decided (marked under "adjudicated").'
    )

    def add_arguments(self, parser):
        parser.add_argument("--output", "-o", required=True, metavar="FILE", type=output_file)
        parser.add_argument("--batch", help="only dialogues of this batch")
        parser.add_argument("--method", choices=METHODS, default="weighted_average")
        add_float_option(parser, "min_kappa", MIN_KAPPA, "leave out an annotator on an axis below this kappa")
        add_float_option(parser, "min_confidence", MIN_CONFIDENCE, "leave out ratings below this confidence")
        parser.add_argument(
            "--rejected", metavar="FILE", type=output_file, help="default: rejected/low_agreement.jsonl beside --output"
        )

    def handle(self, *args, output, batch, method, min_kappa, min_confidence, rejected, **options):
        stored = Batch.objects.filter(name=batch).first() if batch else None
        if batch and stored is None:
            raise CommandError(f"no batch named {batch!r}")
        if stored is not None:  # one batch: its adjudications apply
            merged = batch_consensus(stored, method=method, min_kappa=min_kappa, min_confidence=min_confidence)
        else:
            records = annotation_records()
            merged = records and merge_with_exclusions(
                rating_set(records), method=method, min_kappa=min_kappa, min_confidence=min_confidence
            )
        if not merged:
            raise CommandError("no ratings stored" + (f" in batch {batch}" if batch else ""))
        result, summary = merged
        rejected_path = Path(rejected) if rejected else Path(output).parent / "rejected" / "low_agreement.jsonl"
        n_consensus = write_jsonl(output, result.consensus)
        n_rejected = write_jsonl(rejected_path, result.rejected)
        for axis, listing in summary["annotators"].items():
            for entry in listing["excluded"]:
                self.stdout.write(f"left out of {axis}: {entry['annotator']} (kappa {entry['kappa_vs_rest']:.3f})")
        adjudicated = summary["adjudicated_items"]
        self.stdout.write(
            self.style.SUCCESS(
                f"{n_consensus} consensus items ({method}) written to {output}; "
                f"{n_rejected} rejected to {rejected_path}"
                + (f"; {adjudicated} items with adjudicated axes" if adjudicated else "")
            )
        )
