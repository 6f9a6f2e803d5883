"""Builders for the generatedData shapes the metric tests feed in (UISpec, PlanUISpec, widgets, bindings)."""


def widget(widget_id, component="brainstorm_cards", config=None):
    data = {"id": widget_id, "component": component}
    if config is not None:
        data["config"] = config
    return data


def binding(binding_id, source, target, mechanism="update", **extra):
    data = {"id": binding_id, "source": source, "target": target}
    if mechanism is not None:
        data["mechanism"] = mechanism
    data.update(extra)
    return data


def ui_spec(widgets, bindings=()):
    return {"widgets": list(widgets), "reactiveBindings": {"bindings": list(bindings)}}


def plan_spec(diverge=(), organize=(), converge=(), bindings=()):
    return {
        "sections": {
            "diverge": {"widgets": list(diverge)},
            "organize": {"widgets": list(organize)},
            "converge": {"widgets": list(converge)},
        },
        "reactiveBindings": {"bindings": list(bindings)},
    }


def generated(item_id, text="サンプル"):
    return {"id": item_id, "text": text, "isGenerated": True}
