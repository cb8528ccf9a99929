from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v0_jobs_id_logs_response_200_lines_item_stream import (
    GetV0JobsIdLogsResponse200LinesItemStream,
)
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.get_v0_jobs_id_logs_response_200_lines_item_truncated import (
        GetV0JobsIdLogsResponse200LinesItemTruncated,
    )


T = TypeVar("T", bound="GetV0JobsIdLogsResponse200LinesItem")


@_attrs_define
class GetV0JobsIdLogsResponse200LinesItem:
    """
    Attributes:
        seq (int):
        stream (GetV0JobsIdLogsResponse200LinesItemStream):
        line (str):
        ts (str):
        truncated (GetV0JobsIdLogsResponse200LinesItemTruncated | Unset):
    """

    seq: int
    stream: GetV0JobsIdLogsResponse200LinesItemStream
    line: str
    ts: str
    truncated: GetV0JobsIdLogsResponse200LinesItemTruncated | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        seq = self.seq

        stream = self.stream.value

        line = self.line

        ts = self.ts

        truncated: dict[str, Any] | Unset = UNSET
        if not isinstance(self.truncated, Unset):
            truncated = self.truncated.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "seq": seq,
                "stream": stream,
                "line": line,
                "ts": ts,
            }
        )
        if truncated is not UNSET:
            field_dict["truncated"] = truncated

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.get_v0_jobs_id_logs_response_200_lines_item_truncated import (
            GetV0JobsIdLogsResponse200LinesItemTruncated,
        )

        d = dict(src_dict)
        seq = d.pop("seq")

        stream = GetV0JobsIdLogsResponse200LinesItemStream(d.pop("stream"))

        line = d.pop("line")

        ts = d.pop("ts")

        _truncated = d.pop("truncated", UNSET)
        truncated: GetV0JobsIdLogsResponse200LinesItemTruncated | Unset
        if isinstance(_truncated, Unset):
            truncated = UNSET
        else:
            truncated = GetV0JobsIdLogsResponse200LinesItemTruncated.from_dict(
                _truncated
            )

        get_v0_jobs_id_logs_response_200_lines_item = cls(
            seq=seq,
            stream=stream,
            line=line,
            ts=ts,
            truncated=truncated,
        )

        get_v0_jobs_id_logs_response_200_lines_item.additional_properties = d
        return get_v0_jobs_id_logs_response_200_lines_item

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
