"""The annotation app's data: dialogues and batches, ratings and their history, the work queue,
training and qualification, reports and flags, judge audits, and the tallies and triggers the database keeps.

Every model is importable from here (``from annotation.models import Dialogue``); the modules
beside this one say what each group holds.
"""

from annotation.models.audit import (
    AuditAssignment,
    AuditGuidelinesRead,
    AuditItem,
    AuditRating,
    AuditRatingEdit,
    JudgeAudit,
)
from annotation.models.dialogue import Batch, Dialogue, DialogueRevision
from annotation.models.feedback import MonthlyFeedback
from annotation.models.imports import ImportOverride, ImportOverrideRating
from annotation.models.quality import AgreementReport, QualityFlag, QualityFlagReview
from annotation.models.queue import Assignment, QueueEntry
from annotation.models.rating import Annotation, AnnotationEdit, AnnotatorProfile
from annotation.models.review import Adjudication, ItemComment
from annotation.models.tally import RatingQuarter, RatingTotal
from annotation.models.training import GoldItem, QualificationAttempt, QualificationExtension, TrainingAnswer

__all__ = [
    "Adjudication",
    "AgreementReport",
    "Annotation",
    "AnnotationEdit",
    "AnnotatorProfile",
    "Assignment",
    "AuditAssignment",
    "AuditGuidelinesRead",
    "AuditItem",
    "AuditRating",
    "AuditRatingEdit",
    "Batch",
    "Dialogue",
    "DialogueRevision",
    "GoldItem",
    "ImportOverride",
    "ImportOverrideRating",
    "ItemComment",
    "JudgeAudit",
    "MonthlyFeedback",
    "QualificationAttempt",
    "QualificationExtension",
    "QualityFlag",
    "QualityFlagReview",
    "QueueEntry",
    "RatingQuarter",
    "RatingTotal",
    "TrainingAnswer",
]
