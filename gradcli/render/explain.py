"""The explanation of a backward pass as text (SPEC §3 explain)."""

from .values import short_value, value_text, wrt


def render_explanation(ev, out_name, steps):
    """The explanation as text; steps: gradcli.analysis.explain.explain_steps(ev, out_name)."""
    out = ev.values[out_name]
    lines = []
    leaves = ", ".join(f"{n} = {short_value(t)}" for n, t in ev.leaves.items())
    lines.append(f"backward pass of {out_name}" + (f" at {leaves}" if leaves else ""))
    if not steps:
        reason = next((r for (o, _), r in ev.reasons.items() if o == out_name), None)
        lines.append(f"  no backward steps: {reason or out_name + ' has no graph'}")
        return "\n".join(lines)
    lines.append("")
    lines.append("forward")
    for op in steps.forward:
        text = f"{op.name} = {op.expression}" if op.name else op.expression
        lines.append(f"  {text}  ->  {short_value(op.value)}")
    lines.append("")
    seed = "1" if getattr(out, "numel", lambda: 0)() == 1 else "the given gradient"
    lines.append(f"backward (chain rule, in the order autograd runs it; d{out_name}/d{out_name} = {seed})")
    for step in steps:
        lines.append(f"  [{step.index}] {step.node}   {step.expression}")
        if step.formula:
            lines.append(f"      local derivative: {step.formula}")
        defined = step.defined_incoming()
        incoming = ", ".join(short_value(g) + (f" ({label})" if label else "")
                             for label, g in defined) or "None"
        # the factor of the chain-rule product: the one defined incoming gradient
        factor = short_value(defined[0][1]) if len(defined) == 1 else incoming
        lines.append(f"      incoming gradient d{out_name}/d(output) = {incoming}")
        for c in step.contributions:
            target = c.accumulates or c.target
            if c.local is not None:
                lines.append(f"      d{out_name}/d{wrt(c.target)} += {factor} * {c.local} = "
                             f"{short_value(c.gradient)}")
            else:
                lines.append(f"      d{out_name}/d{wrt(c.target)} += {short_value(c.gradient)}")
            if c.accumulates:
                lines.append(f"      -> accumulates into {target}")
        if step.kink:
            lines.append(f"      kink: {step.kink}")
    lines.append("")
    for leaf, g in ev.gradients.get(out_name, {}).items():
        label = f"d{out_name}/d{leaf}"
        lines.append(f"{label} = {value_text(g, indent=len(label) + 3)}")
        why = ev.reasons.get((out_name, leaf))
        if why:
            lines.append(f"  why: {why}")
    return "\n".join(lines)


def explanation_json(ev, out_name, steps):
    """The explanation as data (`explain --json`): the leaves' values, the forward
    computation, each backward step (node, expression, local derivative formula, incoming
    gradient, what it passes to each input and where it accumulates, kinks), the gradients and
    the why of a missing or zero one."""
    from .values import to_json
    forward = [{"name": op.name, "expression": op.expression, "value": to_json(op.value)}
               for op in steps.forward]
    json_steps = []
    for step in steps:
        defined = step.defined_incoming()
        json_steps.append({
            "index": step.index, "node": step.node, "expression": step.expression,
            "formula": step.formula or None,
            "incoming": [{"of": label, "gradient": to_json(g)} for label, g in defined],
            "contributions": [{"target": c.target,
                               "local": float(c.local) if c.local is not None else None,
                               "gradient": to_json(c.gradient), "accumulates": c.accumulates}
                              for c in step.contributions],
            "kink": step.kink})
    gradients = ev.gradients.get(out_name, {})
    return {"output": out_name, "value": to_json(ev.values.get(out_name)),
            "at": {n: to_json(t) for n, t in ev.leaves.items()},
            "forward": forward, "steps": json_steps,
            "gradients": {leaf: to_json(g) for leaf, g in gradients.items()},
            "why": {leaf: ev.reasons[(out_name, leaf)] for leaf in gradients
                    if ev.reasons.get((out_name, leaf))}}
