"""A collection where the right recommendation is known: three topics with their own words.

Each paper mixes common words with words of its topic, so a model trained on a few papers of one
topic must rank that topic's other papers first. Generated from a fixed seed: the same file
every time.
"""

from __future__ import annotations

import json
import random
from pathlib import Path


def _words(text: str) -> list[str]:
    return text.split()


COMMON = _words(
    "method results propose show experiments approach performance model data learning tasks "
    "framework benchmark analysis training evaluation improve novel efficient study"
)
TOPICS = {
    "diffusion": _words("diffusion denoising guidance sampler score noise schedule generative image"),
    "graph": _words("graph node edge message passing neighborhood molecule topology spectral"),
    "bandit": _words("bandit regret arm exploration reward policy horizon confidence"),
    "speech": _words("speech acoustic phoneme speaker audio recognition waveform transcription"),
    "privacy": _words("privacy differential private leakage membership attack federated clients"),
    "robot": _words("robot manipulation grasping locomotion control sim2real actuator trajectory"),
    "protein": _words("protein folding residue sequence structure binding enzyme amino"),
    "causal": _words("causal intervention confounder counterfactual treatment effect instrument dag"),
}
PER_TOPIC = 15


def papers() -> list[dict[str, object]]:
    rng = random.Random(7)
    out: list[dict[str, object]] = []
    for topic, words in TOPICS.items():
        for n in range(PER_TOPIC):
            title = " ".join(rng.sample(words, 3) + rng.sample(COMMON, 2)).capitalize()
            body = rng.choices(words, k=12) + rng.choices(COMMON, k=25)
            rng.shuffle(body)
            out.append(
                {
                    "title": f"{title} {topic} study {n}",
                    "abstract": " ".join(body) + ".",
                    "authors": [f"Author {topic.capitalize()}{n}"],
                    "year": 2020 + n % 5,
                    "venue": "TestConf",
                }
            )
    rng.shuffle(out)
    return out


def write(folder: Path) -> Path:
    """The collection as a JSON Lines file in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "topics.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in papers()), "utf-8")
    return path


def topic_of(title: str) -> str:
    return next(t for t in TOPICS if f" {t} study " in title)
