// calculateWidgetDiversity as seed 002 §4.4 writes it (copied verbatim below; a test checks the
// copy against the seed when the seed is beside the project). Run by tests/layer3/metrics/test_diversity_typescript.py.
/**
 * Widget選択の多様性を計算（Shannon Entropy）
 */
function calculateWidgetDiversity(
  uiSpec: PlanUISpec | UISpec,
  availableWidgetCount: number = 15  // 利用可能なWidget種別総数
): WidgetDiversityMetrics {
  const widgets = isPlanUISpec(uiSpec)
    ? getAllWidgetsFromUISpec(uiSpec)
    : uiSpec.widgets;

  // Widget種別ごとの出現回数をカウント
  const widgetCounts: Record<string, number> = {};
  for (const widget of widgets) {
    widgetCounts[widget.component] = (widgetCounts[widget.component] ?? 0) + 1;
  }

  const selectedWidgets = Object.keys(widgetCounts);
  const uniqueWidgetCount = selectedWidgets.length;
  const totalWidgets = widgets.length;

  // Shannon Entropy 計算
  let entropy = 0;
  if (totalWidgets > 0) {
    for (const count of Object.values(widgetCounts)) {
      const p = count / totalWidgets;
      if (p > 0) {
        entropy -= p * Math.log2(p);
      }
    }
  }

  // 最大エントロピー（全Widget種別が均等に選択された場合）
  const maxEntropy = Math.log2(availableWidgetCount);

  // 正規化エントロピー
  const normalizedEntropy = maxEntropy > 0 ? entropy / maxEntropy : 0;

  return {
    selectedWidgets,
    widgetCounts,
    uniqueWidgetCount,
    entropy: Math.round(entropy * 10000) / 10000,
    normalizedEntropy: Math.round(normalizedEntropy * 10000) / 10000,
    maxEntropy: Math.round(maxEntropy * 10000) / 10000,
  };
}
