"""Guidelines and training URLs; included in the ``annotation`` namespace by annotation/urls.py."""

from django.urls import path

from annotation.collection import views_retraining, views_training
from annotation.guidelines import views as views_guidelines

urlpatterns = [
    path("guidelines/", views_guidelines.guidelines, name="guidelines"),
    path("training/", views_training.training_start, name="training"),
    path("training/practice/", views_training.practice, name="practice"),
    path("training/practice/<id:answer_id>/", views_training.practice_feedback, name="practice-feedback"),
    path("training/qualification/", views_training.qualification, name="qualification"),
    path("training/qualification/start/", views_training.qualification_start, name="qualification-start"),
    path(
        "training/qualification/<id:attempt_id>/",
        views_training.qualification_result,
        name="qualification-result",
    ),
    path("training/requalification/start/", views_retraining.requalification_start, name="requalification-start"),
    path(
        "research/qualifications/<id:user_id>/extend/",
        views_retraining.qualification_extension,
        name="qualification-extend",
    ),
    path("training/gold/", views_training.gold_items, name="gold-items"),
    path("training/results/", views_training.qualification_results, name="qualification-results"),
]
