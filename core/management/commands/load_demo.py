from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.demo import ensure_demo_accounts, load_parts


class Command(BaseCommand):
    help = "Create the demo accounts and load each part of the demo data set once (DEBUG/demo mode only)."

    def add_arguments(self, parser):
        parser.add_argument("--reload", action="store_true", help="load every part again even if loaded before")
        parser.add_argument(
            "--force", action="store_true", help="allow demo accounts while DEBUG is off (never on a real server)"
        )

    def handle(self, *args, reload: bool, force: bool, **options):
        if not settings.DEBUG and not force:
            raise CommandError("demo accounts have known passwords: run with DEBUG=1 (as `make run` does) or --force")
        for part, summary in load_parts(reload=reload):
            self.stdout.write(f"demo data: loaded {part}: {summary}")
        accounts = ensure_demo_accounts()
        self.stdout.write(self.style.MIGRATE_HEADING("Demo accounts (demo mode only): user name, password, role"))
        for account, password in accounts:
            extra = f" (+ {', '.join(account.groups)})" if account.groups else ""
            self.stdout.write(f"  {account.username:<12} {password:<14} {account.role}{extra}")
