from io import StringIO

from django.core.management import call_command


def test_models_and_migrations_agree(db):
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()
