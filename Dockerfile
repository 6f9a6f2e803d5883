# One image for every process of the Procfile; compose.yaml runs each as a service (`honcho start NAME`).
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    LISTEN_HOST=0.0.0.0

WORKDIR /app
COPY requirements.txt .
RUN pip install -r requirements.txt
COPY . .
# Translations and the project's bytecode compiled into the image (with PYTHONDONTWRITEBYTECODE every process
# would otherwise compile ~400 modules at each start: +0.2 s to django.setup(), bench/startup.py --no-bytecode);
# var/ (VAR_DIR: beat's schedule) writable by the app's user only.
RUN python scripts/compile_translations.py \
    && python -m compileall -q . \
    && useradd --system --create-home --home-dir /home/app --shell /usr/sbin/nologin app \
    && mkdir -p var && chown app:app var && chmod 700 var
USER app

EXPOSE 8000 8001
CMD ["honcho", "start"]
