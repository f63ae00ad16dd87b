"""A realistic-ish synthetic corpus: JSON Lines papers shaped like paperlists-87k, fixed seed.

Words follow a Zipf law over a technical vocabulary plus a long tail of invented method names, with
function words between them, so term frequencies, phrases and title prefixes behave like the real
thing. Same seed and count, same bytes.
"""

from __future__ import annotations

import gzip
import itertools
import json
import random
from collections.abc import Iterator
from pathlib import Path

SEED = 20260131


def _words(text: str) -> list[str]:
    return text.split()


_CORE = _words("""
learning model models neural network networks deep data training method methods approach
performance results task tasks image images graph graphs optimization algorithm algorithms
representation representations reinforcement policy agent agents language large transformer
attention generative diffusion adversarial robust robustness estimation inference bayesian
variational latent feature features classification segmentation detection object objects scene
video temporal spatial point cloud clouds depth pose camera robot robots manipulation control
planning trajectory navigation dataset datasets benchmark benchmarks evaluation experiments
state art framework frameworks propose proposed novel efficient scalable accuracy loss function
gradient descent stochastic convex nonconvex convergence theoretical analysis bound bounds regret
bandit bandits online offline supervised unsupervised semi self contrastive pretraining
fine tuning prompt prompts reasoning retrieval knowledge text speech audio visual multimodal
vision semantic instance domain adaptation transfer generalization distribution shift causal
fairness privacy federated differential uncertainty calibration sparse sparsity low rank matrix
tensor kernel gaussian process processes sampling monte carlo markov chain equation equations
physics simulation simulated real world sensor sensors lidar tracking mapping localization slam
reconstruction rendering radiance fields implicit surface mesh shape shapes synthesis editing
style generation captioning question answering dialogue translation summarization entity
relation extraction parsing token tokens embedding embeddings encoder decoder architecture
convolutional recurrent memory hierarchical modular multi agent cooperative game games
equilibrium mechanism auction clustering dimensionality reduction manifold metric similarity
distance contrastive hashing compression quantization pruning distillation inference latency
hardware energy consumption edge devices mobile autonomous driving vehicle vehicles pedestrian
human humans motion hand grasp grasping tactile legged locomotion quadruped humanoid arm
medical clinical patient patients molecular protein drug chemistry materials climate weather
forecasting time series anomaly detection recommendation ranking search query user users
""")

_PHRASES = [
    "neural network",
    "reinforcement learning",
    "large language models",
    "point cloud",
    "state of the art",
    "graph neural networks",
    "diffusion models",
    "object detection",
    "semantic segmentation",
    "domain adaptation",
    "self supervised learning",
    "federated learning",
    "gradient descent",
    "language model",
    "autonomous driving",
    "pose estimation",
    "knowledge distillation",
    "contrastive learning",
    "vision transformer",
    "zero shot",
    "few shot learning",
    "multi task learning",
    "monte carlo",
    "gaussian processes",
    "stochastic gradient descent",
    "robot manipulation",
    "visual odometry",
    "neural radiance fields",
]

_FUNCTION = _words("""
the of and to a in we for is that on with by as this are our from an which it be can at these
both such its than their into using based while show also has have over between through without
across under more most new two three
""")
_FIRST = _words("""
Wei Yang Jun Li Anna Maria David Michael Sarah Laura Chen Hao Yu Xin Sergey Elena Juan Carlos Priya
Arjun Fatima Omar Kenji Yuki Min Ji Lukas Sophie Pierre Marco Giulia Ivan Olga Tomasz Ana Pedro
Hannah Noah Emma Lucas Mia Ethan Zoe Ravi Ahmed Leila
""")
_LAST = _words("""
Zhang Wang Li Liu Chen Yang Huang Zhao Wu Zhou Smith Johnson Brown Garcia Miller Davis Martinez
Lopez Kim Park Lee Nguyen Tran Kumar Singh Sharma Patel Müller Schmidt Schneider Fischer Rossi
Russo Dubois Martin Bernard Ivanov Petrov Kowalski Tanaka Suzuki Sato Sandström Nakamura Okafor
Mensah Haddad Cohen Levi
""")
_VENUES = _words("""
icml neurips iclr cvpr iccv eccv iros icra aistats ijcai aaai acl emnlp naacl coling wacv corl rss
uai colt kdd www sigir 3dv
""")
_SYLLABLES = _words("""
ra ze lo mi ka to vi ne su pa dri fo gra ten bel cor dex flu gen hal ion jet kin lum mor nex orb
pix quo rix syn tor uni vox wav xel yon zen
""")


