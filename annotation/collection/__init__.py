"""Collecting ratings: the work queue (portable and PostgreSQL paths), the rating forms and pages,
and the training and qualification that annotators pass first."""
