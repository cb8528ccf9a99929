from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.sse_log_event_event import SseLogEventEvent
from ..types import UNSET, Unset

T = TypeVar("T", bound="SseLogEvent")


@_attrs_define
class SseLogEvent:
    """A server-sent event (comments are keep-alives)

    Attributes:
        event (SseLogEventEvent):
        data (str): JSON. log: {seq, stream, line, ts}; log.truncated: {seq, droppedLines, droppedBytes, ts}; end:
            {state, exitCode}
        id (str | Unset): The seq; resume after it with Last-Event-ID
    """

    event: SseLogEventEvent
    data: str
    id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        event = self.event.value

        data = self.data

        id = self.id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "event": event,
                "data": data,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        event = SseLogEventEvent(d.pop("event"))

        data = d.pop("data")

        id = d.pop("id", UNSET)

        sse_log_event = cls(
            event=event,
            data=data,
            id=id,
        )

        sse_log_event.additional_properties = d
        return sse_log_event

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
