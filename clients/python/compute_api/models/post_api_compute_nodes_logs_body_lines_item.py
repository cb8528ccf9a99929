from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.post_api_compute_nodes_logs_body_lines_item_stream import (
    PostApiComputeNodesLogsBodyLinesItemStream,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="PostApiComputeNodesLogsBodyLinesItem")


@_attrs_define
class PostApiComputeNodesLogsBodyLinesItem:
    """
    Attributes:
        seq (int):
        stream (PostApiComputeNodesLogsBodyLinesItemStream):
        line (str): NUL and lone surrogates are stored as U+FFFD
        ts (datetime.datetime | Unset):
    """

    seq: int
    stream: PostApiComputeNodesLogsBodyLinesItemStream
    line: str
    ts: datetime.datetime | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        seq = self.seq

        stream = self.stream.value

        line = self.line

        ts: str | Unset = UNSET
        if not isinstance(self.ts, Unset):
            ts = self.ts.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "seq": seq,
                "stream": stream,
                "line": line,
            }
        )
        if ts is not UNSET:
            field_dict["ts"] = ts

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        seq = d.pop("seq")

        stream = PostApiComputeNodesLogsBodyLinesItemStream(d.pop("stream"))

        line = d.pop("line")

        _ts = d.pop("ts", UNSET)
        ts: datetime.datetime | Unset
        if isinstance(_ts, Unset):
            ts = UNSET
        else:
            ts = datetime.datetime.fromisoformat(_ts)

        post_api_compute_nodes_logs_body_lines_item = cls(
            seq=seq,
            stream=stream,
            line=line,
            ts=ts,
        )

        return post_api_compute_nodes_logs_body_lines_item