class Vocabulary:
    """Content words with Zipf weights: the core list first, then invented names and numbers."""

    def __init__(self, rng: random.Random, tail: int = 30000) -> None:
        words = list(dict.fromkeys(_CORE))
        units = [*_PHRASES, *words]
        rng.shuffle(units)
        seen = set(units)
        while len(units) < len(words) + len(_PHRASES) + tail:
            word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))
            if rng.random() < 0.15:
                word = word.capitalize() + rng.choice(("Net", "GAN", "3D", "Former", "SLAM", "-X"))
            elif rng.random() < 0.05:
                word += str(rng.randint(2, 99))
            if word not in seen:
                seen.add(word)
                units.append(word)
        self.units = units
        head = len(words) + len(_PHRASES)  # invented names are rarer than the field's own words
        self.cum = list(
            itertools.accumulate(
                (1.0 if rank < head else 0.12) / (rank + 8) ** 1.05 for rank in range(len(units))
            )
        )

    def draw(self, rng: random.Random, k: int) -> list[str]:
        return rng.choices(self.units, cum_weights=self.cum, k=k)


def _sentence(rng: random.Random, vocab: Vocabulary, length: int) -> str:
    content = vocab.draw(rng, length)
    out: list[str] = []
    for word in content:
        if rng.random() < 0.8:
            out.append(rng.choice(_FUNCTION))
        out.append(word)
    text = " ".join(out)
    if rng.random() < 0.03:
        text += f" with $\\eta = {rng.randint(1, 9)}$"
    if rng.random() < 0.02:
        text = text.replace(content[0], f"*{content[0]}*", 1)
    return text[0].upper() + text[1:] + "."


def _title(rng: random.Random, vocab: Vocabulary) -> str:
    words = [w.capitalize() if w.islower() else w for w in vocab.draw(rng, rng.randint(3, 8))]
    if rng.random() < 0.35:
        name = "".join(rng.choice(_SYLLABLES) for _ in range(2)).capitalize() + rng.choice(
            ("", "Net", "3D", "GS", "-LM")
        )
        return f"{name}: {' '.join(words)}"
    glue = rng.choice((" for ", " via ", " with ", " in ", " of ", " and "))
    cut = max(1, len(words) // 2)
    return " ".join(words[:cut]) + glue + " ".join(words[cut:])


def paper(rng: random.Random, vocab: Vocabulary, serial: int) -> dict[str, str]:
    sentences = [_sentence(rng, vocab, rng.randint(6, 16)) for _ in range(rng.randint(3, 9))]
    sentences.append(f"Code is available at https://example.org/p{serial}.")
    count = rng.randint(1, 8)
    authors = ";".join(f"{rng.choice(_FIRST)} {rng.choice(_LAST)}" for _ in range(count))
    return {
        "title": _title(rng, vocab),
        "authors": authors,
        "abstract": " ".join(sentences),
        "venue": f"{rng.choice(_VENUES)}{rng.randint(2013, 2024)}",
        "url": f"https://openreview.net/forum?id=b{serial:07d}",
    }


def papers(count: int, seed: int = SEED, start: int = 0) -> Iterator[dict[str, str]]:
    """``count`` papers; ``start`` offsets the stream so appended papers are new ones."""
    vocab = Vocabulary(random.Random(seed))
    rng = random.Random(seed * 1000003 + start)
    for serial in range(start, start + count):
        yield paper(rng, vocab, serial)


def jsonl(records: Iterator[dict[str, str]]) -> bytes:
    return b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in records)


def write(path: Path, count: int, seed: int = SEED, start: int = 0) -> Path:
    """Write ``count`` papers as JSON Lines (gzipped when the name ends in .gz)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    stream = papers(count, seed, start)
    with open(path, "wb") as raw:
        fh = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6) if path.name.endswith(".gz") else raw
        while chunk := list(itertools.islice(stream, 2000)):
            fh.write(jsonl(iter(chunk)))
        if fh is not raw:
            fh.close()
    return path


if __name__ == "__main__":  # python -m bench.corpusgen OUT [COUNT]
    import sys

    out = write(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 87428)
    print(out)
