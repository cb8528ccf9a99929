from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV0AgentsIddrainBody")


@_attrs_define
class PostV0AgentsIddrainBody:
    """
    Attributes:
        deadline_seconds (int | Unset):
    """

    deadline_seconds: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        deadline_seconds = self.deadline_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if deadline_seconds is not UNSET:
            field_dict["deadlineSeconds"] = deadline_seconds

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        deadline_seconds = d.pop("deadlineSeconds", UNSET)

        post_v0_agents_iddrain_body = cls(
            deadline_seconds=deadline_seconds,
        )

        return post_v0_agents_iddrain_body
