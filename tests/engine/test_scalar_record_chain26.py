"""What the specialised call of a one- or two-input op gives a result it records (the node first,
then the result with its history; a 0-d float result of a two-input op made inline): its
flags, node, version and output number, a view's base, saved-tensor hooks and the pass through
it, as PyTorch gives them."""

import gradcli


def _facts(lib):
    x = lib.tensor(0.5, dtype=lib.float64, requires_grad=True)
    w = lib.tensor(2.0, dtype=lib.float32, requires_grad=True)
    v = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    results = {
        "mul_number": x * 3.0, "radd_number": 3.0 + x, "add": x * 3.0 + x,
        "sin": (x + x).sin(), "float32": w * w, "vector": v * x, "compare": x < 1.0,
        "view": v.unsqueeze(0), "view_of_result": (v * 2.0).unsqueeze(1),
        "no_grad_input": lib.tensor(1.5, dtype=lib.float64) * 2.0,
    }
    facts = {}
    for name, t in results.items():
        fn = t.grad_fn
        facts[name] = [t.requires_grad, t.is_leaf, None if fn is None else fn.name(),
                       t._version, t.output_nr, str(t.dtype).replace("torch.", ""),
                       t._base is not None]
    facts["view_base_is_input"] = results["view"]._base is v
    packed = []
    with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.shape) or t,
                                                lambda t: t):
        q = x * x
        r = q.sin()
    facts["packed"] = [list(s) for s in packed]
    r.backward()
    facts["grad"] = x.grad.item()
    chain = x
    for _ in range(8):
        chain = chain * w.double() + x
    chain.backward(retain_graph=True)
    facts["chain_grads"] = [x.grad.item(), w.grad.item()]
    facts["saved_other"] = type(chain.grad_fn.next_functions[0][0]).__name__
    return facts


def test_recorded_results_are_pytorchs(oracle):
    expected = oracle(_facts)
    assert _facts(gradcli) == expected
