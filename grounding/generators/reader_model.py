"""The reader's two small linear models, loaded from the weights file shipped in the package.

`ranker` scores each answer unit (how likely it holds the answer); `answerer` gives the
probability that the packet answers the question at all, from the best units' scores and the
question's coverage. Both are logistic regressions over standardised features, trained by
`training/train_reader.py` (rerun it to rebuild `reader_weights.json`); numpy only at run time.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from grounding.generators.reading import QUESTION_FEATURES, UNIT_FEATURES
from retrieval.errors import DocbotError

WEIGHTS = Path(__file__).with_name("reader_weights.json")


@dataclass(frozen=True, slots=True)
class Linear:
    features: tuple[str, ...]
    mean: npt.NDArray[np.float64]
    scale: npt.NDArray[np.float64]
    weights: npt.NDArray[np.float64]
    bias: float

    def logits(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """A NaN (a feature this row does not define) stands at the feature's mean: it weighs
        nothing either way."""
        z = np.nan_to_num((x - self.mean) / self.scale, nan=0.0)
        result: npt.NDArray[np.float64] = z @ self.weights + self.bias
        return result

    def to_json(self) -> dict[str, object]:
        return {
            "features": list(self.features),
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "weights": self.weights.tolist(),
            "bias": self.bias,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], expected: tuple[str, ...]) -> Linear:
        features = tuple(str(f) for f in data["features"])
        if features != expected:
            raise DocbotError(
                f"{WEIGHTS.name} was trained on features {features}, but the reader computes "
                f"{expected}: rerun `python training/train_reader.py`"
            )
        return cls(
            features,
            np.asarray(data["mean"], dtype=np.float64),
            np.asarray(data["scale"], dtype=np.float64),
            np.asarray(data["weights"], dtype=np.float64),
            float(data["bias"]),
        )


@dataclass(frozen=True, slots=True)
class ReaderModel:
    ranker: Linear
    answerer: Linear
    threshold: float  # answer when the answerer's probability reaches this
    extra_ratio: float  # a further passage must have this share of the best one's probability
    trained_on: str = ""  # what the training script read, for people

    def to_json(self) -> dict[str, object]:
        return {
            "ranker": self.ranker.to_json(),
            "answerer": self.answerer.to_json(),
            "threshold": self.threshold,
            "extra_ratio": self.extra_ratio,
            "trained_on": self.trained_on,
        }


def sigmoid(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    result: npt.NDArray[np.float64] = 1.0 / (1.0 + np.exp(-np.clip(x, -30.0, 30.0)))
    return result


def softmax(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The ranker's logits as one distribution over a packet's units."""
    shifted = np.exp(x - x.max())
    result: npt.NDArray[np.float64] = shifted / shifted.sum()
    return result


@functools.cache
def load_model(path: Path = WEIGHTS) -> ReaderModel:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return ReaderModel(
            Linear.from_json(data["ranker"], UNIT_FEATURES),
            Linear.from_json(data["answerer"], QUESTION_FEATURES),
            float(data["threshold"]),
            float(data["extra_ratio"]),
            str(data.get("trained_on", "")),
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DocbotError(
            f"cannot read the reader's weights {path} ({exc}): reinstall docbot, or rebuild them "
            "with `python training/train_reader.py`"
        ) from exc
