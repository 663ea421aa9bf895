"""Conversation datasets: loaders for JSONL, JSON, Parquet, Hugging Face and ShareGPT, and the
bundled samples.

    from ctxlab.datasets import load_conversations, describe_source
    for conversation in load_conversations(["sample:chats", "sharegpt"], strict=False, on_skip=print):
        ...

The synthetic generator lives in `ctxlab.datasets.synth` and is imported only when used.
"""

from __future__ import annotations

from ctxlab.datasets.loaders import OnSkip, load_conversations
from ctxlab.datasets.sources import SourceInfo, data_dir, describe_source, list_samples

__all__ = ["OnSkip", "SourceInfo", "data_dir", "describe_source", "list_samples", "load_conversations"]
