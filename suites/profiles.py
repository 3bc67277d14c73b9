"""Run profiles: model sizes, batch and rounds for CI (quick), this CPU (default) and a GPU (paper)."""
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Profile:
    """What one profile runs: per-model spec config and batch, and how many timed rounds."""
    name: str
    models: dict  # model name -> (spec config, batch)
    steady_rounds: int
    warmup_rounds: int
    cold_rounds: int  # construction: fresh variant, empty compile cache
    warm_rounds: int  # construction: fresh variant, populated on-disk compile cache (torch)
    construction_models: tuple = ("mnist_cnn", "vgg", "resnet")
    notes: str = ""
    parity_steps: int = 3


PROFILES = {
    "quick": Profile(
        "quick",
        {"mnist_cnn": ({}, 8),
         "vgg": ({"width": 1 / 16, "side": 32}, 2),
         "resnet": ({"stages": (1, 1, 1, 1), "width": 1 / 16, "side": 64}, 4)},
        steady_rounds=3, warmup_rounds=1, cold_rounds=1, warm_rounds=1,
        notes="CI smoke sizes; resnet uses one block per stage to keep compiles short"),
    "default": Profile(
        "default",
        {"mnist_cnn": ({}, 32),
         "vgg": ({"width": 1 / 8, "side": 32}, 16),
         "resnet": ({"depth": 50, "width": 1 / 4, "side": 64}, 8)},
        steady_rounds=30, warmup_rounds=3, cold_rounds=2, warm_rounds=2,
        construction_models=("mnist_cnn", "vgg", "resnet"),
        notes="sized for a 2-core CPU: the whole job in about 30 minutes"),
    "paper": Profile(
        "paper",
        {"mnist_cnn": ({}, 32),
         "vgg": ({"width": 1.0, "side": 224}, 16),
         "resnet": ({"depth": 152, "width": 1.0, "side": 224}, 16)},
        steady_rounds=50, warmup_rounds=5, cold_rounds=3, warm_rounds=3,
        notes="the seeds' scale (VGG16 and ResNet152V2 at 224x224, batch 16): meant for a GPU"),
}
