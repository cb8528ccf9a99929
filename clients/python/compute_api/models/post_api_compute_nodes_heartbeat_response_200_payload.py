from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PostApiComputeNodesHeartbeatResponse200Payload")


@_attrs_define
class PostApiComputeNodesHeartbeatResponse200Payload:
    """
    Attributes:
        drain (bool):
        cancel (list[str]):
    """

    drain: bool
    cancel: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        drain = self.drain

        cancel = self.cancel

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "drain": drain,
                "cancel": cancel,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        drain = d.pop("drain")

        cancel = cast(list[str], d.pop("cancel"))

        post_api_compute_nodes_heartbeat_response_200_payload = cls(
            drain=drain,
            cancel=cancel,
        )

        post_api_compute_nodes_heartbeat_response_200_payload.additional_properties = d
        return post_api_compute_nodes_heartbeat_response_200_payload

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
