from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="RemovedMemberRevoked")


@_attrs_define
class RemovedMemberRevoked:
    """
    Attributes:
        keys (list[str]):
        tokens (list[str]):
        agents (list[str]):
    """

    keys: list[str]
    tokens: list[str]
    agents: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        keys = self.keys

        tokens = self.tokens

        agents = self.agents

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "keys": keys,
                "tokens": tokens,
                "agents": agents,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        keys = cast(list[str], d.pop("keys"))

        tokens = cast(list[str], d.pop("tokens"))

        agents = cast(list[str], d.pop("agents"))

        removed_member_revoked = cls(
            keys=keys,
            tokens=tokens,
            agents=agents,
        )

        removed_member_revoked.additional_properties = d
        return removed_member_revoked

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
