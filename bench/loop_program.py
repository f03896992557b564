"""The loop workload of bench/bench_suite.py on the Python API: the same code as
bench/loop_program.grad (the suite checks that the text from the BODY marker down is identical).

    python bench/loop_program.py            # gradcli's Python API (import gradcli as torch)
    LOOP_IMPL=torch python bench/loop_program.py   # the same code on PyTorch
"""
import os

if os.environ.get("LOOP_IMPL") == "torch":
    import torch
else:
    import gradcli as torch
# --- BODY ---
x = torch.tensor([1.0, 2.0, 3.0, 4.0])
y = 3 * x + 1
w = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
lr = 0.01
checkpoints = 0
for step in range(20000):
    loss = ((w * x + b - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
    if step % 1000 == 0:
        checkpoints += 1
print(f"w = {w.item():.4f}, b = {b.item():.4f}, checkpoints = {checkpoints}")
