import torch
import torch.nn as nn
from torch.func import stack_module_state, functional_call, vmap
torch.manual_seed(0)
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.fc2 = nn.Linear(4, 2)
    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))
num_models = 3
models = [MLP() for _ in range(num_models)]
params, buffers = stack_module_state(models)
print({k: v.shape for k, v in params.items()}, buffers)
print(params['fc1.bias'])
base_model = models[0]
def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))
minibatch = torch.randn(5, 3)
predictions = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
expected = torch.stack([m(minibatch) for m in models])
print(predictions.shape, torch.allclose(predictions, expected, atol=1e-6))
predictions2 = vmap(fmodel, in_dims=(0, 0, 0))(params, buffers, torch.randn(3, 5, 3))
print(predictions2.shape)
