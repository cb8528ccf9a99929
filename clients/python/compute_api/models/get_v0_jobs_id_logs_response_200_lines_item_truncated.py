from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="GetV0JobsIdLogsResponse200LinesItemTruncated")


@_attrs_define
class GetV0JobsIdLogsResponse200LinesItemTruncated:
    """
    Attributes:
        dropped_lines (int):
        dropped_bytes (int):
    """

    dropped_lines: int
    dropped_bytes: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        dropped_lines = self.dropped_lines

        dropped_bytes = self.dropped_bytes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "droppedLines": dropped_lines,
                "droppedBytes": dropped_bytes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        dropped_lines = d.pop("droppedLines")

        dropped_bytes = d.pop("droppedBytes")

        get_v0_jobs_id_logs_response_200_lines_item_truncated = cls(
            dropped_lines=dropped_lines,
            dropped_bytes=dropped_bytes,
        )

        get_v0_jobs_id_logs_response_200_lines_item_truncated.additional_properties = d
        return get_v0_jobs_id_logs_response_200_lines_item_truncated

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
