import os

from core import startup_gc

startup_gc.pause()  # until django.setup() is done

from django.core.asgi import get_asgi_application  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_asgi_application()
