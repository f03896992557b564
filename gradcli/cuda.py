"""torch.cuda as a CPU-only build of PyTorch has it: no device is available."""

__all__ = ["is_available", "device_count"]


def is_available():
    return False


def device_count():
    return 0
