import os

from core import startup_gc

startup_gc.pause()  # until django.setup() is done

from django.core.wsgi import get_wsgi_application  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_wsgi_application()

# gunicorn --preload (the Procfile) forks its workers after this: none may inherit an open connection.
from django.db import connections  # noqa: E402

connections.close_all()
