"""Sessions of the rest of issue 20 (float sums in PyTorch's order, inference tensors, messages,
the names added since): `python tests/oracle/t20_sessions.py` (with torch installed) writes
tests/transcripts/oracle/<name>.txt from what PyTorch prints; the transcripts are committed, so
tests/lang/test_transcripts.py checks gradcli against them without torch, and
test_t20_transcripts.py checks that they are still what PyTorch prints."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from issue20_sessions import TRANSCRIPTS, transcript_text  # noqa: E402

# file stem -> {session title: snippet}
SESSIONS = {
    "pytorch_code_sums": {
        "float32 sums, means and norms print PyTorch's 17 digits": """\
import torch
x = torch.arange(2000.) / 100
y = 0.37 * x + 0.01
print(y.sum().item(), y.mean().item())
print(y.norm().item(), torch.linalg.vector_norm(y, 1).item(), y.norm(dim=0).item())
w = torch.arange(60000.).reshape(300, 200) / 7 - 1000
print(w.sum().item(), w.mean().item())
print(w.sum(0)[:3].tolist(), w.t().sum(1)[-3:].tolist())
print(w.mean(1, keepdim=True)[:2].tolist(), w.norm(dim=1)[:2].tolist())
print(w[:, ::3].sum().item(), w.t().norm().item())
""",
        "a long sum is split between threads, as PyTorch splits it": """\
import torch
threads = torch.get_num_threads()
v = torch.arange(100000.) / 3 - 10000
for n in [1, 2, 3, 4]:
    torch.set_num_threads(n)
    print(n, v.sum().item(), v.norm().item(), v.reshape(1000, 100).sum(0)[7].item())

torch.set_num_threads(threads)
torch.set_num_threads(0)
""",
        "a training loop prints the losses PyTorch prints": """\
import torch
torch.manual_seed(0)
X = torch.linspace(-1, 1, 2000).unsqueeze(1)
Y = 0.37 * X + 0.01
w = torch.zeros(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.5)
for step in range(6):
    opt.zero_grad()
    loss = ((X * w + b - Y) ** 2).mean()
    loss.backward()
    opt.step()
    print(step, loss.item(), w.item(), b.item())

""",
    },
}


def write_all():
    for stem, sessions in SESSIONS.items():
        (TRANSCRIPTS / f"{stem}.txt").write_text(transcript_text(sessions), encoding="utf-8")


if __name__ == "__main__":
    write_all()
