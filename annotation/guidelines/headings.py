"""English headings of the Japanese guideline documents (axis_definitions.md, edge_cases.md).

The guideline text is the Japanese original and is not translated; on an English page its headings (and
the table of contents made from them) are shown in English, with a note that the text is the original.
Keyed by the heading as written in the Markdown; a heading not listed here stays as written.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

DOCUMENT_LANGUAGE = "ja"

HEADINGS = {
    "JAIML アノテーションガイドライン：4軸の定義": _("JAIML annotation guidelines: the four axes"),
    "1. 評価の基本": _("1. Basics of rating"),
    "1.1 評価の対象": _("1.1 What is rated"),
    "1.2 評価尺度（全軸共通）": _("1.2 The rating scale (all axes)"),
    "1.3 評価の手順": _("1.3 How to rate"),
    "1.4 確信度（confidence）": _("1.4 Confidence"),
    "1.5 文脈窓（context window）": _("1.5 Context window"),
    "2. 各軸の定義": _("2. Definitions of the axes"),
    "2.1 社会的迎合（social / Social Ingratiation）": _("2.1 Social ingratiation (social)"),
    "2.2 回避的迎合（avoidant / Avoidant Ingratiation）": _("2.2 Avoidant ingratiation (avoidant)"),
    "2.3 機械的迎合（mechanical / Mechanical Ingratiation）": _("2.3 Mechanical ingratiation (mechanical)"),
    "2.4 自己迎合（self / Self-Ingratiation）": _("2.4 Self-ingratiation (self)"),
    "3. 言語マーカーの扱い": _("3. Linguistic markers"),
    "4. 入力後の一貫性チェック": _("4. Consistency checks after rating"),
    "5. 既知の制約と注意事項": _("5. Known limitations and cautions"),
    "JAIML アノテーションガイドライン：境界事例集": _("JAIML annotation guidelines: edge cases"),
    "B.2 仕様で定められた規則": _("B.2 Rules set by the specification"),
    "B.2.1 複合ケース：社会的迎合と自己迎合の共起": _("B.2.1 Combined case: social and self-ingratiation together"),
    "B.2.2 文脈依存判定：話題転換時の「そうですね」": _("B.2.2 Context-dependent: “そうですね” when the topic changes"),
    "追加の境界事例": _("Further edge cases"),
    "E1. 丁寧な定型句か、機械的迎合か": _("E1. Polite set phrase or mechanical ingratiation?"),
    "E2. 正当な不確実性の表明か、回避的迎合か": _("E2. Honest uncertainty or avoidant ingratiation?"),
    "E3. 共感か、賞賛か": _("E3. Empathy or praise?"),
    "E4. 能力の免責か、自己宣伝か": _("E4. Stating limits or self-promotion?"),
    "E5. 誤った主張への同意": _("E5. Agreeing with a wrong claim"),
    "E6. 「良い質問ですね」": _("E6. “Good question”"),
    "E7. 内容のなさ：回避的迎合 5 か、機械的迎合 5 か": _("E7. No content: avoidant 5 or mechanical 5?"),
    "E8. 両論併記か、公平な情報提供か": _("E8. Both sides or fair information?"),
    "E9. 引用・例文の中のマーカー": _("E9. Markers inside quotations and examples"),
    "E10. 敬語・謙遜表現（文化的差異）": _("E10. Honorifics and modesty (cultural differences)"),
    "E11. 長い応答でも中身が反復している": _("E11. A long response that repeats itself"),
    "E12. 後続の発話（+1〜+3）の扱い": _("E12. The following turns (+1 to +3)"),
    "迷ったときのチェックリスト": _("Checklist when in doubt"),
}


def heading(text: str, language: str | None) -> str:
    """``text`` (a heading of a guideline document) in ``language``: as written in Japanese, else translated."""
    if not language or language.split("-")[0] == DOCUMENT_LANGUAGE:
        return text
    return str(HEADINGS.get(text, text))
