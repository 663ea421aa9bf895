"""Exact counters: tiktoken encodings (offline) and Hugging Face tokenizer files.

Chat overhead follows the openai-cookbook "How to count tokens with tiktoken": 3 tokens per
message, +1 per name, +3 to prime the reply, plus its formula for tool schemas. OpenAI does not
document how tool calls inside messages are tokenized; ctxlab counts a call's name and arguments
plus `PER_TOOL_CALL` tokens, an approximation stated here rather than hidden.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from ctxlab.errors import CtxlabError
from ctxlab.messages import Message
from ctxlab.tokens.base import CachedCounter
from ctxlab.tokens.chunks import SPLIT_CHARS, additive, line_chunks

PER_MESSAGE, PER_NAME, REPLY_PRIMING, PER_TOOL_CALL = 3, 1, 3, 3
_ENCODING_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}
_env_lock = threading.Lock()


class ToolFormula(NamedTuple):
    """The cookbook's per-model constants for counting tool schemas."""

    func_init: int
    prop_init: int = 3
    prop_key: int = 3
    enum_init: int = -3
    enum_item: int = 3
    func_end: int = 12


# gpt-4o family (o200k_base) starts each function with 7 tokens, gpt-4/3.5 (cl100k_base) with 10.
TOOL_FORMULAS = {"o200k_base": ToolFormula(func_init=7), "cl100k_base": ToolFormula(func_init=10)}


def litellm_tokenizer_dir() -> Path | None:
    """The folder of tokenizer files inside the installed litellm wheel, found without importing it."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
    return folder if folder.is_dir() else None


@contextlib.contextmanager
def _offline_tiktoken_cache(encoding: str) -> Iterator[None]:
    """Point tiktoken at litellm's shipped encodings unless the user's own cache already has them."""
    folder = litellm_tokenizer_dir()
    cache_name = hashlib.sha1(_ENCODING_URLS.get(encoding, "").encode()).hexdigest()
    user_dir = os.environ.get("TIKTOKEN_CACHE_DIR")
    if folder is None or not (folder / cache_name).exists() or (user_dir and (Path(user_dir) / cache_name).exists()):
        yield
        return
    with _env_lock:
        os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
        try:
            yield
        finally:
            if user_dir is None:
                os.environ.pop("TIKTOKEN_CACHE_DIR", None)
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = user_dir


def load_tiktoken(encoding: str):
    """A tiktoken `Encoding`, working offline for the encodings litellm ships.

    Raises:
        CtxlabError: the encoding is neither cached nor downloadable.
    """
    import tiktoken

    with _offline_tiktoken_cache(encoding):
        try:
            return tiktoken.get_encoding(encoding)
        except Exception as exc:  # tiktoken raises requests/ValueError subclasses alike
            raise CtxlabError(f"tiktoken encoding {encoding!r} is not available offline "
                              f"(set TIKTOKEN_CACHE_DIR to a folder holding it): {exc}") from exc


class ChatCounter(CachedCounter):
    """An exact tokenizer with the OpenAI chat-format overhead."""

    exact = True
    formula = ToolFormula(func_init=7)

    def _count_message(self, message: Message) -> int:
        tokens = PER_MESSAGE + self.count(message.role)
        tokens += sum(self.count(part) for part in message.parts)
        if message.name is not None:
            tokens += self.count(message.name) + PER_NAME
        for call in message.tool_calls:
            tokens += PER_TOOL_CALL + self.count(call.name) + self.count(call.arguments)
        return tokens

    def overhead(self, tools: Sequence[Mapping[str, Any]] | None = None) -> int:
        return REPLY_PRIMING + self.count_tools(tools)

    def _count_tools(self, tools: Sequence[Mapping[str, Any]]) -> int:
        """The cookbook's `num_tokens_for_tools` formula (only top-level properties are counted)."""
        f = self.formula
        total = 0
        for tool in tools:
            fn = tool.get("function", tool)
            total += f.func_init + self.count(f"{fn.get('name', '')}:{_strip_period(fn.get('description', ''))}")
            properties = (fn.get("parameters") or {}).get("properties") or {}
            if properties:
                total += f.prop_init
            for key, prop in properties.items():
                total += f.prop_key
                if "enum" in prop:
                    total += f.enum_init + sum(f.enum_item + self.count(str(v)) for v in prop["enum"])
                line = f"{key}:{prop.get('type', '')}:{_strip_period(prop.get('description', ''))}"
                total += self.count(line)
        return total + f.func_end


class TiktokenCounter(ChatCounter):
    """Exact counts with a tiktoken encoding (`o200k_base`, `cl100k_base`, ...)."""

    def __init__(self, encoding: str):
        super().__init__()
        self.name = encoding
        self.formula = TOOL_FORMULAS.get(encoding, ToolFormula(func_init=7))
        loaded = load_tiktoken(encoding)
        self._encode = loaded.encode_ordinary
        # Counts add up across safe line cuts, so long texts are summed from cached chunks.
        self.additive = additive(loaded)

    def _count_text(self, text: str) -> int:
        # A long text is the sum of its cached line chunks (exact; see `ctxlab.tokens.chunks`).
        if self.additive and len(text) >= SPLIT_CHARS:
            chunks = line_chunks(text)
            if len(chunks) > 1:
                return sum(map(self.count, chunks))
        return len(self._encode(text))


class HFCounter(ChatCounter):
    """Exact counts with a Hugging Face `tokenizer.json`, with the OpenAI chat overhead applied."""

    def __init__(self, path: str | Path, name: str | None = None):
        super().__init__()
        from tokenizers import Tokenizer

        path = Path(path)
        if not path.is_file():
            raise CtxlabError(f"tokenizer file not found: {path}")
        try:
            self._tokenizer = Tokenizer.from_file(str(path))
        except Exception as exc:  # the Rust side raises a plain Exception
            raise CtxlabError(f"{path}: not a Hugging Face tokenizer.json ({exc})") from exc
        self.name = name or f"hf:{path}"

    def _count_text(self, text: str) -> int:
        # The Rust tokenizer rejects lone surrogates (valid in JSON strings); tiktoken replaces them.
        if not text.isascii():
            text = text.encode("utf-8", "replace").decode("utf-8")
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)


def claude_legacy() -> HFCounter:
    """The legacy Claude tokenizer that litellm ships (Anthropic no longer publishes one)."""
    folder = litellm_tokenizer_dir()
    if folder is None:
        raise CtxlabError("claude_legacy needs litellm installed (it ships anthropic_tokenizer.json)")
    return HFCounter(folder / "anthropic_tokenizer.json", name="claude_legacy")


def _strip_period(text: str) -> str:
    return text[:-1] if text.endswith(".") else text
