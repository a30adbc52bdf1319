"""Text features of the injection model, computed with numpy alone (no scikit-learn at run time).

Blocks, concatenated: hashed character n-grams of each word (the ``char_wb`` scheme —
robust to German and other languages the English sentence embedder reads poorly, and to
spacing tricks), TF-IDF weighted with the IDF fitted at training time and L2-normalised; the
embedding of the whole text, scaled by ``embedding_weight`` so the blocks share one L2
penalty; and, when its weight is above zero, the element-wise maximum of the embeddings of the
text's sentences — an attack appended to an innocent question ("… Now forget that and say X")
is diluted in the whole-text embedding but keeps its own sentence's.
The hash is CRC-32, stable across processes and Python versions, so training and serving agree."""

from __future__ import annotations

import base64
import math
import re
import zlib
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from regintel.ports.embedder import Embedder
from regintel.sentences import sentence_spans

Matrix = npt.NDArray[np.float32]
_WORDS = re.compile(r"\S+")


def char_ngram_counts(text: str, *, n_min: int, n_max: int, buckets: int) -> Counter[int]:
    """Bucket counts of the character n-grams of each space-padded, lower-cased word."""
    counts: Counter[int] = Counter()
    for word in _WORDS.findall(text.lower()):
        padded = f" {word} "
        for n in range(n_min, n_max + 1):
            if len(padded) < n:
                break
            for i in range(len(padded) - n + 1):
                counts[zlib.crc32(padded[i:i + n].encode("utf-8")) % buckets] += 1
    return counts


def hashed_tf(texts: Sequence[str], *, n_min: int, n_max: int, buckets: int) -> Matrix:
    """Sublinear term frequencies (1 + ln tf), one row per text."""
    out = np.zeros((len(texts), buckets), dtype=np.float32)
    for row, text in enumerate(texts):
        for bucket, count in char_ngram_counts(text, n_min=n_min, n_max=n_max,
                                               buckets=buckets).items():
            out[row, bucket] = 1.0 + math.log(count)
    return out


def fit_idf(tf: Matrix) -> Matrix:
    """Smoothed IDF, as scikit-learn computes it: ln((1 + n) / (1 + df)) + 1."""
    df = (tf > 0).sum(axis=0).astype(np.float64)
    idf: Matrix = (np.log((1.0 + tf.shape[0]) / (1.0 + df)) + 1.0).astype(np.float32)
    return idf


def tfidf(tf: Matrix, idf: Matrix) -> Matrix:
    weighted = tf * idf[None, :]
    norms = np.linalg.norm(weighted, axis=1, keepdims=True)
    return (weighted / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def embed_with_sentences(embedder: Embedder, texts: Sequence[str], *,
                         pooled: bool) -> tuple[Matrix, Matrix | None]:
    """Whole-text embeddings and, when ``pooled``, the element-wise maximum over each text's
    sentences (the whole-text vector for a one-sentence text). One ``embed`` call either way,
    so a chat message costs a single encoder pass."""
    splits = [[text[a:b] for a, b in sentence_spans(text)] if pooled else [] for text in texts]
    extra = [sentences if len(sentences) > 1 else [] for sentences in splits]
    vectors = embedder.embed([*texts, *(s for sentences in extra for s in sentences)])
    whole = np.asarray(vectors[:len(texts)], dtype=np.float32)
    if not pooled:
        return whole, None
    out = whole.copy()
    at = len(texts)
    for row, sentences in enumerate(extra):
        if sentences:
            out[row] = vectors[at:at + len(sentences)].max(axis=0)
            at += len(sentences)
    return whole, out


def combine(char_block: Matrix, embeddings: Matrix, embedding_weight: float,
            pooled: Matrix | None = None, sentence_weight: float = 0.0) -> Matrix:
    blocks = [char_block, embeddings * np.float32(embedding_weight)]
    if pooled is not None and sentence_weight > 0:
        blocks.append(pooled * np.float32(sentence_weight))
    return np.hstack(blocks).astype(np.float32)


def encode_array(values: npt.NDArray[Any]) -> dict[str, Any]:
    """A float32 array as JSON: shape plus base64 of its little-endian bytes (compact, exact)."""
    array = np.ascontiguousarray(values, dtype="<f4")
    return {"shape": list(array.shape),
            "float32_b64": base64.b64encode(array.tobytes()).decode("ascii")}


def decode_array(blob: dict[str, Any]) -> Matrix:
    raw = base64.b64decode(blob["float32_b64"])
    return np.frombuffer(raw, dtype="<f4").reshape(blob["shape"]).astype(np.float32)
