from django.core.management.base import BaseCommand

from annotation.audits.queue import expire_all_reservations
from annotation.collection.queue import RESERVATION_MINUTES, expire_reservations


class Command(BaseCommand):
    help = (
        f"Give back the slots of work-queue and judge-audit reservations older than {RESERVATION_MINUTES} minutes "
        "(Celery beat runs this every 5 minutes; the queue also does it by itself when it finds nothing free)."
    )

    def handle(self, *args, **options):
        released = expire_reservations()
        audits = expire_all_reservations()
        self.stdout.write(
            self.style.SUCCESS(f"released {released} expired reservation(s) and {audits} of judge audits")
        )
