from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.post_api_compute_api_keys_list_response_200_payload_keys_item import (
        PostApiComputeApiKeysListResponse200PayloadKeysItem,
    )


T = TypeVar("T", bound="PostApiComputeApiKeysListResponse200Payload")


@_attrs_define
class PostApiComputeApiKeysListResponse200Payload:
    """
    Attributes:
        keys (list[PostApiComputeApiKeysListResponse200PayloadKeysItem]):
        next_cursor (None | str):
    """

    keys: list[PostApiComputeApiKeysListResponse200PayloadKeysItem]
    next_cursor: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        keys = []
        for keys_item_data in self.keys:
            keys_item = keys_item_data.to_dict()
            keys.append(keys_item)

        next_cursor: None | str
        next_cursor = self.next_cursor

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "keys": keys,
                "nextCursor": next_cursor,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_api_compute_api_keys_list_response_200_payload_keys_item import (
            PostApiComputeApiKeysListResponse200PayloadKeysItem,
        )

        d = dict(src_dict)
        keys = []
        _keys = d.pop("keys")
        for keys_item_data in _keys:
            keys_item = PostApiComputeApiKeysListResponse200PayloadKeysItem.from_dict(
                keys_item_data
            )

            keys.append(keys_item)

        def _parse_next_cursor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_cursor = _parse_next_cursor(d.pop("nextCursor"))

        post_api_compute_api_keys_list_response_200_payload = cls(
            keys=keys,
            next_cursor=next_cursor,
        )

        post_api_compute_api_keys_list_response_200_payload.additional_properties = d
        return post_api_compute_api_keys_list_response_200_payload

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
