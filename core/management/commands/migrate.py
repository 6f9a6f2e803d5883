"""Django's ``migrate``, with one step added: a new, empty database gets its schema at once (core.fresh_schema).

Everything else is Django's command, which runs after that step: it finds nothing left to apply, creates
the tables of apps without migrations, and sends ``post_migrate`` (content types, permissions).
``--replay`` replays the migrations one by one on a new database too.
"""

from django.core.management.commands import migrate
from django.db import connections
from django.db.migrations.executor import MigrationExecutor

from core import fresh_schema

# Options under which the command must see the migrations one by one (or change nothing).
REPLAY_OPTIONS = ("app_label", "migration_name", "fake", "fake_initial", "plan", "check_unapplied", "prune")


class Command(migrate.Command):
    help = migrate.Command.help + " A new, empty database gets the final schema at once (see --replay)."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument(
            "--replay",
            action="store_true",
            help="On a new, empty database too, apply the migrations one by one instead of creating "
            "the final schema at once (slower; the result is the same).",
        )

    def handle(self, *args, **options):
        if not options["replay"] and not any(options.get(name) for name in REPLAY_OPTIONS):
            self.create_fresh_schema(options["database"], options["verbosity"])
        super().handle(*args, **options)

    def create_fresh_schema(self, database: str, verbosity: int) -> None:
        connection = connections[database]
        connection.prepare_database()
        if not fresh_schema.is_fresh(connection):
            return  # a database with tables replays what it lacks (the migrations are loaded once, by Django)
        executor = MigrationExecutor(connection)
        if executor.loader.detect_conflicts():
            return  # Django's command reports them
        applied = fresh_schema.create(executor)
        if verbosity >= 1:
            self.stdout.write(
                self.style.MIGRATE_HEADING("New database:")
                + f" created the schema of {applied} migrations at once and recorded them as applied "
                "(--replay applies them one by one)."
            )
